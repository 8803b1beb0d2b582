// The reconciler's I/O: reads the venue through the per-market read ports, lets the pure
// decisions of this folder say what changed, journals it per symbol and pass (commit.ts: in
// commits of at most 50 fills), and tells the engine. Every symbol, and every order query,
// fails on its own: one odd symbol or order never stops the rest of a pass.
//
// Order of reads in a pass: holdings first (balances or positions), then per symbol the open
// orders and the trades. Trades read after the holdings hold every fill the holdings include,
// which is what lets drift compare like with like (see drift.ts).
import { amend } from '../core/amend.js';
import { AuthError, errorText } from '../core/errors.js';
import { BoundedSet } from '../core/bounded.js';
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { VenueOrderId } from '../core/ids.js';
import type { Log } from '../core/log.js';
import type { SymbolInfo } from '../core/market.js';
import type { AccountReader, Journal, OpenOrdersPage } from '../core/ports.js';
import type { ClientIdCarrier, Fill, Market, Order } from '../core/types.js';
import type { SkippedItem, VenueOrder } from '../core/venue.js';
import { nextCursor } from './cursor.js';
import type { DriftLine } from './drift.js';
import { FillTotals } from './fill-totals.js';
import { DriftJudge, type DriftSettings, type HoldingsRead, type PositionsView } from './drift-judge.js';
import { OrderLookups } from './lookups.js';
import { ownOrderId } from './fills.js';
import { commitPass, QUERIES_PER_PASS } from './commit.js';
import { decideSymbol, type SymbolDecision, type SymbolInput } from './pass.js';
import { readTrades } from './trade-reads.js';
import { withoutPruned } from './pruned.js';
import { cancelInProgress } from './settle.js';
import { couldBe, coverReads, newCoverage, tradeCandidates, type CoverageLog } from './unknown.js';
import type { ClockEstimate, MatchingClock } from './matching-clock.js';
import { reportUnclaimed, type UnclaimedTrade } from './unclaimed.js';
import { VenueTimes } from './venue-times.js';
import { Holdings } from './holdings.js';

/** Venue orders a lost answer could be, asked for their client order id per symbol and pass: a lost batch (10). */
const IDENTIFY_PER_PASS = 10;
/** Every this many passes, the latest trades page is read too: a safety net for a fill later than graceMs. */
const FULL_SCAN_EVERY = 5;
/** Trade pages per symbol and pass; start-up and the last pass read on until the venue has no more. */
const PAGES_PER_PASS = 5;
const CATCH_UP_PAGES = 50;
/** Keys reported once (odd items, foreign trades): the oldest are forgotten beyond this many. */
const REPORTED_KEPT = 10_000;
/** Order changes and fills told to the engine between two breaths of the event loop (Clock.breathe). */
const TOLD_BETWEEN_BREATHS = 25;
/** The page a failed open-orders read stands for: nothing seen, nothing proven gone. */
const UNREAD: OpenOrdersPage = Object.freeze({ items: [], skipped: [], complete: false });

/** What the reconciler needs of the config (config's ReconcileConfig is one). */
export interface ReconcileSettings {
  readonly foreignOrders: 'adopt' | 'cancel';
  /** An order whose outcome is unknown and that never shows on the venue is given up after this long. */
  readonly unknownTimeoutMs: number;
  readonly drift: DriftSettings;
}

export interface ReconcilerDeps {
  readers: Readonly<Record<Market, AccountReader>>;
  journal: Journal;
  positions: PositionsView;
  clock: Clock;
  /** The time endpoint's clock minus ours, and how far off that estimate may be (ms). */
  venueClock(): ClockEstimate;
  /** The clock the venue stamps orders and trades with, as our orders measure it (the pipeline tells it when orders were placed). */
  matchingClock: MatchingClock;
  /** A signed request stays valid this long after its timestamp: the venue may act on one that late. */
  recvWindowMs: number;
  /** How an unknown order's client order id went to the venue (the gateway's word; undefined when this run did not send it). */
  carrierOf(clientOrderId: string): ClientIdCarrier | undefined;
  log: Log;
  instruments: ReadonlyMap<string, SymbolInfo>;
  settings: ReconcileSettings;
}

