// The engine: strategies -> risk -> batcher -> gateway, and the reconciler feeding fills back.
// Live, paper and backtest run this same code; only the transport and the clock differ.
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { BannedError } from '../core/errors.js';
import type { SymbolInfo } from '../core/market.js';
import type { AccountReader, Journal, MarketReader, Pacer } from '../core/ports.js';
import { FINAL_STATUSES, type Batch, type CancelIntent, type Fill, type Market, type Order, type OrderIntent, type PlaceIntent } from '../core/types.js';
import type { ReconcileConfig } from '../config/index.js';
import type { EndpointId } from '../exchange/endpoints.js';
import { ORDER_ENDPOINTS, type Executor, type OrderGateway, type PlaceResult, type CancelResult } from '../executor/index.js';
import { groupKey, VENUE_BATCH_MAX } from '../batcher/index.js';
import type { PositionBook } from '../positions/index.js';
import type { RiskGate, RiskInputs, RiskRejection } from '../risk/index.js';
import type { MarketEvent, MarketSubscription } from '../strategy/api.js';
import { StrategyHost, type EngineView, type HostOutput, type LoadedStrategy } from '../strategy/index.js';
import { mergeFeeds, pollFeed, type Feed } from './market-data.js';
import { pendingOrder, withStatus } from './orders.js';
import { describeDrift, type DriftLine } from '../reconciler/drift.js';
import { Reconciler } from '../reconciler/poller.js';
import type { ClientOrderId } from '../core/ids.js';

export interface Dispatcher {
  /** Chooses what to send now given free capacity; the rest waits. */
  plan(batches: readonly Batch[], free: (endpoint: EndpointId) => number): { send: Batch[]; wait: OrderIntent[] };
}

export interface EngineSettings {
  marketDataEveryMs: number;
  reconcileEveryMs: number;
  summaryEveryMs: number;
  shutdown: { queued: 'flush' | 'drop'; cancelOpenOrders: boolean };
  /** Poll depth, trades and ticker of every active symbol (a recording then holds a market a backtest can replay). */
  recordMarketData?: boolean;
  /** An intent unsent after this long is dropped rather than sent stale. */
  maxQueueMs: number;
  reconcile: ReconcileConfig;
  /** How long a backlog waits before the dispatcher looks at capacity again. */
  dispatchRetryMs?: number;
}

export interface EngineDeps {
  executor: Executor;
  gateway: OrderGateway;
  /** The account and public market data of each market. */
  readers: Readonly<Record<Market, AccountReader>>;
  marketData: Readonly<Record<Market, MarketReader>>;
  /** Venue clock minus ours, and how far off that estimate may be (venue times are on its clock). */
  venueClock: { offsetMs(): number; errorMs(): number };
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
  /** Instruments by `market:symbol`, filled by prepare(); shared with the position book's quote-asset rule. */
  instruments: Map<string, SymbolInfo>;
  /** Operator notifications (ban, halt, drift, a disabled plugin); the log has them too. */
  alert?: (kind: AlertKind, message: string, details: Record<string, unknown>) => void;
}

export type AlertKind = 'ban' | 'halt' | 'drift' | 'plugin_disabled';

export interface EngineStats {
  intents: number;
  sent: number;
  accepted: number;
  rejected: number;
  unknown: number;
  fills: number;
  riskRejections: number;
  /** Intents dropped unsent after engine.maxQueueMs. */
  expired: number;
  /** ms from an intent's arrival to its request leaving, per sent intent (for latency figures). */
  intentToWire: number[];
}

const key = (market: Market, symbol: string) => `${market}:${symbol}`;

/** An intent waiting for capacity; `group` is its batcher group (market, symbol, kind). */
interface Queued {
  intent: OrderIntent;
  at: number;
  group: string;
}

const queued = (intent: OrderIntent, at: number): Queued => ({ intent, at, group: groupKey(intent) });

/** The first `most` of each group, in queue order, and the rest. */
function headOfGroups(queue: readonly Queued[], most: number): { head: Queued[]; tail: Queued[] } {
  if (most <= 0) return { head: [], tail: [...queue] };
  const taken = new Map<string, number>();
  const head: Queued[] = [];
  const tail: Queued[] = [];
  for (const q of queue) {
    const n = taken.get(q.group) ?? 0;
    if (n < most) {
      taken.set(q.group, n + 1);
      head.push(q);
    } else tail.push(q);
  }
  return { head, tail };
}

/** How long stop() waits for the periodic runs in progress. */
const STOP_WAITS_FOR_RUNS_MS = 10_000;
/** Reconcile passes at shutdown are this far apart (FINAL_PASSES of them is the slack on the stop's bound). */
const FINAL_PASSES = 8;
const FINAL_PASS_GAP_MS = 300;

