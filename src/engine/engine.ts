// The engine: a scheduler. It runs each strategy on its period and hands what it asks for to
// risk and the order pipeline, polls market data, runs the reconciler, and stops all of it in
// order. Live, paper and backtest run this same code; only the parts it is given differ.
import { EventEmitter } from 'node:events';
import { amend } from '../core/amend.js';
import { Deadlines } from '../core/deadlines.js';
import { AuthError, errorText } from '../core/errors.js';
import type { ClientOrderId } from '../core/ids.js';
import type { CancelIntent, Fill, Market, Order } from '../core/types.js';
import type { PositionBook } from '../positions/index.js';
import { reconcileInterval } from '../reconciler/budget.js';
import type { Reconciler } from '../reconciler/poller.js';
import type { RiskInputs } from '../risk/index.js';
import type { EngineView, HostOutput, StrategyHost } from '../strategy/index.js';
import { feedKey, mergeFeeds, recordingFeeds, type Feed } from './market-data.js';
import { applyDrift } from './drift-mode.js';
import { admit, refusals, riskInputs, type IntakeParts, type RuleTally } from './intake.js';
import { Loops } from './loops.js';
import { withStatus } from './orders.js';
import type { OrderPipeline } from './pipeline.js';
import { settleAtStop, type StopOutcome } from './stop.js';
import { haltOnRefusal, refusedAtStart } from './credentials.js';
import { DisabledStrategies, type DisabledStrategy } from './disabled.js';
import { StrategyLedger } from './ledger.js';
import { PositionsCheckpoint, restoreBooks } from './positions-checkpoint.js';
import { engineView, feedsOf, hears, strategyHosts, withHistory } from './strategies.js';
import { applyLeverage, StrategyLifecycle } from './lifecycle.js';
import { summarize } from './summary.js';
import { UnbookedExecutions } from './unbooked.js';
import { exitMonitor, type ExitMonitor } from './exit-monitor.js';
import { lossLimits, type LossLimits } from './loss-limit.js';
import type { EngineEvents, EngineParts } from './parts.js';

export type { AlertKind, EngineEvents, EngineParts, EngineSettings } from './parts.js';
export type { DisabledStrategy } from './disabled.js';
export type { StopOutcome } from './stop.js';

const key = (market: Market, symbol: string) => `${market}:${symbol}`;
/** Statuses whose order event carries a reason, read from the journal's history. */
const WITH_REASON = new Set(['rejected', 'canceled', 'unknown']);

export class Engine {
  readonly events = new EventEmitter<EngineEvents>();
  readonly hosts: StrategyHost[];
  readonly pipeline: OrderPipeline;
  readonly reconciler: Reconciler;
  readonly stats = { intents: 0, fills: 0, riskRejections: 0, refusedBy: {} as Record<string, RuleTally> };
  /** True once prepare() has reconciled with the venue (health reports ready from then on). */
  ready = false;
  /** From the start of stop(). */
  private stopping = false;
  /** A second signal asked the stop to end its waits. */
  private hurried = false;
  /** Every plugin handler's deadline, on the engine clock. */
  private readonly deadlines: Deadlines;
  private readonly loops: Loops;
  private readonly reported = new Set<string>();
  private readonly disabled: DisabledStrategies;
  private readonly ledger: StrategyLedger;
  private readonly unbooked = new UnbookedExecutions((market, symbol, id) => this.reconciler.filledVolume(market, symbol, id));
  /** The account's positions, checkpointed after each reconcile pass and restored at load. */
  readonly checkpoint: PositionsCheckpoint;
  private readonly lifecycle: StrategyLifecycle;
  /** Built once: an object spread per strategy output was a slow path on Node 20 and garbage the young generation could not collect. */
  private readonly intake: IntakeParts;
  /** Protective exits of the strategies that configure them (undefined: none does). */
  readonly exits: ExitMonitor | undefined;
  /** Daily loss limits of the strategies that configure them (undefined: none does). */
  readonly lossLimits: LossLimits | undefined;
  /** What strategies read of the engine (`sluice status` shows each one's own position from it). */
  readonly view: EngineView;

