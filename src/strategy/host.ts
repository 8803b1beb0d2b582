// Runs one plugin safely: every call into plugin code is caught, and a plugin that throws is
// disabled (and reported) while the others run on. Plugins only queue intents; the host hands
// them to the engine after each call.
import { toDecimal, dec, type Decimal } from '../core/decimal.js';
import { StrategyError, errorText } from '../core/errors.js';
import { clientOrderId, type ClientOrderId } from '../core/ids.js';
import type { SymbolInfo } from '../core/market.js';
import type { Balance, CancelIntent, Fill, Market, Order, OrderIntent, PlaceIntent, Position } from '../core/types.js';
import type { MarketEvent, MarketSubscription, OrderRequest, StrategyContext, StrategyDefinition, StrategyHandlers, StrategyLogger } from './api.js';

/** The engine's state as strategies may read it. */
export interface EngineView {
  position(market: Market, symbol: string): Position;
  openOrders(strategyId: string, symbol?: string): readonly Order[];
  balance(asset: string): Balance;
  lastPrice(market: Market, symbol: string): Decimal | undefined;
  instrument(market: Market, symbol: string): SymbolInfo | undefined;
}

export interface StrategySetup {
  id: string;
  market: Market;
  symbols: readonly string[];
  everyMs: number;
}

export interface HostDeps {
  view: EngineView;
  now(): number;
  log: StrategyLogger;
  /** The next sequence number for this strategy's client order ids (durable across restarts). */
  nextSequence(): number;
}

/** An intent the plugin asked for that could not even be formed. */
export interface InvalidRequest {
  strategyId: string;
  clientOrderId: ClientOrderId;
  reason: string;
}

export interface HostOutput {
  intents: OrderIntent[];
  invalid: InvalidRequest[];
}

export class StrategyHost {
  private handlers: StrategyHandlers = {};
  private outbox: OrderIntent[] = [];
  private invalid: InvalidRequest[] = [];
  private failure: StrategyError | undefined;
  readonly subscriptions: MarketSubscription[];

  constructor(
    readonly setup: StrategySetup,
    definition: StrategyDefinition,
    private readonly params: unknown,
    private readonly deps: HostDeps,
  ) {
    this.subscriptions = this.guardSync('subscribe', () => definition.subscribe?.(params) ?? [{ kind: 'ticker' }]) ?? [];
    this.guardSync('create', () => {
      this.handlers = definition.create(this.context());
    });
  }

  get id(): string {
    return this.setup.id;
  }

  get enabled(): boolean {
    return this.failure === undefined;
  }

  /** Why the strategy was disabled, if it was. */
  get disabledBy(): StrategyError | undefined {
    return this.failure;
  }

  start = () => this.invoke('onStart', (h) => h.onStart?.());
  tick = () => this.invoke('onTick', (h) => h.onTick?.());
  marketData = (event: MarketEvent) => this.invoke('onMarketData', (h) => h.onMarketData?.(event));
  fill = (fill: Fill) => this.invoke('onFill', (h) => h.onFill?.(fill));
  orderUpdate = (order: Order) => this.invoke('onOrderUpdate', (h) => h.onOrderUpdate?.(order));
  stop = () => this.invoke('onStop', (h) => h.onStop?.());

  private async invoke(name: string, call: (h: StrategyHandlers) => void | Promise<void>): Promise<HostOutput> {
    if (this.enabled) {
      try {
        await call(this.handlers);
      } catch (err) {
        this.disable(name, err);
      }
    }
    return this.drain();
  }