/** Sequences reserved per journal commit (see nextSequence). */
const SEQUENCE_BLOCK = 16;

/** What the engine announces, for the ops endpoint and for tests that wait on events, not time. */
export interface EngineEvents {
  reconciled: [];
  order: [Order];
  fill: [Fill];
}

export class Engine {
  readonly events = new EventEmitter<EngineEvents>();
  readonly hosts: StrategyHost[];
  readonly stats: EngineStats = { intents: 0, sent: 0, accepted: 0, rejected: 0, unknown: 0, fills: 0, riskRejections: 0, expired: 0, intentToWire: [] };
  readonly reconciler: Reconciler;
  /** The account of each market, as the venue shows it. */
  readonly readers: EngineDeps['readers'];
  private readonly lastPrices = new Map<string, Decimal>();
  /**
   * Balance promised to accepted spot places that the last account read may not show yet
   * (queued, in flight, or acknowledged after that read): risk counts it as spent.
   */
  private readonly holds = new Map<string, { asset: string; amount: Decimal; settledAt?: number }>();
  /** True once prepare() has reconciled with the venue (health reports ready from then on). */
  ready = false;
  private queue: Queued[] = [];
  /** Reserved client-order sequences not handed out yet, per strategy: [next, end). */
  private readonly sequences = new Map<string, { next: number; end: number }>();
  /** Cancels asked for orders without a venue id yet (in flight, or whose answer was lost): sent once the id is known. */
  private readonly cancelWanted = new Set<string>();
  /** Places that wait for the order they replace to be final (a futures close: the venue holds its volume until then). */
  private readonly held = new Map<string, PlaceIntent[]>();
  private readonly inFlight = new Set<Promise<void>>();
  /** The periodic loops' runs in progress (a tick, a reconcile pass): stop() lets them end first. */
  private readonly working = new Set<Promise<void>>();
  private dispatching = false;
  private running = false;
  /** Set by plan(): verdicts are collected instead of journaled and sent. */
  private planSink: ((accepted: OrderIntent[], rejected: RiskRejection[]) => void) | undefined;

  constructor(private readonly deps: EngineDeps) {
    this.readers = deps.readers;
    const view = this.view();
    this.hosts = deps.strategies.map(
      (s) =>
        new StrategyHost({ id: s.entry.id, market: s.entry.market, symbols: s.entry.symbols, everyMs: s.entry.everyMs }, s.definition, s.params, {
          view,
          now: () => deps.clock.now(),
          log: pluginLogger(deps.log.child({ strategy: s.entry.id })),
          nextSequence: () => this.nextSequence(s.entry.id),
        }),
    );
    for (const h of this.hosts) this.reportIfDisabled(h);
    this.reconciler = new Reconciler({
      readers: deps.readers,
      journal: deps.journal,
      positions: deps.positions,
      clock: deps.clock,
      venueClock: () => ({ offsetMs: deps.venueClock.offsetMs(), errorMs: deps.venueClock.errorMs() }),
      log: deps.log,
      instruments: deps.instruments,
      settings: deps.settings.reconcile,
      strategyIds: this.hosts.map((h) => h.id),
      onOrder: (order) => this.notify(order),
      onFill: async (fill, order) => this.onFill(fill, order),
      cancelForeign: (v, market) =>
        this.enqueue([{ kind: 'cancel', intentId: `foreign:${v.orderId}`, strategyId: 'foreign', market, symbol: v.symbol, clientOrderId: (v.clientOrderId ?? `venue-${v.orderId}`) as ClientOrderId, venueOrderId: v.orderId }]),
      onDrift: (verdict, lines) => this.onDrift(verdict, lines),
    });
  }

  /** Symbols any strategy trades, per market. */
  activeSymbols(): { market: Market; symbol: string }[] {
    const seen = new Map<string, { market: Market; symbol: string }>();
    for (const h of this.hosts) for (const symbol of h.setup.symbols) seen.set(key(h.setup.market, symbol), { market: h.setup.market, symbol });
    return [...seen.values()];
  }

  private markets(): Set<Market> {
    return new Set(this.hosts.map((h) => h.setup.market));
  }

  /**
   * Loads instruments, rebuilds positions from the journal's fills, reads the accounts and
   * reconciles with the venue; no strategy has run yet.
   */
  async prepare(): Promise<void> {
    await this.loadInstruments();
    this.positionsFromJournal();
    this.settleInterrupted();
    await this.reconcile({ catchUp: true });
    this.ready = true;
  }