  constructor(private readonly parts: EngineParts) {
    this.deadlines = new Deadlines(parts.clock);
    this.loops = new Loops(parts.clock, parts.log);
    this.ledger = new StrategyLedger(parts.journal, (market, symbol) => parts.instruments.get(market, symbol));
    this.checkpoint = new PositionsCheckpoint(parts.journal, parts.positions, parts.log, this.ledger);
    // A timer that fires while the stop waits for running ticks is heard like those ticks
    // (engine.shutdown.queued decides what is sent), and after its strategy's onStop the host
    // refuses what it asks, with a reason. `sluice plan`, which never opens the pipeline, shows
    // one round without what timers add after it.
    const ms = parts.settings.handlerTimeoutMs;
    const deadline = { ms, setting: 'engine.handlerTimeoutMs', within: <T>(work: Promise<T>) => this.deadlines.within(ms, work) };
    const view = (this.view = engineView(parts, this.ledger, () => this.reconciler.holdings, this.unbooked));
    this.hosts = strategyHosts(amend(parts, { deadline }), view, async (h, out) => {
      if (this.pipeline.open || this.stopping) await this.handle(h, out);
    });
    this.exits = exitMonitor(parts, view, { hosts: this.hosts, running: () => this.running, balancesAskedAt: () => this.reconciler.holdings.balancesAskedAt, handle: (h, out) => this.handle(h, out), post: (h, run) => this.lifecycle.post(h, run) });
    this.lossLimits = lossLimits(parts, view, { hosts: this.hosts, handle: (h, out) => this.handle(h, out) });
    this.disabled = new DisabledStrategies(amend(parts, { onStrategyFailure: parts.settings.onStrategyFailure, pipeline: () => this.pipeline }));
    this.lifecycle = new StrategyLifecycle(amend(parts, { loops: this.loops, hosts: this.hosts, handle: (h: StrategyHost, out: HostOutput) => this.handle(h, out), reportOnce: (k: string, r: () => void) => this.reportOnce(k, r) }));
    for (const h of this.hosts) this.reportIfDisabled(h);
    this.pipeline = parts.pipeline({
      notify: (order) => this.notify(order),
      riskInputs: (leaving) => this.riskInputs(leaving),
      cancelFailed: (intent, reason) => this.cancelFailed(intent, reason),
    });
    const { clock, log, journal, risk, holds } = parts;
    this.intake = { clock, repeats: refusals(log, clock), journal, risk, holds, pipeline: this.pipeline, riskInputs: () => this.riskInputs(), onRejected: (r) => this.events.emit('rejected', r), stats: this.stats };
    if (this.exits || this.lossLimits) this.intake.refusal = (intent, earlier) => this.exits?.refusal(intent) ?? this.lossLimits?.refusal(intent, earlier);
    this.reconciler = parts.reconciler({
      strategyIds: this.hosts.map((h) => h.id),
      onOrder: (order) => this.notify(order),
      onBooked: (fill, order) => this.onBooked(fill, order),
      onFill: async (fill, order) => this.onFill(fill, order),
      cancelForeign: (v, market) =>
        this.pipeline.submit([{ kind: 'cancel', intentId: `foreign:${v.orderId}`, strategyId: 'foreign', market, symbol: v.symbol, clientOrderId: (v.clientOrderId ?? `venue-${v.orderId}`) as ClientOrderId, venueOrderId: v.orderId }]),
      onDrift: (verdict, lines) => applyDrift(amend(parts, { action: parts.settings.reconcile.drift.action }), verdict, lines),
    });
  }

  /** Symbols any strategy trades, per market. */
  activeSymbols(): { market: Market; symbol: string }[] {
    const seen = new Map<string, { market: Market; symbol: string }>();
    for (const h of this.hosts) for (const symbol of h.setup.symbols) seen.set(key(h.setup.market, symbol), { market: h.setup.market, symbol });
    return [...seen.values()];
  }

  markets(): Set<Market> {
    return new Set(this.hosts.map((h) => h.setup.market));
  }

  /** The position book (read it; only fills change it). */
  get positions(): PositionBook {
    return this.parts.positions;
  }

