// The engine: strategies -> risk -> batcher -> gateway, and the reconciler feeding fills back.
// Live, paper and backtest run this same code; only the transport and the clock differ.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { BannedError, UnknownOrderError } from '../core/errors.js';
import type { SymbolInfo } from '../core/market.js';
import type { Journal, Pacer } from '../core/ports.js';
import { FINAL_STATUSES, type Balance, type Batch, type CancelIntent, type Fill, type Market, type Order, type OrderIntent, type PlaceIntent, type Position } from '../core/types.js';
import type { EndpointId } from '../exchange/endpoints.js';
import type { Executor, OrderGateway, PlaceResult, CancelResult } from '../executor/index.js';
import type { PositionBook } from '../positions/index.js';
import { diffVenue, compareIds } from '../reconciler/diff.js';
import type { RiskGate, RiskInputs, RiskRejection } from '../risk/index.js';
import type { MarketEvent } from '../strategy/api.js';
import { StrategyHost, type EngineView, type HostOutput, type LoadedStrategy } from '../strategy/index.js';
import { mergeFeeds, pollFeed, type Feed } from './market-data.js';
import { mergeVenueOrder, pendingOrder, withStatus } from './orders.js';

export interface Dispatcher {
  /** Chooses what to send now given free capacity; the rest waits. */
  plan(batches: readonly Batch[], free: (endpoint: EndpointId) => number): { send: Batch[]; wait: OrderIntent[] };
}

export interface EngineSettings {
  marketDataEveryMs: number;
  reconcileEveryMs: number;
  summaryEveryMs: number;
  shutdown: { queued: 'flush' | 'drop'; cancelOpenOrders: boolean };
  /** How long a backlog waits before the dispatcher looks at capacity again. */
  dispatchRetryMs?: number;
}

export interface EngineDeps {
  executor: Executor;
  gateway: OrderGateway;
  pacer: Pacer;
  clock: Clock;
  log: Logger;
  journal: Journal;
  strategies: readonly LoadedStrategy[];
  risk: RiskGate;
  positions: PositionBook;
  dispatcher: Dispatcher;
  toBatches(intents: readonly OrderIntent[]): Batch[];
  settings: EngineSettings;
}

export interface EngineStats {
  intents: number;
  sent: number;
  accepted: number;
  rejected: number;
  unknown: number;
  fills: number;
  riskRejections: number;
  /** ms from an intent's arrival to its request leaving, per sent intent (for latency figures). */
  intentToWire: number[];
}

const key = (market: Market, symbol: string) => `${market}:${symbol}`;

/** Order look-ups (queryOrder, 20 per 2 s) per symbol and reconcile pass. */
const QUERIES_PER_PASS = 4;

export class Engine {
  readonly hosts: StrategyHost[];
  readonly stats: EngineStats = { intents: 0, sent: 0, accepted: 0, rejected: 0, unknown: 0, fills: 0, riskRejections: 0, intentToWire: [] };
  private readonly instruments = new Map<string, SymbolInfo>();
  private readonly lastPrices = new Map<string, Decimal>();
  private balances = new Map<string, Balance>();
  private queue: { intent: OrderIntent; at: number }[] = [];
  private readonly cancelAfterAck = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loops: Promise<void>[] = [];
  private dispatching = false;
  private running = false;
  /** Set by plan(): verdicts are collected instead of journaled and sent. */
  private planSink: ((accepted: OrderIntent[], rejected: RiskRejection[]) => void) | undefined;

  constructor(private readonly deps: EngineDeps) {
    const view = this.view();
    this.hosts = deps.strategies.map(
      (s) =>
        new StrategyHost({ id: s.entry.id, market: s.entry.market, symbols: s.entry.symbols, everyMs: s.entry.everyMs }, s.definition, s.params, {
          view,
          now: () => deps.clock.now(),
          log: pluginLogger(deps.log.child({ strategy: s.entry.id })),
          nextSequence: () => deps.journal.nextSequence(s.entry.id),
        }),
    );
    for (const h of this.hosts) this.reportIfDisabled(h);
  }

  /** Symbols any strategy trades, per market. */
  activeSymbols(): { market: Market; symbol: string }[] {
    const seen = new Map<string, { market: Market; symbol: string }>();
    for (const h of this.hosts) for (const symbol of h.setup.symbols) seen.set(key(h.setup.market, symbol), { market: h.setup.market, symbol });
    return [...seen.values()];
  }