  /**
   * Orders a previous run journaled but never heard back about (it stopped, or was killed,
   * between journaling and the answer) may be on the venue: they are `unknown`, which the
   * reconciler settles from what the venue shows. Nothing of this run is in flight yet.
   */
  private settleInterrupted(): void {
    for (const o of this.deps.journal.orders({ openOnly: true })) {
      if (o.status !== 'pending') continue;
      this.deps.journal.updateOrder(withStatus(o, 'unknown', this.deps.clock.now()), 'the previous run stopped before the venue answered');
    }
  }

  /** The position book (read it; only fills change it). */
  get positions(): PositionBook {
    return this.deps.positions;
  }

  /** Positions derive from fills only; call it once instruments are known, so fees land in the right asset. */
  positionsFromJournal(): PositionBook {
    for (const fill of this.deps.journal.fills()) this.deps.positions.apply(fill);
    return this.deps.positions;
  }

  /** The venue's instruments for every market a strategy trades. */
  async loadInstruments(): Promise<void> {
    const { instruments } = this.deps;
    const markets = this.markets();
    if (markets.has('spot')) {
      const listing = await this.deps.executor.call('spot.symbols', {});
      for (const s of listing.items) instruments.set(key('spot', s.symbol), s);
      for (const bad of listing.skipped) this.deps.log.warn({ market: 'spot', symbol: bad.key, problem: bad.problem }, 'an instrument the venue listed could not be read; it is left out');
    }
    if (markets.has('futures')) {
      const listing = await this.deps.executor.call('futures.contracts', {});
      for (const bad of listing.skipped) this.deps.log.warn({ market: 'futures', symbol: bad.key, problem: bad.problem }, 'an instrument the venue listed could not be read; it is left out');
      for (const c of listing.items) {
        const step = c.minOrderVolume.includes('.') ? c.minOrderVolume.split('.')[1]!.length : 0;
        instruments.set(key('futures', c.symbol), {
          symbol: c.symbol,
          baseAsset: c.symbol,
          // The contract list names no margin coin: take it from the name (E-BTC-USDT).
          quoteAsset: /-([A-Z0-9]+)$/.exec(c.symbol)?.[1] ?? 'USDT',
          pricePrecision: c.pricePrecision,
          quantityPrecision: step,
          limitVolumeMin: c.minOrderVolume,
          limitPriceMin: ZERO,
          multiplier: c.multiplier,
        });
        // Futures quantities are contracts: positions value them at the contract size. An odd
        // listing (a size of 0, or one that changed under journaled fills) must not stop start-up.
        try {
          this.deps.positions.setMultiplier('futures', c.symbol, c.multiplier);
        } catch (err) {
          this.deps.log.warn({ symbol: c.symbol, reason: err instanceof Error ? err.message : String(err) }, 'contract size not taken; its PnL is counted per contract');
        }
      }
    }
    for (const { market, symbol } of this.activeSymbols()) {
      if (!instruments.has(key(market, symbol))) this.deps.log.warn({ market, symbol }, 'the venue does not list this symbol; its orders will be rejected');
    }
  }