  /**
   * Loads the instruments and rebuilds positions (once instruments are known, so fees land in
   * the right asset): the journal's checkpoint of them, then the fills journaled after it
   * (positions-checkpoint.ts). With `strategiesOwn`, the same read of the fills rebuilds each
   * strategy's own books (the ledger): from their checkpoint, taken with the positions', or from
   * the first fill when it cannot be used (ledger-checkpoint.ts); the journal is streamed once.
   */
  async load(opts: { strategiesOwn?: boolean } = {}): Promise<void> {
    await this.parts.instruments.load(this.markets(), this.activeSymbols());
    restoreBooks(this.parts, this.checkpoint, opts.strategiesOwn ? this.ledger : undefined);
  }

  /** Loads, settles what the previous run left in flight, and reconciles with the venue; no strategy has run yet. */
  async prepare(opts: { untilComplete: boolean } = { untilComplete: true }): Promise<void> {
    // Each strategy's own books are restored now, while nothing runs, rather than at a plugin API
    // 2 strategy's first ask (which would hold the event loop while the journal streams), and
    // always, so every checkpoint carries them (ledger-checkpoint.ts) and the journal can be
    // pruned below it; its latest fills and orders are read at its first ask (its latest only,
    // however long the journal).
    await this.load({ strategiesOwn: true });
    await applyLeverage(this.parts);
    // Orders a previous run journaled but never heard back about may be on the venue: unknown,
    // for the reconciler to settle from what the venue shows. Nothing of this run is in flight yet.
    for (const o of this.parts.journal.orders({ openOnly: true })) {
      if (o.status === 'pending') this.parts.journal.updateOrder(withStatus(o, 'unknown', this.parts.clock.now()), 'the previous run stopped before the venue answered');
    }
    // Strategies start on the venue's state: positions with every fill made while the daemon was
    // down, orders settled. A pass that could not read all of it (reads failing, more trades than
    // one pass reads) is followed by another until one does; `sluice plan` (a look) takes one.
    for (let pass = 0; ; pass++) {
      const { complete } = await this.reconcile({ catchUp: true });
      if (this.stopping) return;
      if (complete || !opts.untilComplete) break;
      if (pass === 0) this.parts.log.warn({ everyMs: this.parts.settings.reconcileEveryMs }, 'the start-up reconcile could not read the whole account; strategies start after a pass that does');
      await this.parts.clock.sleep(this.parts.settings.reconcileEveryMs);
    }
    this.ready = true;
  }

  async start(): Promise<void> {
    this.loops.start();
    this.pipeline.open = true;
    await this.prepare();
    if (this.stopping) return;
    const { settings, pacer, log } = this.parts;
    // Prices (and warm-up klines) before any strategy's first tick.
    await this.pollMarketData();
    // The loops run while strategies start: one whose start hangs holds up no poll or pass.
    const starting = this.lifecycle.startWarm();
    for (const period of new Set(this.feeds().map((f) => f.subscription.everyMs!))) {
      this.loops.every(
        period,
        async () => {
          await this.pollMarketData(period);
          // A strategy whose warm-up this poll completed starts on its own: its onStart holds up no poll.
          if (this.pipeline.open) this.lifecycle.startWarm().catch((err: unknown) => log.error({ err: errorText(err) }, 'a strategy could not start'));
        },
        true,
      );
    }
    this.lifecycle.saveEvery();
    const usage = pacer.usage();
    const reconcileEveryMs = reconcileInterval(settings.reconcileEveryMs, this.activeSymbols().length, this.markets(), (e) => usage[e]?.limit ?? 1, settings.reconcile.budgetShare);
    if (reconcileEveryMs > settings.reconcileEveryMs) log.info({ reconcileEveryMs, budgetShare: settings.reconcile.budgetShare }, 'reconcile interval stretched to keep within its share of the request budget');
    this.loops.every(reconcileEveryMs, async () => void (await this.reconcile()));
    // The daemon logs the first summary with its "running" line.
    this.loops.every(settings.summaryEveryMs, async () => log.info(this.summary(), 'summary'), true);
    // "running" once each warm strategy has started or was disabled.
    await starting;
  }

  /**
   * One round of every strategy against the venue's current state (start, a market-data poll,
   * one tick), until the pipeline has handed all it accepted to the gateway. `sluice plan`
   * runs it through a gateway that sends nothing.
   */
  async runOnce(): Promise<void> {
    await this.prepare({ untilComplete: false });
    await this.pollMarketData();
    await Promise.all(
      this.hosts.map(async (h) => {
        await this.lifecycle.begin(h, false);
        await this.handle(h, await h.tick());
      }),
    );
    await this.lifecycle.idle();
    await this.pipeline.handedOff();
  }

