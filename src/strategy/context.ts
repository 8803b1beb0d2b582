// The context a plugin gets: reads are snapshots of the engine's view, writes only queue intents
// in its host's outbox.
import { isFlatPosition } from '../core/closing.js';
import { dec, toDecimal, type Decimal } from '../core/decimal.js';
import { JournalError } from '../core/errors.js';
import { clientOrderId, type ClientOrderId } from '../core/ids.js';
import type { KlineInterval } from '../core/market.js';
import type { CancelIntent, PlaceIntent, Side } from '../core/types.js';
import type { OrderRequest, StrategyContext } from './api.js';
import type { HostDeps, HostInternals, StrategySetup } from './host-types.js';
import { formPlace } from './requests.js';

export function buildContext(setup: StrategySetup, params: unknown, deps: HostDeps, host: HostInternals): StrategyContext<unknown> {
  const { view } = deps;
  const { canceling } = host;
  let unsent = 0;
  const up = (symbol: string) => symbol.toUpperCase();
  const subscribedKlines = (interval: KlineInterval) => host.subscriptions.some((s) => s.kind === 'klines' && s.interval === interval);
  const bestBid = (symbol: string) => view.depth(setup.market, up(symbol))?.bids[0]?.[0] ?? view.ticker(setup.market, up(symbol))?.buy;
  const bestAsk = (symbol: string) => view.depth(setup.market, up(symbol))?.asks[0]?.[0] ?? view.ticker(setup.market, up(symbol))?.sell;
  const bySymbol = <T extends { symbol: string }>(list: readonly T[], symbol?: string) => (symbol === undefined ? list : list.filter((x) => x.symbol === up(symbol)));
  return {
    id: setup.id,
    params: params as Readonly<unknown>,
    market: setup.market,
    symbols: setup.symbols,
    log: deps.log,
    now: () => deps.now(),
    position: (symbol) => view.position(setup.market, up(symbol)),
    openOrders: (symbol) => view.openOrders(setup.id, symbol === undefined ? undefined : up(symbol)),
    balance: (asset) => view.balance(asset.toUpperCase()),
    lastPrice: (symbol) => view.lastPrice(setup.market, up(symbol)),
    instrument: (symbol) => view.instrument(setup.market, up(symbol)),
    ticker: (symbol) => view.ticker(setup.market, up(symbol)),
    depth: (symbol) => view.depth(setup.market, up(symbol)),
    klines: (symbol, interval) => view.klines(setup.market, up(symbol), interval),
    bestBid,
    bestAsk,
    mid(symbol) {
      const bid = bestBid(symbol);
      const ask = bestAsk(symbol);
      return bid && ask ? dec.div(dec.add(bid, ask), '2' as Decimal) : undefined;
    },
    roundPrice(symbol, price, side: Side) {
      const info = view.instrument(setup.market, up(symbol));
      if (!info) throw new RangeError(`roundPrice: ${symbol} is not an instrument this strategy trades`);
      const value = toDecimal(typeof price === 'number' ? price.toFixed(Math.min(20, info.pricePrecision + 4)) : price, 'price');
      return side === 'BUY' ? dec.truncate(value, info.pricePrecision) : dec.roundUp(value, info.pricePrecision);
    },
    fills: (symbol) => bySymbol(view.ownFills(setup.id), symbol),
    orders: (symbol) => bySymbol(view.ownOrders(setup.id), symbol),
    ownPosition: (symbol) => view.ownPosition(setup.id, setup.market, up(symbol)),
    isFlat(symbol) {
      const info = view.instrument(setup.market, up(symbol));
      if (!info) throw new RangeError(`isFlat: ${symbol} is not an instrument this strategy trades`);
      return isFlatPosition(setup.market, info, view.ownPosition(setup.id, setup.market, up(symbol)));
    },
    margin: () => (setup.market === 'futures' ? view.margin() : undefined),
    setTimer: (delayMs, fn) => host.setTimer(delayMs, fn),
    clearTimer: (id) => host.clearTimer(id),
    indicator(symbol, interval, indicator, opts = {}) {
      if (!subscribedKlines(interval)) throw new RangeError(`indicator(${symbol}, ${interval}): subscribe to { kind: 'klines', interval: '${interval}' } to feed it`);
      host.indicators.add(up(symbol), interval, { indicator, input: opts.input ?? 'close', forming: opts.forming ?? false });
      // What is already known (the warm-up history) goes in at once.
      const known = view.klines(setup.market, up(symbol), interval);
      if (known) host.indicators.feed(up(symbol), interval, known);
      return indicator;
    },
    place(request: OrderRequest): ClientOrderId {
      let id: ClientOrderId;
      try {
        id = clientOrderId(setup.id, deps.nextSequence());
      } catch (err) {
        if (!(err instanceof JournalError)) throw err;
        // No number could be reserved (the journal takes no writes): the plugin is not at fault.
        // Its request is rejected under an id no sequence makes ('_' is not base 36), never sent.
        id = `sl${setup.id}_unsent${++unsent}` as ClientOrderId;
        host.invalid.push({ strategyId: setup.id, clientOrderId: id, reason: `not sent: ${err.message}` });
        return id;
      }
      const formed = formPlace(setup, id, request);
      if (typeof formed === 'string') host.invalid.push({ strategyId: setup.id, clientOrderId: id, reason: formed });
      else host.outbox.push(formed);
      return id;
    },
    cancel(target: ClientOrderId): void {
      const open = view.openOrders(setup.id);
      const order = open.find((o) => o.clientOrderId === target);
      const queued = host.outbox.find((i): i is PlaceIntent => i.kind === 'place' && i.clientOrderId === target);
      if (queued) {
        // Not sent yet: withdrawing it is the cancel.
        host.outbox = host.outbox.filter((i) => i !== queued);
        return;
      }
      // Already on its way (asked earlier, or the venue took it): a second would earn -1145.
      if (!order || order.status === 'pending_cancel' || canceling.has(target)) return;
      canceling.add(target, open);
      const intent: CancelIntent = {
        kind: 'cancel',
        intentId: `${target}:cancel`,
        strategyId: setup.id,
        market: setup.market,
        symbol: order.symbol,
        clientOrderId: target,
        venueOrderId: order.venueOrderId,
      };
      host.outbox.push(intent);
    },
    cancelAll(symbol?: string): number {
      const targets = view.openOrders(setup.id, symbol === undefined ? undefined : up(symbol)).filter((o) => o.status !== 'pending_cancel' && !canceling.has(o.clientOrderId));
      for (const o of targets) this.cancel(o.clientOrderId);
      return targets.length;
    },
    replace(target, changes) {
      const order = view.openOrders(setup.id).find((o) => o.clientOrderId === target);
      if (!order) {
        deps.log.warn('replace: no open order with that id', { clientOrderId: target });
        return undefined;
      }
      this.cancel(target);
      const id = this.place({
        symbol: order.symbol,
        side: order.side,
        type: order.type,
        volume: changes.volume ?? dec.sub(order.volume, order.executedVolume),
        price: changes.price ?? order.price,
        ...(order.open !== undefined ? { open: order.open } : {}),
        ...(order.positionType !== undefined ? { positionType: order.positionType } : {}),
        ...(order.timeInForce !== undefined ? { timeInForce: order.timeInForce } : {}),
      });
      // The venue holds a futures close's volume until its cancel settles, so the new close
      // waits for the old one to end (and is dropped if the old one filled instead).
      const replacement = host.outbox.find((i): i is PlaceIntent => i.kind === 'place' && i.clientOrderId === id);
      if (replacement && order.market === 'futures' && order.open === 'CLOSE') replacement.after = target;
      return id;
    },
  };
}