  async start(): Promise<void> {
    this.running = true;
    await this.prepare();
    for (const h of this.hosts) await this.handle(h, await h.start());
    const { settings } = this.deps;
    for (const h of this.hosts) this.every(h.setup.everyMs, async () => this.handle(h, await h.tick()));
    this.every(settings.marketDataEveryMs, () => this.pollMarketData());
    const usage = this.deps.pacer.usage();
    const reads = [...this.markets()].flatMap((m) => [`${m}.openOrders`, `${m}.myTrades`]);
    const limit = Math.min(...reads.map((e) => usage[e]?.limit ?? 20));
    const reconcileEveryMs = reconcileInterval(settings.reconcileEveryMs, this.activeSymbols().length, limit, settings.reconcile.budgetShare);
    if (reconcileEveryMs > settings.reconcileEveryMs) {
      this.deps.log.info({ reconcileEveryMs, budgetShare: settings.reconcile.budgetShare }, 'reconcile interval stretched to keep within its share of the request budget');
    }
    this.every(reconcileEveryMs, () => this.reconcile());
    // The daemon logs the first summary with its "running" line.
    this.every(settings.summaryEveryMs, async () => this.deps.log.info(this.summary(), 'summary'), true);
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
    // A tick still running ends before its strategy's onStop (or it could place after it), and a
    // reconcile pass before the last ones. Bounded: a run stuck behind a ban must not hold the
    // stop. Short sleeps, so no long timer outlives the wait.
    for (let waited = 0; this.working.size > 0 && waited < STOP_WAITS_FOR_RUNS_MS; waited += 100) {
      await Promise.race([Promise.all(this.working), this.deps.clock.sleep(100)]);
    }
    for (const h of this.hosts) await this.handle(h, await h.stop());
    const held = [...this.held.values()].flat();
    this.held.clear();
    await this.dropQueued(held, 'not sent: the daemon stopped before the order it replaces ended');
    if (this.deps.settings.shutdown.queued === 'drop') {
      const dropped = this.queue;
      this.queue = [];
      await this.dropQueued(dropped.map((q) => q.intent), 'dropped at shutdown');
    }
    await this.drain();
    // Only our strategies' orders: an adopted order belongs to whoever placed it by hand.
    const ours = new Set(this.hosts.map((h) => h.id));
    const ourOpen = () => this.deps.journal.orders({ openOnly: true }).filter((o) => ours.has(o.strategyId));
    const cancelling = this.deps.settings.shutdown.cancelOpenOrders;
    // An order without a venue id yet (its answer lost) gets its cancel once a pass finds it.
    const cancelOurs = async () => {
      this.enqueue(ourOpen().map((o): CancelIntent => ({ kind: 'cancel', intentId: `${o.clientOrderId}:shutdown`, strategyId: o.strategyId, market: o.market, symbol: o.symbol, clientOrderId: o.clientOrderId })));
      await this.drain();
    };
    if (cancelling) await cancelOurs();
    // Last passes, so the journal agrees with the venue when the daemon exits rather than at the
    // next start: a venue settles a cancel a moment after accepting it, an order whose answer
    // was lost shows (or is given up, reconcile.unknownTimeoutMs) only on a pass, and fills may
    // show up to reconcile.drift.graceMs after the venue booked them. So they go on until no
    // order of ours is unsettled (nor open, when cancelling) and, when cancelling, until the
    // grace has passed since then: every fill of the orders that ended is journaled. Each pass
    // reads everything (all open orders, trades to the end). Bounded; a venue that cannot answer
    // leaves the rest to the next start.
    const { graceMs } = this.deps.settings.reconcile.drift;
    const startedAt = this.deps.clock.now();
    // A lost answer may take reconcile.unknownTimeoutMs to settle; a cancel the venue accepted, a moment.
    const deadline = () => startedAt + (ourOpen().some((o) => o.status === 'unknown' || o.status === 'pending') ? this.deps.settings.reconcile.unknownTimeoutMs : 0) + graceMs + FINAL_PASSES * FINAL_PASS_GAP_MS;
    // Resting orders may stay when not cancelling; any other open status is still to settle.
    const resting = (o: Order) => !cancelling && (o.status === 'open' || o.status === 'partially_filled');
    const unsettled = () => ourOpen().some((o) => !resting(o));
    let settledAt: number | undefined;
    for (let pass = 0; ; pass++) {
      if (pass > 0) await this.deps.clock.sleep(FINAL_PASS_GAP_MS);
      try {
        await this.reconcile({ final: true });
      } catch (err) {
        this.deps.log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'final reconcile failed; the next start settles it');
        break;
      }
      const now = this.deps.clock.now();
      if (unsettled()) settledAt = undefined;
      else settledAt ??= now;
      const done = settledAt !== undefined && (!cancelling || now >= settledAt + graceMs);
      if (done) break;
      if (now >= deadline()) {
        this.deps.log.warn({ unsettled: ourOpen().filter((o) => !resting(o)).length }, 'stopping with orders still unsettled; the next start settles them');
        break;
      }
      if (cancelling && ourOpen().length > 0) await cancelOurs();
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
      // Keyed by market too: a spot and a futures symbol may share a name.
      positions: Object.fromEntries(positions.map((p) => [key(p.market, p.symbol), p.quantity])),
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
    const { accepted, rejected, holds } = this.deps.risk.check(out.intents, this.riskInputs(), now);
    if (this.planSink) return this.planSink(accepted, rejected);
    for (const h of holds) this.holds.set(h.clientOrderId, { asset: h.asset, amount: h.amount });
    for (const r of rejected) {
      this.stats.riskRejections++;
      this.deps.log.warn({ strategy: r.intent.strategyId, clientOrderId: r.intent.clientOrderId, rule: r.rule, reason: r.reason }, 'intent rejected');
    }
    const refused = rejected.flatMap((r) => (r.intent.kind === 'place' ? [{ intent: r.intent, order: withStatus(pendingOrder(r.intent, now), 'rejected', now) }] : []));
    // One commit for the whole output (a tick may place hundreds), still before any is sent.
    this.deps.journal.transaction(() => {
      for (const intent of accepted) if (intent.kind === 'place') this.deps.journal.recordIntent(intent, pendingOrder(intent, now));
      for (const { intent, order } of refused) this.deps.journal.recordIntent(intent, order);
    });
    const later = accepted.filter((i): i is PlaceIntent & { after: ClientOrderId } => i.kind === 'place' && i.after !== undefined);
    this.enqueue(accepted.filter((i) => !later.includes(i as PlaceIntent & { after: ClientOrderId })));
    for (const i of later) this.hold(i);
    // Rejections are reported to their strategy after the accepted intents are queued.
    for (const { order } of refused) await this.notify(order);
  }