  /** Stops strategies, settles queued intents per config, optionally cancels open orders; says which of ours it left unsettled. */
  async stop(): Promise<StopOutcome> {
    this.pipeline.open = false;
    this.stopping = true;
    const { clock, journal, log, settings } = this.parts;
    // A tick still running ends before its strategy's onStop (or it could place after it), and a
    // reconcile pass before the last ones.
    await this.loops.stop();
    // Start-up failed before its first reconcile (say, a symbol the venue does not list): no
    // strategy ran and nothing of this run is in flight; the next start settles what the last left.
    if (!this.ready) {
      log.info(this.summary(), 'stopped');
      return { unsettled: [] };
    }
    // Each onStop after the events its strategy was handed, all at once; one that hangs is abandoned at its deadline.
    await this.lifecycle.stopAll();
    this.lifecycle.saveStates();
    await this.pipeline.dropAll('dropped at shutdown', { heldOnly: settings.shutdown.queued !== 'drop' });
    await this.pipeline.drain();
    // Only our strategies' orders: an adopted order belongs to whoever placed it by hand.
    const outcome = await settleAtStop({
      journal,
      clock,
      log,
      pipeline: this.pipeline,
      ours: new Set(this.hosts.map((h) => h.id)),
      cancel: settings.shutdown.cancelOpenOrders,
      unknownTimeoutMs: settings.reconcile.unknownTimeoutMs,
      graceMs: settings.reconcile.drift.graceMs,
      unbooked: this.unbooked,
      reconcile: async () => void (await this.reconcile({ final: true })),
      hurried: () => this.hurried,
      alert: this.parts.alert,
    });
    // A cancel the last pass released (its order's venue id came) is answered before the journal
    // closes, and the strategies have heard how their orders ended.
    await this.pipeline.drain();
    await this.lifecycle.idle();
    this.intake.repeats.flush();
    log.info(this.summary(), 'stopped');
    return outcome;
  }

  /**
   * A second signal during stop(): its waits end now. Handlers still running are abandoned (their
   * strategies disabled), as are any the stop calls from here on that do not finish at once; the
   * wait for running ticks ends; the settling pass under way is the last. Cancels already asked
   * for are still sent and answered.
   */
  hurry(): void {
    this.hurried = true;
    this.deadlines.hurry();
    this.loops.hurry();
  }

  /** Resolves once every strategy has heard the events handed to it so far (they go through its inbox, after the engine's own `order` and `fill` events). */
  delivered(): Promise<void> {
    return this.lifecycle.idle();
  }

  summary(): Record<string, unknown> {
    return summarize(amend(this.parts, { pipeline: this.pipeline.stats, engine: this.stats, disabled: this.hosts.filter((h) => !h.enabled).map((h) => h.id) }));
  }

  /** One reconcile pass over every active symbol, then a positions checkpoint. */
  async reconcile(opts: { final?: boolean; catchUp?: boolean } = {}): Promise<{ complete: boolean }> {
    let pass: { complete: boolean };
    try {
      pass = await this.reconciler.pass(this.activeSymbols(), opts);
    } catch (err) {
      if (!(err instanceof AuthError)) throw err;
      if (opts.catchUp) throw refusedAtStart(err);
      haltOnRefusal(this.parts, err);
      return { complete: false };
    }
    this.checkpoint.save();
    // A disabled strategy's orders that are still open (a cancel a ban outlasted, or refused) are asked for again.
    if (this.running) this.disabled.cancelOrders();
    this.events.emit('reconciled');
    return pass;
  }

  /** Every feed a running strategy (or the recording) wants, merged, each with its period. */
  private feeds(): Feed[] {
    const wanted: Feed[] = this.hosts.filter((h) => h.enabled).flatMap((h) => feedsOf(h).map((f) => ({ ...f, subscription: withHistory(f.subscription) })));
    if (this.parts.settings.recordMarketData) wanted.push(...recordingFeeds(this.activeSymbols()));
    // Exits judge their symbols on the last price: the ticker's, or a newer kline close or trade a strategy polls.
    for (const { market, symbol } of [...(this.exits?.symbols() ?? []), ...(this.lossLimits?.symbols() ?? [])]) wanted.push({ market, symbol, subscription: { kind: 'ticker' } });
    return mergeFeeds(wanted, this.parts.settings.marketDataEveryMs);
  }