/** Where what the reconciler learns goes (the engine's side). */
export interface ReconcilerHooks {
  /** Ids of the running strategies: an adopted order with one of their client-id tags is theirs. */
  strategyIds: readonly string[];
  onOrder(order: Order): Promise<void>;
  /** Each fill of a commit as soon as it is journaled and in positions, before any is told: the books that follow fills stay in step with positions. */
  onBooked?(fill: Fill, order: Order | undefined): void;
  /** A new fill, already journaled and applied to positions. */
  onFill(fill: Fill, order: Order | undefined): Promise<void>;
  cancelForeign(order: VenueOrder, market: Market): void;
  /** A judged drift beyond tolerance ('act'), or none any more ('clear'). */
  onDrift(verdict: 'act' | 'clear', lines: readonly DriftLine[]): void;
}

export interface PassOptions {
  /** Start-up: read trades on until the venue has no more, so positions are whole before any strategy runs. */
  catchUp?: boolean;
  /** The last passes at shutdown: read everything, the latest trades page included. */
  final?: boolean;
}

type Sym = { market: Market; symbol: string };
const keyOf = (market: Market, symbol: string) => `${market}:${symbol}`;
const NO_IDS: ReadonlySet<string> = new Set();

export class Reconciler {
  /** The account's holdings as last read (spot balances, futures margin), read first in each pass. */
  readonly holdings: Holdings;
  private passes = 0;
  private readonly coverage = new Map<string, CoverageLog>();
  private readonly drift: DriftJudge;
  private readonly lookups: OrderLookups;
  private readonly fillTotals: FillTotals;
  private readonly cancelAsked = new Map<string, number>();
  private readonly reported = new BoundedSet(REPORTED_KEPT);
  /** This pass's trades no order claims, told in one line at its end. */
  private readonly unclaimed: UnclaimedTrade[] = [];
  private readonly times: VenueTimes;
  /** The pass under way (settled): passes run one at a time. */
  private underWay: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: ReconcilerDeps & ReconcilerHooks) {
    this.times = new VenueTimes(deps);
    this.fillTotals = new FillTotals(deps.journal);
    this.drift = new DriftJudge({
      journal: deps.journal,
      positions: deps.positions,
      instruments: deps.instruments,
      settings: deps.settings.drift,
      clock: deps.clock,
      venueOffsetMs: () => this.times.current().offsetMs,
      log: deps.log,
      onDrift: deps.onDrift,
    });
    this.holdings = new Holdings(amend(deps, { times: this.times, drift: this.drift }));
    this.lookups = new OrderLookups(amend(deps, { graceMs: deps.settings.drift.graceMs, filled: (market: Market, symbol: string, id: VenueOrderId) => this.fillTotals.of(market, symbol, id) }));
  }

  /** Client order ids of orders whose cancel was taken and that the latest complete open-orders read of their symbol no longer lists. */
  cancelsOffBook(): ReadonlySet<string> {
    // Risk asks at every check: nothing built when no cancel is waiting (the usual case).
    let out: Set<string> | undefined;
    for (const c of this.coverage.values()) for (const id of c.cancelsGone.keys()) (out ??= new Set()).add(id);
    return out ?? NO_IDS;
  }

  /** The fill volume journaled for a venue order. */
  filledVolume(market: Market, symbol: string, venueOrderId: string): Decimal {
    return this.fillTotals.of(market, symbol, venueOrderId);
  }

  /**
   * One pass: holdings of every market, then every symbol. A symbol that fails is logged and
   * retried next pass; the others go on. `complete`: every holding was read and every symbol's
   * trades were read to their end in this pass (what the start waits for before any strategy).
   * One asked for while another runs (the stop's, after its bounded wait for the loop's) waits for
   * it: two passes deciding from interleaved reads could undo each other's changes.
   */
  pass(symbols: readonly Sym[], opts: PassOptions = {}): Promise<{ complete: boolean }> {
    const run = this.underWay.then(() => this.passNow(symbols, opts));
    this.underWay = run.catch(() => undefined);
    return run;
  }

  private async passNow(symbols: readonly Sym[], opts: PassOptions): Promise<{ complete: boolean }> {
    const startedAt = this.deps.clock.now();
    const fullScan = opts.final === true || this.passes++ % FULL_SCAN_EVERY === FULL_SCAN_EVERY - 1;
    let complete = await this.holdings.read(new Set(symbols.map((s) => s.market)));
    for (const { market, symbol } of symbols) {
      try {
        if (!(await this.symbol(market, symbol, { catchUp: opts.catchUp, final: opts.final, fullScan }))) complete = false;
      } catch (err) {
        // Refused credentials fail every symbol alike, and are the engine's to act on.
        if (err instanceof AuthError) throw err;
        complete = false;
        this.deps.log.warn({ err: errorText(err), market, symbol }, 'reconcile failed; will retry');
      }
    }
    reportUnclaimed(this.deps.log, this.unclaimed.splice(0));
    const caughtUpAt = (market: Market, symbol: string) => this.coverage.get(keyOf(market, symbol))?.caughtUpAt ?? Number.NEGATIVE_INFINITY;
    this.drift.judge(symbols, caughtUpAt);
    this.times.keep();
    return { complete: complete && symbols.every((s) => caughtUpAt(s.market, s.symbol) >= startedAt) };
  }

  // ---------- one symbol ----------

  /** One symbol's reads, decided and journaled; false when its open orders could not be read. */
  private async symbol(market: Market, symbol: string, opts: PassOptions & { fullScan: boolean }): Promise<boolean> {
    const { clock, readers } = this.deps;
    const reader = readers[market];
    const k = keyOf(market, symbol);
    const coverage = this.coverage.get(k) ?? newCoverage();
    this.coverage.set(k, coverage);

    const openSentAt = clock.now();
    const page = await this.openOrders(market, symbol);
    this.reportSkipped(market, symbol, 'open order', page.skipped);
    const cursorKey = `trades:${market}:${symbol}`;
    const cursor = this.deps.journal.cursor(cursorKey);
    const reads = await readTrades({
      reader,
      symbol,
      cursor,
      pages: opts.catchUp || opts.final ? CATCH_UP_PAGES : PAGES_PER_PASS,
      fullScan: opts.fullScan,
      now: () => clock.now(),
      report: (skipped) => this.reportSkipped(market, symbol, 'trade', skipped),
    });
    coverReads(coverage, { openAt: page.complete ? openSentAt : undefined, caughtUpAt: reads.caughtUpAt }, this.deps.settings.drift.graceMs);
    const trades = withoutPruned(this.deps.journal, market, symbol, reads.trades, (id) => this.byVenueId(market, symbol, id));
    // One look at the journal per pass: a busy pass re-reads thousands of trades.
    const ours = this.deps.journal.orders({ openOnly: true }).filter((o) => o.market === market && o.symbol === symbol);
    const known = new Map<string, Order | undefined>();
    const byVenueId = (id: string) => {
      if (!known.has(id)) known.set(id, this.byVenueId(market, symbol, id));
      return known.get(id);
    };
    this.times.learn(page.items, trades);
    const waiting = ours.filter((o) => !o.venueOrderId && (o.status === 'pending' || o.status === 'unknown'));
    const { offsetMs, slack } = this.times.current();
    const nextCursorValue =
      reads.start ??
      nextCursor({
        trades,
        current: cursor,
        ours: (t) => byVenueId(ownOrderId(t)!) !== undefined,
        // Whether an order awaiting its answer (in flight, or lost) could own the trade.
        awaited: (t) => waiting.length > 0 && tradeCandidates([t]).some((c) => waiting.some((o) => couldBe(o, amend(c, { time: c.time === undefined ? undefined : c.time - offsetMs, placedAt: c.placedAt === undefined ? undefined : c.placedAt - offsetMs }), slack))),
        visibleBefore: this.venueNow() - this.deps.settings.drift.graceMs,
      });

    const now = clock.now();
    const decision = this.decide({ market, symbol, ours, byVenueId, page, pageAskedAt: openSentAt, trades, coverage, now }, reads.start !== undefined);
    // A busy pass tells hundreds of changes, each through its strategy and risk: the event loop
    // gets a breath between groups of them, so timers and answers are not held up meanwhile.
    let told = 0;
    const breathe = () => (++told % TOLD_BETWEEN_BREATHS === 0 ? clock.breathe() : undefined);
    const toQuery = await commitPass(
      { market, symbol, trades, decision, now, cursor: nextCursorValue, coverage },
      { journal: this.deps.journal, applied: (f) => this.deps.positions.has(f), fillTotals: this.fillTotals, breathe: () => clock.breathe() },
      async ({ fills, changed }) => {
        // Each with its order as journaled after this commit, so a fill that completes it comes
        // with status 'filled'. All booked before any is told: a strategy reading between two
        // tellings (a breath) finds the account's and its own positions agreeing.
        const latest = fills.map(({ fill, order }) => ({ fill, order: order && (this.deps.journal.order(order.clientOrderId) ?? order) }));
        for (const { fill, order } of latest) {
          this.remember(fill);
          this.deps.onBooked?.(fill, order);
        }
        // Fills before the order changes they explain: a strategy hearing 'filled' (or ticking
        // after it) then reads its position with them.
        for (const { fill, order } of latest) {
          await this.deps.onFill(fill, order);
          await breathe();
        }
        for (const order of changed) {
          await this.deps.onOrder(order);
          await breathe();
        }
      },
    );

    await this.lookups.identify(market, symbol, decision.toIdentify, IDENTIFY_PER_PASS);
    await this.lookups.unknowns(market, symbol, QUERIES_PER_PASS);
    for (const o of toQuery.slice(0, QUERIES_PER_PASS)) await this.lookups.query(o);
    return page !== UNREAD;
  }

  /**
   * The symbol's open orders; a failed read is an empty incomplete page (logged), so the pass
   * still reads and books the trades: an incomplete page says no order left the book.
   */
  private async openOrders(market: Market, symbol: string): Promise<OpenOrdersPage> {
    try {
      return await this.deps.readers[market].openOrders(symbol);
    } catch (err) {
      if (err instanceof AuthError) throw err;
      this.deps.log.warn({ err: errorText(err), market, symbol }, 'open orders read failed; reading trades all the same; will retry');
      return UNREAD;
    }
  }

  /** Everything the reads say, decided; what is not the journal's (foreign cancels, warnings) done. `history`: the trades are a new journal's first read. */
  private decide(input: Pick<SymbolInput, 'market' | 'symbol' | 'ours' | 'byVenueId' | 'page' | 'pageAskedAt' | 'trades' | 'coverage' | 'now'>, history: boolean): SymbolDecision {
    const { market, symbol, ours, byVenueId, page, pageAskedAt, trades, coverage, now } = input;
    const { log } = this.deps;
    const d = decideSymbol({
      market, symbol, now, ours, page, pageAskedAt, trades, byVenueId,
      byClientId: (id) => this.byClientId(market, symbol, id),
      offsetMs: this.times.current().offsetMs,
      slack: this.times.current().slack,
      coverage,
      foreignOrders: this.deps.settings.foreignOrders,
      unknownTimeoutMs: this.deps.settings.unknownTimeoutMs,
      strategyIds: this.deps.strategyIds,
      cancelAskedAt: (id) => this.cancelAsked.get(id),
      nameOf: (id) => this.lookups.nameOf(market, symbol, id),
      named: this.lookups.named(market, symbol),
      waitForNames: this.lookups.namesIds(market) !== 'no',
      namesPerPass: IDENTIFY_PER_PASS,
      shownBefore: now - this.deps.settings.drift.graceMs,
      cancelling: (o) => cancelInProgress(this.deps.journal, o, pageAskedAt, this.deps.settings.drift.graceMs),
    });
    this.lookups.keepNames(market, symbol, d.unclaimedIds, d.awaitingIds);
    for (const o of d.found) this.lookups.found(market, o.clientOrderId);
    for (const v of d.cancels) {
      this.cancelAsked.set(v.orderId, now);
      log.warn({ market, symbol, venueOrderId: v.orderId, clientOrderId: v.clientOrderId }, 'an open order on the venue that sluice did not place: cancelling it (reconcile.foreignOrders: cancel)');
      this.deps.cancelForeign(v, market);
    }
    for (const a of d.adoptions) {
      log.warn({ market, symbol, venueOrderId: a.order.venueOrderId, clientOrderId: a.order.clientOrderId, strategy: a.order.strategyId }, 'adopted an open order on the venue that the journal did not know; its fills count toward positions');
    }
    this.drift.setAwaited(market, symbol, d.awaited);
    for (const t of d.foreignTrades) {
      this.reportOnce(`trade:${market}:${symbol}:${t.tradeId}`, () => this.unclaimed.push({ market, symbol, tradeId: t.tradeId, venueOrderId: ownOrderId(t), time: t.time, history }));
    }
    return d;
  }

  private byVenueId(market: Market, symbol: string, id: VenueOrderId | string): Order | undefined {
    return this.deps.journal.ordersByVenueId(id).find((o) => o.market === market && o.symbol === symbol);
  }

  private byClientId(market: Market, symbol: string, id: string): Order | undefined {
    const o = this.deps.journal.order(id);
    return o && o.market === market && o.symbol === symbol ? o : undefined;
  }

  // ---------- fills ----------

  /** A new fill reaches positions, and its movement is kept for judging holdings read before it. */
  private remember(fill: Fill): void {
    this.deps.positions.apply(fill);
    this.drift.remember(fill);
    this.holdings.booked(fill);
  }

  /** The drift lines as last judged. */
  get lastDrift(): DriftLine[] {
    return this.drift.lastDrift;
  }

  /** Drift as of the latest holdings read, against every fill journaled so far (for `sluice status`). */
  driftNow(symbols: readonly Sym[]): DriftLine[] {
    return this.drift.now(symbols);
  }

  /** The latest holdings read of each market (`sluice status` judges its first look's again in its second). */
  holdingsReads(): ReadonlyMap<Market, HoldingsRead> {
    return this.drift.latestReads();
  }

  /** Earlier reads judged against the fills journaled now that the venue booked before them (see DriftJudge.judgeEarlier). */
  driftThen(symbols: readonly Sym[], reads: ReadonlyMap<Market, HoldingsRead>, afterFillId?: number): DriftLine[] {
    return this.drift.judgeEarlier(symbols, reads, afterFillId);
  }

  // ---------- plumbing ----------

  private venueNow(): number {
    return this.deps.clock.now() + this.times.current().offsetMs;
  }

  private reportSkipped(market: Market, symbol: string, what: string, skipped: readonly SkippedItem[]): void {
    for (const s of skipped) {
      // Once per item and problem, wherever the item sits in the list this time.
      this.reportOnce(`skip:${market}:${symbol}:${what}:${s.key ?? s.path}:${s.problem.replace(/\[\d+\]/g, '')}`, () =>
        this.deps.log.warn({ market, symbol, item: s.key, problem: s.problem }, `an ${what} the venue listed could not be read; it is left out of every decision until it reads`),
      );
    }
  }

  private reportOnce(key: string, report: () => void): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    report();
  }
}