  private enqueue(intents: readonly OrderIntent[]): void {
    const at = this.deps.clock.now();
    const withdrawn: PlaceIntent[] = [];
    for (const intent of intents) {
      if (intent.kind === 'place') {
        this.queue.push(queued(intent, at));
        continue;
      }
      const target = this.deps.journal.order(intent.clientOrderId);
      // Already ended, or already being cancelled (a second cancel earns -1145): nothing to send.
      if (target && (FINAL_STATUSES.has(target.status) || target.status === 'pending_cancel')) continue;
      const waiting = this.queue.find((q) => q.intent.kind === 'place' && q.intent.clientOrderId === intent.clientOrderId);
      if (waiting) {
        // Never sent: withdrawing it is the cancel.
        this.queue = this.queue.filter((q) => q !== waiting);
        withdrawn.push(waiting.intent as PlaceIntent);
        continue;
      }
      const venueOrderId = intent.venueOrderId ?? target?.venueOrderId;
      if (venueOrderId) this.queue.push(queued({ ...intent, venueOrderId }, at));
      else if (target) {
        if (this.cancelWanted.has(intent.clientOrderId)) continue;
        this.cancelWanted.add(intent.clientOrderId);
        this.deps.log.info({ clientOrderId: intent.clientOrderId, status: target.status }, 'cancel waits for the venue id of its order (in flight, or its answer was lost)');
      } else this.deps.log.warn({ clientOrderId: intent.clientOrderId }, 'cancel skipped: no such order');
    }
    if (withdrawn.length > 0) void this.dropQueued(withdrawn, 'cancelled before it was sent');
    this.kick();
  }

  /** A place that waits for the order it replaces to end; sent (or dropped, if that filled) when it has. */
  private hold(intent: PlaceIntent & { after: ClientOrderId }): void {
    const target = this.deps.journal.order(intent.after);
    if (!target || FINAL_STATUSES.has(target.status)) {
      this.release(intent.after, target?.status, [intent]);
      return;
    }
    this.held.set(intent.after, [...(this.held.get(intent.after) ?? []), intent]);
  }

  private release(after: string, status: Order['status'] | undefined, intents: PlaceIntent[]): void {
    if (status === 'filled') void this.dropQueued(intents, `not sent: the order it replaces (${after}) filled`);
    else this.enqueue(intents);
  }

  /** Intents that will never be sent: their orders are final (one commit) and their strategies hear so. */
  private async dropQueued(intents: readonly OrderIntent[], reason: string | ((intent: PlaceIntent) => string)): Promise<void> {
    if (intents.length === 0) return;
    const now = this.deps.clock.now();
    const dropped = this.deps.journal.transaction(() =>
      intents.flatMap((intent) => {
        if (intent.kind !== 'place') return [];
        this.holds.delete(intent.clientOrderId);
        const order = this.deps.journal.order(intent.clientOrderId);
        if (!order || FINAL_STATUSES.has(order.status)) return [];
        const next = withStatus(order, 'canceled', now);
        this.deps.journal.updateOrder(next, typeof reason === 'string' ? reason : reason(intent));
        return [next];
      }),
    );
    for (const order of dropped) await this.notify(order);
  }