  /** Loads instruments, balances and the venue's view of our orders; no strategy has run yet. */
  async prepare(): Promise<void> {
    const markets = new Set(this.hosts.map((h) => h.setup.market));
    if (markets.has('spot')) {
      for (const s of await this.deps.executor.call('spot.symbols', {})) this.instruments.set(key('spot', s.symbol), s);
    }
    if (markets.has('futures')) {
      for (const c of await this.deps.executor.call('futures.contracts', {})) {
        const step = c.minOrderVolume.includes('.') ? c.minOrderVolume.split('.')[1]!.length : 0;
        this.instruments.set(key('futures', c.symbol), {
          symbol: c.symbol,
          baseAsset: c.symbol,
          quoteAsset: 'USDT',
          pricePrecision: c.pricePrecision,
          quantityPrecision: step,
          limitVolumeMin: c.minOrderVolume,
          limitPriceMin: ZERO,
        });
      }
    }
    for (const { market, symbol } of this.activeSymbols()) {
      if (!this.instruments.has(key(market, symbol))) this.deps.log.warn({ market, symbol }, 'the venue does not list this symbol; its orders will be rejected');
    }
    await this.refreshAccount();
    await this.reconcile();
  }

  async start(): Promise<void> {
    this.running = true;
    await this.prepare();
    for (const h of this.hosts) await this.handle(h, await h.start());
    const { settings } = this.deps;
    for (const h of this.hosts) this.every(h.setup.everyMs, async () => this.handle(h, await h.tick()));
    this.every(settings.marketDataEveryMs, () => this.pollMarketData());
    this.every(settings.reconcileEveryMs, async () => {
      await this.reconcile();
      await this.refreshAccount();
    });
    this.every(settings.summaryEveryMs, async () => this.deps.log.info(this.summary(), 'summary'));
  }

  /**
   * One tick of every strategy against the venue's current state, with the risk verdicts and
   * the batches that would be sent. Nothing is sent and nothing is journaled.
   */
  async plan(): Promise<string> {
    const verdicts: string[] = [];
    const intents: OrderIntent[] = [];
    this.planSink = (accepted, rejected) => {
      intents.push(...accepted);
      for (const r of rejected) verdicts.push(`  rejected ${describe(r.intent)}: ${r.reason}`);
    };
    await this.prepare();
    for (const h of this.hosts) await this.handle(h, await h.start());
    await this.pollMarketData();
    for (const h of this.hosts) await this.handle(h, await h.tick());
    const batches = this.deps.toBatches(intents);
    const lines = [`plan: ${intents.length} intents accepted by risk, ${verdicts.length} rejected, ${batches.length} batches (nothing sent)`];
    for (const b of batches) lines.push(`  batch ${b.market} ${b.symbol} ${b.kind} x${b.items.length}: ${b.items.map(describe).join('; ')}`);
    lines.push(...verdicts);
    for (const h of this.hosts.filter((x) => !x.enabled)) lines.push(`  disabled ${h.id}: ${h.disabledBy?.message}`);
    return lines.join('\n');
  }

  /** Stops strategies, settles queued intents per config, optionally cancels open orders. */
  async stop(): Promise<void> {
    this.running = false;
    for (const h of this.hosts) await this.handle(h, await h.stop());
    if (this.deps.settings.shutdown.queued === 'drop') {
      for (const { intent } of this.queue) this.dropQueued(intent, 'dropped at shutdown');
      this.queue = [];
    }
    await this.drain();
    if (this.deps.settings.shutdown.cancelOpenOrders) {
      const open = this.deps.journal.orders({ openOnly: true }).filter((o) => o.venueOrderId);
      this.enqueue(
        open.map((o): CancelIntent => ({ kind: 'cancel', intentId: `${o.clientOrderId}:shutdown`, strategyId: o.strategyId, market: o.market, symbol: o.symbol, clientOrderId: o.clientOrderId, venueOrderId: o.venueOrderId })),
      );
      await this.drain();
    }
    this.deps.log.info(this.summary(), 'stopped');
  }