  private guardSync<T>(name: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      this.disable(name, err);
      return undefined;
    }
  }

  private disable(name: string, err: unknown): void {
    const message = errorText(err);
    this.failure = new StrategyError(this.id, `${name} threw: ${message}; the strategy is disabled, the others run on`, { cause: err });
    // Intents queued by a call that then threw are dropped: the plugin's state is suspect.
    this.outbox = [];
  }

  private drain(): HostOutput {
    const out = { intents: this.outbox, invalid: this.invalid };
    this.outbox = [];
    this.invalid = [];
    return out;
  }

  private context(): StrategyContext<unknown> {
    const { setup, deps } = this;
    const host = this;
    const canceling = new Set<string>();
    return {
      id: setup.id,
      params: this.params as Readonly<unknown>,
      market: setup.market,
      symbols: setup.symbols,
      log: deps.log,
      now: () => deps.now(),
      position: (symbol) => deps.view.position(setup.market, symbol.toUpperCase()),
      openOrders: (symbol) => deps.view.openOrders(setup.id, symbol?.toUpperCase()),
      balance: (asset) => deps.view.balance(asset.toUpperCase()),
      lastPrice: (symbol) => deps.view.lastPrice(setup.market, symbol.toUpperCase()),
      instrument: (symbol) => deps.view.instrument(setup.market, symbol.toUpperCase()),
      place(request: OrderRequest): ClientOrderId {
        const id = clientOrderId(setup.id, deps.nextSequence());
        const formed = formPlace(setup, id, request);
        if (typeof formed === 'string') {
          host.invalid.push({ strategyId: setup.id, clientOrderId: id, reason: formed });
          deps.log.warn('intent rejected', { rule: 'invalid', clientOrderId: id, reason: formed });
        } else {
          host.outbox.push(formed);
        }
        return id;
      },
      cancel(target: ClientOrderId): void {
        const order = deps.view.openOrders(setup.id).find((o) => o.clientOrderId === target);
        const queued = host.outbox.find((i): i is PlaceIntent => i.kind === 'place' && i.clientOrderId === target);
        if (queued) {
          // Not sent yet: withdrawing it is the cancel.
          host.outbox = host.outbox.filter((i) => i !== queued);
          return;
        }
        if (!order || canceling.has(target)) return;
        canceling.add(target);
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
        const targets = deps.view.openOrders(setup.id, symbol?.toUpperCase()).filter((o) => !canceling.has(o.clientOrderId));
        for (const o of targets) this.cancel(o.clientOrderId);
        return targets.length;
      },
      replace(target, changes) {
        const order = deps.view.openOrders(setup.id).find((o) => o.clientOrderId === target);
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
        });
        // The venue holds a futures close's volume until its cancel settles, so the new close
        // waits for the old one to end (and is dropped if the old one filled instead).
        const replacement = host.outbox.find((i): i is PlaceIntent => i.kind === 'place' && i.clientOrderId === id);
        if (replacement && order.market === 'futures' && order.open === 'CLOSE') replacement.after = target;
        return id;
      },
    };
  }
}

/** Builds a place intent, or says what is wrong with the request and how to fix it. */
function formPlace(setup: StrategySetup, id: ClientOrderId, r: OrderRequest): PlaceIntent | string {
  const symbol = typeof r.symbol === 'string' ? r.symbol.toUpperCase() : '';
  if (!setup.symbols.includes(symbol)) return `symbol ${JSON.stringify(r.symbol)} is not one of this strategy's symbols (${setup.symbols.join(', ')}); add it under symbols in the config`;
  if (r.side !== 'BUY' && r.side !== 'SELL') return `side must be BUY or SELL, got ${JSON.stringify(r.side)}`;
  if (r.type !== 'LIMIT' && r.type !== 'MARKET') return `type must be LIMIT or MARKET, got ${JSON.stringify(r.type)}`;
  let volume: Decimal;
  let price: Decimal | undefined;
  try {
    volume = toDecimal(r.volume, 'volume');
    price = r.price === undefined ? undefined : toDecimal(r.price, 'price');
  } catch (err) {
    return (err as Error).message;
  }
  if (!dec.isPositive(volume)) return `volume must be above 0, got ${volume}`;
  if (r.type === 'LIMIT' && price === undefined) return 'a LIMIT order needs a price';
  if (r.type === 'LIMIT' && !dec.isPositive(price!)) return `price must be above 0, got ${price}`;
  if (r.type === 'MARKET' && price !== undefined) return 'a MARKET order takes no price; leave price out';
  const intent: PlaceIntent = {
    kind: 'place',
    intentId: id,
    strategyId: setup.id,
    market: setup.market,
    symbol,
    side: r.side,
    type: r.type,
    volume,
    clientOrderId: id,
  };
  if (price !== undefined) intent.price = price;
  if (setup.market === 'futures') {
    intent.open = r.open ?? 'OPEN';
    intent.positionType = r.positionType ?? 1;
  }
  return intent;
}