  /** Polls the feeds of one period (all of them when none is given), hands each event to the inbox of each started strategy that hears it. */
  async pollMarketData(everyMs?: number): Promise<void> {
    const feeds = this.feeds().filter((f) => everyMs === undefined || f.subscription.everyMs === everyMs);
    await this.parts.marketData.poll(feeds, async (feed, event) => {
      for (const h of this.hosts) if (this.lifecycle.started.has(h) && hears(h, feed.market, event)) this.lifecycle.postFeed(h, { key: feedKey(feed), event, deliver: async (e) => this.handle(h, await h.marketData(e)) });
    });
    if (this.running) for (const judge of [this.exits, this.lossLimits]) await judge?.check();
  }

  /** What risk judges against; `leaving` are orders about to be sent, not counted as resting. */
  riskInputs(leaving?: ReadonlySet<string>): RiskInputs {
    return riskInputs(this.parts, { reconciler: this.reconciler, unbooked: this.unbooked }, leaving);
  }

  // ---------- strategy output -> risk -> pipeline ----------

  async handle(host: StrategyHost, out: HostOutput): Promise<void> {
    this.reportIfDisabled(host);
    const refused = admit(this.intake, out);
    for (const { order, reason } of refused) await this.notify(order, reason);
  }

  /** A fill journaled and in positions, not yet told: the strategy's own book and the unbooked executions follow. */
  private onBooked(fill: Fill, order: Order | undefined): void {
    if (!order) return;
    this.ledger.fill(order.strategyId, fill);
    this.unbooked.booked(order);
  }

  private async onFill(fill: Fill, order: Order | undefined): Promise<void> {
    this.stats.fills++;
    this.events.emit('fill', fill);
    const host = order && this.hosts.find((h) => h.id === order.strategyId);
    // Through its inbox: the reconcile pass does not wait for the strategy.
    if (host) {
      this.lifecycle.post(host, async () => {
        await this.handle(host, await host.fill(fill, order));
        this.lifecycle.saveState(host);
      });
    }
  }

  /** An order changed: the pipeline, listeners and its strategy hear it (with the reason, for a strategy that takes order events). */
  private async notify(order: Order, reason?: string): Promise<void> {
    this.unbooked.update(order);
    this.pipeline.orderChanged(order);
    this.ledger.order(order);
    this.events.emit('order', order);
    const host = this.hosts.find((h) => h.id === order.strategyId);
    if (!host) return;
    const why = reason ?? (host.wantsOrderEvents && WITH_REASON.has(order.status) ? this.parts.journal.history(order.clientOrderId).at(-1)?.reason : undefined);
    // Through its inbox: neither the reconcile pass nor the pipeline waits for the strategy.
    this.lifecycle.post(host, async () => this.handle(host, await host.orderUpdate(order, why)));
  }

  /** A cancel ended without effect and its order is open: its strategy may ask again, and hears why (through its inbox). */
  private cancelFailed(intent: CancelIntent, reason: string): void {
    const host = this.hosts.find((h) => h.id === intent.strategyId);
    const order = host && this.parts.journal.order(intent.clientOrderId);
    if (host && order) this.lifecycle.post(host, async () => this.handle(host, await host.cancelFailed(order, reason)));
  }

  reportOnce(k: string, report: () => void): void {
    if (this.reported.has(k)) return;
    this.reported.add(k);
    report();
  }

  /** The strategies disabled so far, with when and why, and what became of their open orders. */
  disabledStrategies(): readonly DisabledStrategy[] {
    return this.disabled.list;
  }

  /** Trading: started and not stopping (a `sluice plan` round never is). */
  private get running(): boolean {
    return this.pipeline.open && !this.stopping;
  }

  private reportIfDisabled(h: StrategyHost): void {
    // Before the pipeline exists (a create that threw), its orders wait for the first reconcile pass of a run.
    if (!h.enabled) this.disabled.note(h, this.pipeline !== undefined && this.running);
  }
}