  /** Drops intents that waited longer than maxQueueMs: the venue's limits are full, and a stale order is worse than none. */
  private async expireQueued(): Promise<void> {
    const { clock, settings, log } = this.deps;
    const now = clock.now();
    // Runs every dispatch round: look before building anything.
    if (!this.queue.some((q) => now - q.at > settings.maxQueueMs)) return;
    const expired = this.queue.filter((q) => now - q.at > settings.maxQueueMs);
    this.queue = this.queue.filter((q) => now - q.at <= settings.maxQueueMs);
    this.stats.expired += expired.length;
    log.warn({ dropped: expired.length, maxQueueMs: settings.maxQueueMs }, 'intents not sent in time were dropped (engine.maxQueueMs): the venue limits are full');
    await this.dropQueued(expired.map((q) => q.intent), `not sent within ${settings.maxQueueMs} ms (engine.maxQueueMs)`);
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
      await this.expireQueued();
      const usage = this.deps.pacer.usage();
      const free = (e: EndpointId) => {
        const u = usage[e];
        return u ? Math.max(0, u.limit - u.inWindow - u.queued) : 0;
      };
      // A round sends at most what the free order slots carry, so the plan only needs that many
      // of each group's oldest intents (it sends a prefix of each group): a backlog of hundreds
      // is not re-batched every time one slot comes back.
      const { head, tail } = headOfGroups(this.queue, ORDER_ENDPOINTS.reduce((n, e) => n + free(e), 0) * VENUE_BATCH_MAX);
      const arrivedAt = new Map(head.map((q) => [q.intent.intentId, q.at]));
      let send: Batch[] = [];
      if (head.length > 0) {
        const plan = this.deps.dispatcher.plan(this.deps.toBatches(head.map((q) => q.intent)), free);
        send = plan.send;
        this.queue = [...plan.wait.map((intent) => queued(intent, arrivedAt.get(intent.intentId) ?? this.deps.clock.now())), ...tail];
      }
      for (const batch of send) this.track(this.send(batch, arrivedAt));
      if (send.length === 0) {
        if (this.deps.pacer.pausedUntil() > this.deps.clock.now()) {
          const dropped = this.queue;
          this.queue = [];
          await this.dropQueued(dropped.map((q) => q.intent), 'not sent: trading is paused by a venue ban');
          return;
        }
        await this.capacity();
      }
    }
  }

  /** Waits until the pacer gives a slot back (where it can say so), at most dispatchRetryMs. */
  private capacity(): Promise<void> {
    const retry = this.deps.clock.sleep(this.deps.settings.dispatchRetryMs ?? 25);
    const released = (this.deps.pacer as Pacer & { released?(): Promise<void> }).released?.();
    return released ? Promise.race([released, retry]) : retry;
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async send(planned: Batch, arrivedAt: Map<string, number>): Promise<void> {
    let batch = planned;
    try {
      // The kill switch as it is now, not as it was when the intents were accepted (judged only
      // when it is on: the inputs cost a look at every open order).
      if (batch.kind === 'place' && this.deps.risk.killSwitch() !== 'off') {
        const places = batch.items as readonly PlaceIntent[];
        const { allowed, refused } = this.deps.risk.atSend(places, this.riskInputs(new Set(places.map((i) => i.clientOrderId))));
        if (refused.length > 0) {
          const why = new Map(refused.map((r) => [r.intent, r.reason]));
          this.deps.log.warn({ dropped: refused.length, killSwitch: this.deps.risk.killSwitch() }, 'queued orders not sent: the kill switch changed since they were accepted');
          await this.dropQueued(refused.map((r) => r.intent as PlaceIntent), (i) => `not sent: ${why.get(i) ?? 'kill switch'}`);
        }
        if (allowed.length === 0) return;
        batch = { ...batch, items: allowed };
      }
      this.stats.sent += batch.items.length;
      const sentAt = this.deps.clock.now();
      for (const i of batch.items) this.stats.intentToWire.push(sentAt - (arrivedAt.get(i.intentId) ?? sentAt));
      if (batch.kind === 'place') await this.onPlaced(await this.deps.gateway.place(batch as Batch<PlaceIntent>));
      else await this.onCanceled(await this.deps.gateway.cancel(batch as Batch<CancelIntent>));
    } catch (err) {
      this.deps.log.error({ err }, 'dispatch failed');
    }
  }

  /** A batch's answers: journaled in one commit, then acted on and reported one by one. */
  private async onPlaced(results: readonly PlaceResult[]): Promise<void> {
    const now = this.deps.clock.now();
    const orders = this.deps.journal.transaction(() => results.map((r) => this.journalPlaced(r, now)));
    for (const [k, { intent, outcome }] of results.entries()) {
      if (outcome.kind === 'unknown') {
        this.deps.log.warn({ clientOrderId: intent.clientOrderId, reason: outcome.error.message }, 'order outcome unknown: the reconciler will settle it');
      } else if (outcome.kind === 'rejected' || outcome.kind === 'not_sent') {
        this.deps.log.warn({ clientOrderId: intent.clientOrderId, outcome: outcome.kind, reason: outcome.error.message }, 'order not placed');
      }
      await this.notify(orders[k]!);
    }
  }

  /** The order as the venue's answer leaves it, journaled; synchronous, so answers can share a commit. */
  private journalPlaced({ intent, outcome }: PlaceResult, now: number): Order {
    // Refused orders lock nothing; the others are in the balances of the next account read.
    if (outcome.kind === 'rejected' || outcome.kind === 'not_sent') this.holds.delete(intent.clientOrderId);
    else {
      const hold = this.holds.get(intent.clientOrderId);
      if (hold) hold.settledAt = now;
    }
    const order = this.deps.journal.order(intent.clientOrderId) ?? pendingOrder(intent, now);
    let next: Order;
    switch (outcome.kind) {
      case 'accepted':
        this.stats.accepted++;
        next = withStatus(order, outcome.status === 'pending' ? 'open' : outcome.status, now, outcome.venueOrderId);
        this.deps.journal.updateOrder(next, 'acknowledged');
        break;
      case 'unknown':
        this.stats.unknown++;
        next = withStatus(order, 'unknown', now);
        this.deps.journal.updateOrder(next, outcome.error.message);
        break;
      case 'rejected':
      case 'not_sent':
        this.stats.rejected++;
        next = withStatus(order, 'rejected', now);
        this.deps.journal.updateOrder(next, outcome.error.message);
        if (outcome.error instanceof BannedError) this.deps.journal.setBanUntil(outcome.error.untilMs);
        break;
    }
    return next;
  }

  /**
   * A cancel the venue took (or answered as already ended) leaves the order pending_cancel until
   * the reconciler sees how it ended: it can still fill meanwhile, and is never cancelled twice.
   */
  private async onCanceled(results: readonly CancelResult[]): Promise<void> {
    const now = this.deps.clock.now();
    const { journal, log } = this.deps;
    const changed = journal.transaction(() =>
      results.flatMap(({ intent, outcome }) => {
        if (outcome.kind !== 'accepted' && outcome.kind !== 'gone') {
          log.warn({ clientOrderId: intent.clientOrderId, outcome: outcome.kind, reason: outcome.error.message }, 'cancel not confirmed');
          if (outcome.error instanceof BannedError) journal.setBanUntil(outcome.error.untilMs);
          return [];
        }
        const order = journal.order(intent.clientOrderId);
        if (!order || FINAL_STATUSES.has(order.status) || order.status === 'pending_cancel') return [];
        const next = withStatus(order, 'pending_cancel', now);
        journal.updateOrder(next, outcome.kind === 'accepted' ? 'cancel accepted' : 'cancel answered: already ended, or unknown to the venue');
        return [next];
      }),
    );
    for (const order of changed) await this.notify(order);
  }

  // ---------- venue state -> orders, fills, positions ----------

  /** One reconcile pass over every active symbol, then a positions checkpoint. */
  async reconcile(opts: { final?: boolean; catchUp?: boolean } = {}): Promise<void> {
    await this.reconciler.pass(this.activeSymbols(), opts);
    this.deps.journal.savePositions(this.deps.positions.snapshot());
    this.events.emit('reconciled');
  }

  private async onFill(fill: Fill, order: Order | undefined): Promise<void> {
    this.stats.fills++;
    this.events.emit('fill', fill);
    const host = order && this.hosts.find((h) => h.id === order.strategyId);
    if (host) await this.handle(host, await host.fill(fill));
  }

  /**
   * A judged drift puts drift's mode (reconcile.drift.action) in force beside the operator's:
   * the stricter of the two holds (see RiskGate). Its end takes drift's mode away again.
   */
  private onDrift(verdict: 'act' | 'clear', lines: readonly DriftLine[]): void {
    const { risk, log, settings } = this.deps;
    const before = risk.killSwitch();
    if (verdict === 'act') {
      risk.setDriftMode(settings.reconcile.drift.action);
      const mode = risk.killSwitch();
      const message = `position drift: ${lines.map(describeDrift).join('; ')}; trading is ${mode} until it is resolved`;
      log.error({ alert: 'drift', killSwitch: mode, drift: lines }, message);
      this.deps.alert?.('drift', message, { drift: lines, killSwitch: mode });
      return;
    }
    risk.setDriftMode(undefined);
    if (risk.killSwitch() !== before) log.warn({ killSwitch: risk.killSwitch() }, 'position drift resolved; kill switch restored');
  }

  private async notify(order: Order): Promise<void> {
    const id = order.clientOrderId;
    if (this.cancelWanted.has(id) && (FINAL_STATUSES.has(order.status) || order.status === 'pending_cancel' || order.venueOrderId)) {
      this.cancelWanted.delete(id);
      if (!FINAL_STATUSES.has(order.status) && order.status !== 'pending_cancel') {
        this.enqueue([{ kind: 'cancel', intentId: `${id}:cancel`, strategyId: order.strategyId, market: order.market, symbol: order.symbol, clientOrderId: order.clientOrderId, venueOrderId: order.venueOrderId }]);
      }
    }
    const held = this.held.get(id);
    if (held && FINAL_STATUSES.has(order.status)) {
      this.held.delete(id);
      this.release(id, order.status, held);
    }
    this.events.emit('order', order);
    const host = this.hosts.find((h) => h.id === order.strategyId);
    if (host) await this.handle(host, await host.orderUpdate(order));
  }

  // ---------- market data ----------

  private feeds(): Feed[] {
    const wanted: Feed[] = this.hosts.filter((h) => h.enabled).flatMap((h) => h.setup.symbols.flatMap((symbol) => h.subscriptions.map((subscription) => ({ market: h.setup.market, symbol, subscription }))));
    if (this.deps.settings.recordMarketData) {
      for (const { market, symbol } of this.activeSymbols()) {
        const kinds: MarketSubscription[] = market === 'spot' ? [{ kind: 'depth', limit: 20 }, { kind: 'trades', limit: 100 }, { kind: 'ticker' }] : [{ kind: 'depth', limit: 20 }, { kind: 'ticker' }];
        for (const subscription of kinds) wanted.push({ market, symbol, subscription });
      }
    }
    return mergeFeeds(wanted);
  }

  async pollMarketData(): Promise<void> {
    for (const feed of this.feeds()) {
      let event: MarketEvent;
      try {
        event = await pollFeed(this.deps.marketData[feed.market], feed);
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
      balance: (asset) => this.reconciler.balances.get(asset) ?? { asset, free: ZERO, locked: ZERO },
      lastPrice: (market, symbol) => this.lastPrices.get(key(market, symbol)),
      instrument: (market, symbol) => this.deps.instruments.get(key(market, symbol)),
    };
  }

  /** The venue's free balances less what accepted places hold that it may not show yet. */
  private freeBalances(): Map<string, Decimal> {
    const free = new Map([...this.reconciler.balances.values()].map((b) => [b.asset, b.free]));
    for (const [id, h] of this.holds) {
      if (h.settledAt !== undefined && h.settledAt < this.reconciler.balancesAskedAt) this.holds.delete(id);
      else free.set(h.asset, dec.sub(free.get(h.asset) ?? ZERO, h.amount));
    }
    return free;
  }

  /** What risk judges against; `leaving` are orders about to be sent, not counted as resting. */
  riskInputs(leaving?: ReadonlySet<string>): RiskInputs {
    const open = this.deps.journal.orders({ openOnly: true });
    return {
      positions: new Map(this.deps.positions.snapshot().map((p) => [key(p.market, p.symbol), p.quantity])),
      openOrders: leaving ? open.filter((o) => !leaving.has(o.clientOrderId)) : open,
      balances: this.freeBalances(),
      lastPrices: this.lastPrices,
      instruments: this.deps.instruments,
    };
  }

  // ---------- plumbing ----------

  /**
   * Client-order sequences come from blocks reserved in the journal with one commit each, not
   * one commit per order. A reserved number is never handed out again; a restart skips what
   * was left of its block, and within a run the numbers stay consecutive.
   */
  private nextSequence(strategyId: string): number {
    let block = this.sequences.get(strategyId);
    if (!block || block.next === block.end) {
      const { journal } = this.deps;
      const first = this.deps.journal.transaction(() => {
        const n = journal.nextSequence(strategyId);
        for (let k = 1; k < SEQUENCE_BLOCK; k++) journal.nextSequence(strategyId);
        return n;
      });
      block = { next: first, end: first + SEQUENCE_BLOCK };
      this.sequences.set(strategyId, block);
    }
    return block.next++;
  }

  /** Runs `fn` now and every `periodMs` after it ends, until stop(); `later` skips the first run. */
  private every(periodMs: number, fn: () => Promise<void>, later = false): void {
    void (async () => {
      if (later) await this.deps.clock.sleep(periodMs);
      while (this.running) {
        const work = fn().catch((err: unknown) => this.deps.log.error({ err: errText(err) }, 'engine loop failed; continuing'));
        this.working.add(work);
        await work;
        this.working.delete(work);
        if (!this.running) break;
        await this.deps.clock.sleep(periodMs);
      }
    })();
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


/**
 * The pass interval that keeps the reconciler's reads within `budgetShare` of their limits: each
 * pass makes at least one open-orders and one trades read per symbol.
 */
export function reconcileInterval(configuredMs: number, symbols: number, limitPer2s: number, budgetShare: number): number {
  const perWindow = Math.max(1, Math.floor(limitPer2s * budgetShare));
  return Math.max(configuredMs, Math.ceil((symbols * 2000) / perWindow));
}