  /** Waits until nothing is queued or in flight. */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight.size > 0 || this.dispatching) {
      if (this.inFlight.size > 0) await Promise.race(this.inFlight);
      else await this.deps.clock.sleep(this.deps.settings.dispatchRetryMs ?? 25);
      this.kick();
    }
  }

  summary(): Record<string, unknown> {
    const orders = this.deps.journal.orders({ openOnly: true });
    const positions = this.deps.positions.snapshot().filter((p) => !dec.isZero(p.quantity) || !dec.isZero(p.realizedPnl));
    const usage = Object.fromEntries(
      Object.entries(this.deps.pacer.usage())
        .filter(([, u]) => u.inWindow > 0 || u.queued > 0)
        .map(([e, u]) => [e, `${u.inWindow}/${u.limit}${u.queued ? ` +${u.queued} queued` : ''}`]),
    );
    return {
      orders: { sent: this.stats.sent, open: orders.length, rejected: this.stats.rejected, unknown: this.stats.unknown, riskRejected: this.stats.riskRejections },
      fills: this.stats.fills,
      positions: Object.fromEntries(positions.map((p) => [p.symbol, p.quantity])),
      realizedPnl: dec.sum(positions.map((p) => p.realizedPnl)),
      fees: dec.sum(positions.map((p) => p.fees)),
      limiter: usage,
      disabled: this.hosts.filter((h) => !h.enabled).map((h) => h.id),
    };
  }

  // ---------- strategy output -> risk -> queue ----------

  private async handle(host: StrategyHost, out: HostOutput): Promise<void> {
    this.reportIfDisabled(host);
    const now = this.deps.clock.now();
    for (const bad of out.invalid) {
      this.stats.rejected++;
      this.deps.log.warn({ strategy: bad.strategyId, clientOrderId: bad.clientOrderId, rule: 'invalid', reason: bad.reason }, 'intent rejected');
    }
    if (out.intents.length === 0) return;
    this.stats.intents += out.intents.length;
    const { accepted, rejected } = this.deps.risk.check(out.intents, this.riskInputs(), now);
    if (this.planSink) return this.planSink(accepted, rejected);
    for (const r of rejected) {
      this.stats.riskRejections++;
      this.deps.log.warn({ strategy: r.intent.strategyId, clientOrderId: r.intent.clientOrderId, rule: r.rule, reason: r.reason }, 'intent rejected');
    }
    for (const intent of accepted) if (intent.kind === 'place') this.deps.journal.recordIntent(intent, pendingOrder(intent, now));
    this.enqueue(accepted);
    // Rejections are reported to their strategy after the accepted intents are queued.
    for (const r of rejected) {
      if (r.intent.kind !== 'place') continue;
      const order = withStatus(pendingOrder(r.intent, now), 'rejected', now);
      this.deps.journal.recordIntent(r.intent, order);
      await this.notify(order);
    }
  }

  private enqueue(intents: readonly OrderIntent[]): void {
    const at = this.deps.clock.now();
    for (const intent of intents) {
      if (intent.kind === 'cancel' && !intent.venueOrderId) {
        const target = this.deps.journal.order(intent.clientOrderId);
        if (target?.venueOrderId) {
          this.queue.push({ intent: { ...intent, venueOrderId: target.venueOrderId }, at });
        } else if (target && target.status === 'pending') {
          // Not acknowledged yet: cancel as soon as the venue gives us its id.
          this.cancelAfterAck.add(intent.clientOrderId);
        } else {
          this.deps.log.warn({ clientOrderId: intent.clientOrderId, status: target?.status }, 'cancel skipped: the venue id of that order is not known');
        }
        continue;
      }
      this.queue.push({ intent, at });
    }
    this.kick();
  }

  private dropQueued(intent: OrderIntent, reason: string): void {
    if (intent.kind !== 'place') return;
    const order = this.deps.journal.order(intent.clientOrderId);
    if (order) this.deps.journal.updateOrder(withStatus(order, 'canceled', this.deps.clock.now()), reason);
  }

  // ---------- dispatch ----------

  private kick(): void {
    if (this.dispatching || this.queue.length === 0) return;
    this.dispatching = true;
    void this.dispatchLoop().finally(() => {
      this.dispatching = false;
      if (this.queue.length > 0 && this.running) this.kick();
    });
  }

  private async dispatchLoop(): Promise<void> {
    while (this.queue.length > 0) {
      const arrivedAt = new Map(this.queue.map((q) => [q.intent.intentId, q.at]));
      const usage = this.deps.pacer.usage();
      const free = (e: EndpointId) => {
        const u = usage[e];
        return u ? Math.max(0, u.limit - u.inWindow - u.queued) : 0;
      };
      const { send, wait } = this.deps.dispatcher.plan(this.deps.toBatches(this.queue.map((q) => q.intent)), free);
      this.queue = wait.map((intent) => ({ intent, at: arrivedAt.get(intent.intentId) ?? this.deps.clock.now() }));
      for (const batch of send) this.track(this.send(batch, arrivedAt));
      if (send.length === 0) {
        if (this.deps.pacer.pausedUntil() > this.deps.clock.now()) {
          for (const { intent } of this.queue) this.dropQueued(intent, 'not sent: trading is paused by a venue ban');
          this.queue = [];
          return;
        }
        await this.deps.clock.sleep(this.deps.settings.dispatchRetryMs ?? 25);
      }
    }
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async send(batch: Batch, arrivedAt: Map<string, number>): Promise<void> {
    this.stats.sent += batch.items.length;
    const sentAt = this.deps.clock.now();
    for (const i of batch.items) this.stats.intentToWire.push(sentAt - (arrivedAt.get(i.intentId) ?? sentAt));
    try {
      if (batch.kind === 'place') {
        for (const r of await this.deps.gateway.place(batch as Batch<PlaceIntent>)) await this.onPlaced(r);
      } else {
        for (const r of await this.deps.gateway.cancel(batch as Batch<CancelIntent>)) this.onCanceled(r);
      }
    } catch (err) {
      this.deps.log.error({ err }, 'dispatch failed');
    }
  }

  private async onPlaced({ intent, outcome }: PlaceResult): Promise<void> {
    const now = this.deps.clock.now();
    const order = this.deps.journal.order(intent.clientOrderId) ?? pendingOrder(intent, now);
    let next: Order;
    switch (outcome.kind) {
      case 'accepted':
        this.stats.accepted++;
        next = withStatus(order, outcome.status === 'pending' ? 'open' : outcome.status, now, outcome.venueOrderId);
        this.deps.journal.updateOrder(next, 'acknowledged');
        if (this.cancelAfterAck.delete(intent.clientOrderId)) {
          this.enqueue([{ kind: 'cancel', intentId: `${intent.clientOrderId}:cancel`, strategyId: intent.strategyId, market: intent.market, symbol: intent.symbol, clientOrderId: intent.clientOrderId, venueOrderId: outcome.venueOrderId }]);
        }
        break;
      case 'unknown':
        this.stats.unknown++;
        next = withStatus(order, 'unknown', now);
        this.deps.journal.updateOrder(next, outcome.error.message);
        this.deps.log.warn({ clientOrderId: intent.clientOrderId, reason: outcome.error.message }, 'order outcome unknown: the reconciler will settle it');
        break;
      case 'rejected':
      case 'not_sent':
        this.stats.rejected++;
        next = withStatus(order, 'rejected', now);
        this.deps.journal.updateOrder(next, outcome.error.message);
        this.deps.log.warn({ clientOrderId: intent.clientOrderId, outcome: outcome.kind, reason: outcome.error.message }, 'order not placed');
        if (outcome.error instanceof BannedError) this.deps.journal.setBanUntil(outcome.error.untilMs);
        break;
    }
    await this.notify(next);
  }

  private onCanceled({ intent, outcome }: CancelResult): void {
    if (outcome.kind === 'accepted' || outcome.kind === 'gone') return; // the reconciler reports the final state
    this.deps.log.warn({ clientOrderId: intent.clientOrderId, outcome: outcome.kind, reason: outcome.error.message }, 'cancel not confirmed');
    if (outcome.error instanceof BannedError) this.deps.journal.setBanUntil(outcome.error.untilMs);
  }

  // ---------- venue state -> orders, fills, positions ----------

  /** One reconcile pass over every active symbol. */
  async reconcile(): Promise<void> {
    for (const { market, symbol } of this.activeSymbols()) {
      try {
        await this.reconcileSymbol(market, symbol);
      } catch (err) {
        this.deps.log.warn({ err: errText(err), market, symbol }, 'reconcile failed; will retry');
      }
    }
  }

  private async reconcileSymbol(market: Market, symbol: string): Promise<void> {
    const { executor, journal, clock } = this.deps;
    const cursorKey = `trades:${market}:${symbol}`;
    const fromId = journal.cursor(cursorKey);
    const venueOpen =
      market === 'spot' ? await executor.call('spot.openOrders', { symbol }) : await executor.call('futures.openOrders', { contractName: symbol });
    const trades =
      market === 'spot'
        ? await executor.call('spot.myTrades', { symbol, fromId, limit: 1000 })
        : await executor.call('futures.myTrades', { contractName: symbol, fromId, limit: 1000 });
    const fresh = fromId ? trades.filter((t) => compareIds(t.tradeId, fromId) > 0) : trades;
    const ours = journal.orders({ openOnly: true }).filter((o) => o.market === market && o.symbol === symbol);
    const lookup = (id: string) => journal.ordersByVenueId(id).find((o) => o.market === market && o.symbol === symbol);
    const diff = diffVenue({ market, symbol, ours, venueOpen, trades: fresh, now: clock.now(), lookup });
    for (const c of diff.changes) {
      journal.updateOrder(c.order, c.reason);
      await this.notify(c.order);
    }
    for (const fill of diff.fills) await this.applyFill(fill);
    if (diff.cursor) journal.setCursor(cursorKey, diff.cursor);
    // Orders our fills already show as filled need no query; the rest share a small query
    // budget per pass, so order queries never crowd out the other endpoints.
    const toQuery = diff.closedOnVenue.filter((o) => !FINAL_STATUSES.has(journal.order(o.clientOrderId)?.status ?? o.status));
    for (const o of toQuery.slice(0, QUERIES_PER_PASS)) await this.settleClosed(journal.order(o.clientOrderId) ?? o);
    for (const o of diff.unresolved.slice(0, QUERIES_PER_PASS)) await this.resolveUnknown(o);
  }

  private async applyFill(fill: Fill): Promise<void> {
    const { journal, positions, clock } = this.deps;
    if (!journal.recordFill(fill)) return;
    if (!positions.apply(fill)) return;
    this.stats.fills++;
    const order = journal.ordersByVenueId(fill.venueOrderId).find((o) => o.market === fill.market && o.symbol === fill.symbol);
    if (!order) return;
    // A spot market buy's volume is a quote amount, so its fills cannot tell when it is done.
    const quoteSized = order.market === 'spot' && order.type === 'MARKET' && order.side === 'BUY';
    if (!FINAL_STATUSES.has(order.status) && !quoteSized) {
      const executedVolume = dec.add(order.executedVolume, fill.volume);
      const status = dec.gte(executedVolume, order.volume) ? 'filled' : 'partially_filled';
      const next = { ...order, executedVolume, status, updatedAt: clock.now() } as Order;
      journal.updateOrder(next, `fill ${fill.tradeId}`);
      await this.notify(next);
    }
    const host = this.hosts.find((h) => h.id === order.strategyId);
    if (host) await this.handle(host, await host.fill(fill));
  }

  /** An order the venue no longer lists as open: ask for its final state. */
  private async settleClosed(order: Order): Promise<void> {
    const venue =
      order.market === 'spot'
        ? await this.deps.executor.call('spot.queryOrder', { symbol: order.symbol, orderId: order.venueOrderId })
        : await this.deps.executor.call('futures.queryOrder', { contractName: order.symbol, orderId: order.venueOrderId });
    const next = mergeVenueOrder(order, venue, this.deps.clock.now());
    if (next.status !== order.status || !dec.eq(next.executedVolume, order.executedVolume)) {
      this.deps.journal.updateOrder(next, 'venue order query');
      await this.notify(next);
    }
  }

  /** An order whose placement answer was lost: look it up by its client order id. */
  private async resolveUnknown(order: Order): Promise<void> {
    try {
      const venue =
        order.market === 'spot'
          ? await this.deps.executor.call('spot.queryOrder', { symbol: order.symbol, newClientOrderId: order.clientOrderId })
          : await this.deps.executor.call('futures.queryOrder', { contractName: order.symbol, clientOrderId: order.clientOrderId });
      const next = mergeVenueOrder(order, venue, this.deps.clock.now());
      this.deps.journal.updateOrder(next, 'found by client order id');
      await this.notify(next);
    } catch (err) {
      if (!(err instanceof UnknownOrderError)) throw err;
      // The venue never took it. It is final for us; the strategy decides whether to try again.
      const next = withStatus(order, 'rejected', this.deps.clock.now());
      this.deps.journal.updateOrder(next, 'never reached the venue');
      await this.notify(next);
    }
  }

  private async notify(order: Order): Promise<void> {
    const host = this.hosts.find((h) => h.id === order.strategyId);
    if (host) await this.handle(host, await host.orderUpdate(order));
  }

  async refreshAccount(): Promise<void> {
    if (!this.hosts.some((h) => h.setup.market === 'spot')) return;
    try {
      const { balances } = await this.deps.executor.call('spot.account', {});
      this.balances = new Map(balances.map((b) => [b.asset, b]));
    } catch (err) {
      this.deps.log.warn({ err: errText(err) }, 'account refresh failed; keeping the last balances');
    }
  }

  // ---------- market data ----------

  private feeds(): Feed[] {
    return mergeFeeds(this.hosts.filter((h) => h.enabled).flatMap((h) => h.setup.symbols.flatMap((symbol) => h.subscriptions.map((subscription) => ({ market: h.setup.market, symbol, subscription })))));
  }

  async pollMarketData(): Promise<void> {
    for (const feed of this.feeds()) {
      let event: MarketEvent;
      try {
        event = await pollFeed(this.deps.executor, feed);
      } catch (err) {
        this.deps.log.warn({ err: errText(err), symbol: feed.symbol, kind: feed.subscription.kind }, 'market data poll failed');
        continue;
      }
      this.observePrice(feed.market, event);
      for (const h of this.hosts) {
        if (h.setup.market !== feed.market || !h.setup.symbols.includes(feed.symbol)) continue;
        if (!h.subscriptions.some((s) => s.kind === feed.subscription.kind)) continue;
        await this.handle(h, await h.marketData(event));
      }
    }
  }

  private observePrice(market: Market, e: MarketEvent): void {
    const k = key(market, e.symbol);
    if (e.kind === 'ticker') this.lastPrices.set(k, e.ticker.last);
    else if (e.kind === 'trades' && e.trades.length > 0) this.lastPrices.set(k, [...e.trades].sort((a, b) => a.time - b.time).at(-1)!.price);
    else if (e.kind === 'klines' && e.klines.length > 0) this.lastPrices.set(k, [...e.klines].sort((a, b) => a.openTime - b.openTime).at(-1)!.close);
    else if (e.kind === 'depth' && e.depth.bids[0] && e.depth.asks[0] && !this.lastPrices.has(k)) {
      this.lastPrices.set(k, dec.div(dec.add(e.depth.bids[0][0], e.depth.asks[0][0]), '2' as Decimal));
    }
  }

  // ---------- views ----------

  private view(): EngineView {
    return {
      position: (market, symbol) => this.deps.positions.position(market, symbol),
      openOrders: (strategyId, symbol) => this.deps.journal.orders({ openOnly: true, strategyId }).filter((o) => !symbol || o.symbol === symbol),
      balance: (asset) => this.balances.get(asset) ?? { asset, free: ZERO, locked: ZERO },
      lastPrice: (market, symbol) => this.lastPrices.get(key(market, symbol)),
      instrument: (market, symbol) => this.instruments.get(key(market, symbol)),
    };
  }

  riskInputs(): RiskInputs {
    return {
      positions: new Map(this.deps.positions.snapshot().map((p) => [key(p.market, p.symbol), p.quantity])),
      openOrders: this.deps.journal.orders({ openOnly: true }),
      balances: new Map([...this.balances.values()].map((b) => [b.asset, b.free])),
      lastPrices: this.lastPrices,
      instruments: this.instruments,
    };
  }

  // ---------- plumbing ----------

  private every(periodMs: number, fn: () => Promise<void>): void {
    this.loops.push(
      (async () => {
        while (this.running) {
          try {
            await fn();
          } catch (err) {
            this.deps.log.error({ err: errText(err) }, 'engine loop failed; continuing');
          }
          if (!this.running) break;
          await this.deps.clock.sleep(periodMs);
        }
      })(),
    );
  }

  private readonly reported = new Set<string>();
  private reportIfDisabled(h: StrategyHost): void {
    if (h.enabled || this.reported.has(h.id)) return;
    this.reported.add(h.id);
    this.deps.log.error({ strategy: h.id, reason: h.disabledBy?.message }, 'strategy disabled');
  }
}

function pluginLogger(log: Logger) {
  return {
    debug: (msg: string, fields?: Record<string, unknown>) => log.debug(fields ?? {}, msg),
    info: (msg: string, fields?: Record<string, unknown>) => log.info(fields ?? {}, msg),
    warn: (msg: string, fields?: Record<string, unknown>) => log.warn(fields ?? {}, msg),
    error: (msg: string, fields?: Record<string, unknown>) => log.error(fields ?? {}, msg),
  };
}

function describe(i: OrderIntent): string {
  return i.kind === 'place'
    ? `${i.clientOrderId} ${i.side} ${i.type} ${i.volume} ${i.symbol}${i.price ? ` @ ${i.price}` : ''}`
    : `cancel ${i.clientOrderId}`;
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

