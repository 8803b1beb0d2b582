// The reconciler's I/O: reads the venue through the per-market read ports, lets the pure
// decisions of this folder say what changed, journals it in one commit per symbol and pass,
// and tells the engine. Every symbol, and every order query, fails on its own: one odd symbol
// or order never stops the rest of a pass.
//
// Order of reads in a pass: holdings first (balances or positions), then per symbol the open
// orders and the trades. Trades read after the holdings hold every fill the holdings include,
// which is what lets drift compare like with like (see drift.ts).
import type { Clock } from '../core/clock.js';
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { OrderRejectedError, UnknownOrderError } from '../core/errors.js';
import type { VenueOrderId } from '../core/ids.js';
import type { Log } from '../core/log.js';
import type { SymbolInfo } from '../core/market.js';
import type { AccountReader, Holdings, Journal } from '../core/ports.js';
import { fillKey, FINAL_STATUSES, type Balance, type Fill, type Market, type Order } from '../core/types.js';
import type { Listing, SkippedItem, VenueOrder, VenueTrade } from '../core/venue.js';
import { compareIds, nextCursor } from './cursor.js';
import { describeDrift, driftAt, driftOf, DriftWatch, type DriftLine, type Movement } from './drift.js';
import { afterFills, ownOrderId, toFill } from './fills.js';
import { adoptedOrder, foreignAction } from './foreign.js';
import { readOpenOrders, type OrderChange } from './open-orders.js';
import { mergeVenueOrder, settleAbsent, settlePurged } from './settle.js';
import { couldBe, matchUnknown, openCandidate, tradeCandidates, unknownsToGiveUp, type Candidate, type Coverage } from './unknown.js';

/** Order look-ups (20 per 2 s on the venue) per symbol and pass: queries never crowd out the other reads. */
const QUERIES_PER_PASS = 4;
/** Every this many passes, the latest trades page is read too: a safety net for a fill later than graceMs. */
const FULL_SCAN_EVERY = 5;
/** Trade pages per symbol and pass; start-up and the last pass read on until the venue has no more. */
const PAGES_PER_PASS = 5;
const CATCH_UP_PAGES = 50;
/**
 * Beyond our estimate of the venue clock's error, how far a venue time may sit from ours when
 * deciding whether a venue order or trade can be one of ours awaiting its answer. Generous: a
 * venue's order and trade times need not follow the clock it reports (the time endpoint may
 * jump while its matching engine does not), and too tight a bound loses a fill, while too
 * loose a one only risks taking an order placed by hand in the same half minute for ours.
 */
const CLOCK_SLACK_MS = 30_000;
/** Parameter errors: the venue does not take a lookup by client order id. */
const PARAMETER_CODES: ReadonlySet<number> = new Set([-1020, -1100, -1101, -1102, -1103, -1104, -1105, -1106, -2100]);

/** What the reconciler needs of the config (config's ReconcileConfig is one). */
export interface ReconcileSettings {
  readonly foreignOrders: 'adopt' | 'cancel';
  /** An order whose outcome is unknown and that never shows on the venue is given up after this long. */
  readonly unknownTimeoutMs: number;
  readonly drift: {
    readonly tolerance: Readonly<Record<string, Decimal>>;
    /** How late a fill may show in myTrades after the venue booked it (the balance moved at once). */
    readonly graceMs: number;
  };
}

/** What the reconciler reads of positions (the PositionBook is one). */
export interface PositionsView {
  apply(fill: Fill): boolean;
  entry(market: Market, symbol: string): { quantity: Decimal; otherFees: Readonly<Record<string, Decimal>> };
}

export interface ReconcilerDeps {
  readers: Readonly<Record<Market, AccountReader>>;
  journal: Journal;
  positions: PositionsView;
  clock: Clock;
  /** Venue clock minus ours, and how far off that estimate may be (ms): venue times are on its clock. */
  venueClock(): { offsetMs: number; errorMs: number };
  log: Log;
  instruments: ReadonlyMap<string, SymbolInfo>;
  settings: ReconcileSettings;
  /** Ids of the running strategies: an adopted order with one of their client-id tags is theirs. */
  strategyIds: readonly string[];
  onOrder(order: Order): Promise<void>;
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

interface Snapshot {
  holdings: Holdings;
  /** Venue time span in which the venue took the figures. */
  from: number;
  to: number;
  /** Our clock when the answer came: judged once graceMs later. */
  answeredAt: number;
}

interface PassResult {
  fills: { fill: Fill; order: Order | undefined }[];
  changed: Order[];
  toQuery: Order[];
}

export class Reconciler {
  /** Spot balances as last read, and when that read was sent (our clock): risk's view of funds. */
  balances = new Map<string, Balance>();
  balancesAskedAt = Number.NEGATIVE_INFINITY;
  lastDrift: DriftLine[] = [];
  private passes = 0;
  private readonly coverage = new Map<string, Coverage>();
  private readonly snapshots = new Map<Market, Snapshot[]>();
  /** Latest holdings per market, for `sluice status`. */
  private readonly latest = new Map<Market, Snapshot>();
  /** Movements of the fills journaled in this run, per drift line (market:name), for judging older reads. */
  private readonly moves = new Map<string, Movement[]>();
  /** Trades of ours no order claims yet but one awaiting its answer may: per symbol, from the last pass. */
  private readonly awaited = new Map<string, VenueTrade[]>();
  /** Fill volume per venue order, built from the journal on first use. */
  private filledByOrder: Map<string, Decimal> | undefined;
  private readonly cancelAsked = new Map<string, number>();
  /** Unknown orders a client-id lookup said the venue does not have, before that lookup was proven. */
  private readonly inconclusive = new Set<string>();
  private readonly reported = new Set<string>();
  private readonly driftWatch = new DriftWatch();

  constructor(private readonly deps: ReconcilerDeps) {}

  /**
   * One pass: holdings of every market, then every symbol. A symbol that fails is logged and
   * retried next pass; the others go on.
   */
  async pass(symbols: readonly Sym[], opts: PassOptions = {}): Promise<void> {
    const fullScan = opts.final === true || this.passes++ % FULL_SCAN_EVERY === FULL_SCAN_EVERY - 1;
    await this.readHoldings(new Set(symbols.map((s) => s.market)));
    for (const { market, symbol } of symbols) {
      try {
        await this.symbol(market, symbol, { ...opts, fullScan });
      } catch (err) {
        this.deps.log.warn({ err: errText(err), market, symbol }, 'reconcile failed; will retry');
      }
    }
    this.judgeDrift(symbols);
  }

  /** Reads holdings; a failed read keeps the last ones (logged). */
  async readHoldings(markets: ReadonlySet<Market>): Promise<void> {
    for (const market of markets) {
      const sentAt = this.deps.clock.now();
      try {
        const holdings = await this.deps.readers[market].holdings();
        const answeredAt = this.deps.clock.now();
        const { offsetMs, errorMs } = this.deps.venueClock();
        const snapshot = { holdings, from: sentAt + offsetMs - errorMs, to: answeredAt + offsetMs + errorMs, answeredAt };
        this.latest.set(market, snapshot);
        this.snapshots.set(market, [...(this.snapshots.get(market) ?? []), snapshot]);
        if (market === 'spot') {
          this.balances = new Map(holdings.balances.map((b) => [b.asset, b]));
          this.balancesAskedAt = sentAt;
        }
      } catch (err) {
        this.deps.log.warn({ err: errText(err), market }, `${market} account read failed; keeping the last figures`);
      }
    }
  }

  // ---------- one symbol ----------

  private async symbol(market: Market, symbol: string, opts: PassOptions & { fullScan: boolean }): Promise<void> {
    const { journal, clock, readers } = this.deps;
    const reader = readers[market];
    const k = keyOf(market, symbol);
    const coverage = this.coverage.get(k) ?? { completeOpenAt: Number.NEGATIVE_INFINITY, caughtUpAt: Number.NEGATIVE_INFINITY };
    this.coverage.set(k, coverage);

    const openSentAt = clock.now();
    const page = await reader.openOrders(symbol);
    this.reportSkipped(market, symbol, 'open order', page.skipped);
    if (page.complete) coverage.completeOpenAt = openSentAt;
    const trades = await this.readTrades(reader, market, symbol, opts, coverage);

    const now = clock.now();
    const result = this.decide(market, symbol, page, trades, coverage, now);
    for (const { fill } of result.fills) this.remember(fill);
    for (const order of result.changed) await this.deps.onOrder(order);
    for (const { fill, order } of result.fills) await this.deps.onFill(fill, order);

    await this.lookUpUnknown(market, symbol);
    for (const o of result.toQuery.slice(0, QUERIES_PER_PASS)) await this.query(o);
  }

  /** Trades from the cursor on (and the latest page on a full scan), page after page while pages come full. */
  private async readTrades(reader: AccountReader, market: Market, symbol: string, opts: PassOptions & { fullScan: boolean }, coverage: Coverage): Promise<VenueTrade[]> {
    const cursorKey = `trades:${market}:${symbol}`;
    const cursor = this.deps.journal.cursor(cursorKey);
    const read = new Map<string, VenueTrade>();
    const take = (items: readonly VenueTrade[]) => {
      for (const t of items) read.set(`${t.tradeId}:${t.isBuyer ? 'B' : 'S'}`, t);
    };
    if (cursor === undefined) {
      // The first read of a new journal, before any order of ours: the account's trades so far
      // are its history. Every later read starts from here ('0': the very first trade).
      const sentAt = this.deps.clock.now();
      const page = await reader.trades(symbol);
      this.reportSkipped(market, symbol, 'trade', page.skipped);
      coverage.caughtUpAt = sentAt;
      this.pendingCursor.set(cursorKey, lastId(page) ?? '0');
      return page.items;
    }
    let fromId = cursor;
    const pages = opts.catchUp || opts.final ? CATCH_UP_PAGES : PAGES_PER_PASS;
    for (let n = 0; n < pages; n++) {
      const sentAt = this.deps.clock.now();
      const page = await reader.trades(symbol, fromId);
      this.reportSkipped(market, symbol, 'trade', page.skipped);
      take(page.items);
      const last = lastId(page);
      // The end: a page not full, or one that brings nothing past where it started.
      if (!page.full || last === undefined || compareIds(last, fromId) <= 0) {
        coverage.caughtUpAt = sentAt;
        break;
      }
      fromId = last;
    }
    if (opts.fullScan) take((await reader.trades(symbol)).items);
    const trades = [...read.values()];
    const moved = nextCursor({
      trades,
      current: cursor,
      ours: (t) => this.claimant(market, symbol, t) !== undefined,
      awaited: (t) => this.awaitedBy(market, symbol, t),
      visibleBefore: this.venueNow() - this.deps.settings.drift.graceMs,
    });
    if (moved) this.pendingCursor.set(cursorKey, moved);
    return trades;
  }

  /** Cursors decided by readTrades, written with the pass's commit (never ahead of the fills they pass). */
  private readonly pendingCursor = new Map<string, string>();

  /** Everything the reads say, decided and journaled in one commit. */
  private decide(market: Market, symbol: string, page: Parameters<typeof readOpenOrders>[0]['page'], trades: readonly VenueTrade[], coverage: Coverage, now: number): PassResult {
    const { journal, log } = this.deps;
    // Fill totals are read before this pass journals any fill (inside the commit it would count them twice).
    this.indexFills();
    const cursorKey = `trades:${market}:${symbol}`;
    const ours = () => journal.orders({ openOnly: true }).filter((o) => o.market === market && o.symbol === symbol);
    const changes = new PassChanges();
    const open = readOpenOrders({ ours: ours(), page, byVenueId: (id) => this.byVenueId(market, symbol, id), byClientId: (id) => this.byClientId(market, symbol, id), now });
    for (const c of open.changes) changes.set(c);

    // Orders whose answer was lost, matched to what nobody claims (see unknown.ts).
    const current = ours().map((o) => changes.get(o));
    const claimedNow = new Set(open.changes.flatMap((c) => (c.order.venueOrderId ? [c.order.venueOrderId] : [])));
    const unclaimedTrades = trades.filter((t) => {
      const id = ownOrderId(t);
      return id !== undefined && !claimedNow.has(id) && !this.byVenueId(market, symbol, id);
    });
    const unknowns = current.filter((o) => o.status === 'unknown' && !o.venueOrderId);
    const pending = current.filter((o) => o.status === 'pending');
    const offsetMs = this.deps.venueClock().offsetMs;
    const local = (c: Candidate): Candidate => (c.time === undefined ? c : { ...c, time: c.time - offsetMs });
    const openIds = new Set(open.unclaimed.map((v) => v.orderId));
    const candidates = [...open.unclaimed.map(openCandidate), ...tradeCandidates(unclaimedTrades).filter((c) => !openIds.has(c.venueOrderId))].map(local);
    const slack = this.slackMs();
    const matches = matchUnknown(unknowns, candidates, pending, slack);
    for (const { order, candidate } of matches) {
      const listed = open.unclaimed.find((v) => v.orderId === candidate.venueOrderId);
      const status = listed ? (listed.status === 'open' && dec.isPositive(listed.executedQty) ? 'partially_filled' : listed.status) : 'open';
      changes.set({ order: { ...order, venueOrderId: candidate.venueOrderId, status, executedVolume: dec.max(order.executedVolume, listed?.executedQty ?? ZERO), updatedAt: now }, reason: `found on the venue by its side, price, volume and time (${candidate.source})` });
      if (this.inconclusive.delete(order.clientOrderId)) this.clientIdLookup(market, 'no');
    }
    const matchedIds = new Set(matches.map((m) => m.candidate.venueOrderId));
    const stillAwaiting = [...pending, ...unknowns.filter((u) => !matches.some((m) => m.order === u))];
    const mayBeOurs = (c: Candidate) => stillAwaiting.some((o) => couldBe(o, c, slack));

    // Open orders nobody of ours can be: foreign.
    const adoptions: { intent: Parameters<Journal['recordIntent']>[0]; order: Order }[] = [];
    for (const v of open.unclaimed) {
      if (matchedIds.has(v.orderId) || mayBeOurs(local(openCandidate(v)))) continue;
      const action = foreignAction(this.deps.settings.foreignOrders, this.cancelAsked.get(v.orderId), now);
      if (action === 'cancel') {
        this.cancelAsked.set(v.orderId, now);
        log.warn({ market, symbol, venueOrderId: v.orderId, clientOrderId: v.clientOrderId }, 'an open order on the venue that sluice did not place: cancelling it (reconcile.foreignOrders: cancel)');
        this.deps.cancelForeign(v, market);
      } else if (action === 'adopt') {
        const adopted = adoptedOrder(v, market, this.deps.strategyIds, now);
        adoptions.push(adopted);
        log.warn({ market, symbol, venueOrderId: v.orderId, clientOrderId: adopted.order.clientOrderId, strategy: adopted.order.strategyId }, 'adopted an open order on the venue that the journal did not know; its fills count toward positions');
      }
    }

    // Trades nobody claims: awaited while one of ours may still be theirs, otherwise foreign.
    const byId = (id: string) => changes.byVenueId(id) ?? this.byVenueId(market, symbol, id);
    const stillUnclaimed = trades.filter((t) => !byId(ownOrderId(t)!) && !adoptions.some((a) => a.order.venueOrderId === ownOrderId(t)));
    const awaited = stillUnclaimed.filter((t) => tradeCandidates([t]).some((c) => mayBeOurs(local(c))));
    this.awaited.set(keyOf(market, symbol), awaited);
    for (const t of stillUnclaimed) {
      if (awaited.includes(t) || this.reported.has(`trade:${market}:${symbol}:${t.tradeId}`)) continue;
      this.reported.add(`trade:${market}:${symbol}:${t.tradeId}`);
      log.warn({ market, symbol, tradeId: t.tradeId, venueOrderId: ownOrderId(t) }, 'a trade of this account matches no order sluice knows; it does not count toward positions');
    }

    const givenUp = unknownsToGiveUp(stillAwaiting.filter((o) => o.status === 'unknown'), coverage, now, this.deps.settings.unknownTimeoutMs);
    for (const o of givenUp) {
      changes.set({ order: { ...o, status: 'rejected', updatedAt: now }, reason: `not found on the venue within ${this.deps.settings.unknownTimeoutMs} ms of its lost answer: it was never placed (not sent again)` });
    }

    try {
      return journal.transaction(() => {
        for (const a of adoptions) journal.recordIntent(a.intent, a.order);
        for (const c of changes.list) journal.updateOrder(c.order, c.reason);
        const fills: PassResult['fills'] = [];
        for (const t of trades) {
          const id = ownOrderId(t)!;
          const order = byId(id) ?? adoptions.find((a) => a.order.venueOrderId === id)?.order;
          if (!order) continue;
          const fill = toFill(t, market, symbol, id);
          if (!journal.recordFill(fill)) continue;
          const latest = changes.get(order);
          const next = afterFills(latest, this.addFill(fill), now);
          if (next) {
            journal.updateOrder(next, `fill ${fill.tradeId}`);
            changes.note(next);
          }
          fills.push({ fill, order: latest });
        }
        const toQuery: Order[] = [];
        for (const o of open.absent) {
          const latest = changes.get(o);
          if (FINAL_STATUSES.has(latest.status)) continue;
          const settled = settleAbsent(latest, this.filled(market, symbol, latest.venueOrderId!), now);
          if (settled === 'query') toQuery.push(latest);
          else {
            journal.updateOrder(settled.order, settled.reason);
            changes.note(settled.order);
          }
        }
        // Beyond an incomplete page, only orders we asked to cancel are worth a query: the rest
        // may simply be resting past the page's end.
        toQuery.push(...open.unseen.map((o) => changes.get(o)).filter((o) => o.status === 'pending_cancel'));
        const cursor = this.pendingCursor.get(cursorKey);
        if (cursor !== undefined) journal.setCursor(cursorKey, cursor);
        this.pendingCursor.delete(cursorKey);
        return { fills, changed: changes.changed(), toQuery };
      });
    } catch (err) {
      this.filledByOrder = undefined; // it counted fills the failed commit did not keep
      throw err;
    }
  }

  /** Our order of a trade, if any journal order is it. */
  private claimant(market: Market, symbol: string, t: VenueTrade): Order | undefined {
    const id = ownOrderId(t);
    return id === undefined ? undefined : this.byVenueId(market, symbol, id);
  }

  /** Whether an order of ours awaiting its answer (in flight, or lost) could own this trade. */
  private awaitedBy(market: Market, symbol: string, t: VenueTrade): boolean {
    const waiting = this.deps.journal.orders({ openOnly: true }).filter((o) => o.market === market && o.symbol === symbol && !o.venueOrderId && (o.status === 'pending' || o.status === 'unknown'));
    if (waiting.length === 0) return false;
    const offsetMs = this.deps.venueClock().offsetMs;
    const slack = this.slackMs();
    return tradeCandidates([t]).some((c) => waiting.some((o) => couldBe(o, { ...c, time: c.time === undefined ? undefined : c.time - offsetMs }, slack)));
  }

  private byVenueId(market: Market, symbol: string, id: VenueOrderId | string): Order | undefined {
    return this.deps.journal.ordersByVenueId(id).find((o) => o.market === market && o.symbol === symbol);
  }

  private byClientId(market: Market, symbol: string, id: string): Order | undefined {
    const o = this.deps.journal.order(id);
    return o && o.market === market && o.symbol === symbol ? o : undefined;
  }

  // ---------- queries, one order each, each on its own ----------

  /** An order that left the book without enough evidence of how: ask the venue. */
  private async query(order: Order): Promise<void> {
    const { journal, clock, log, readers } = this.deps;
    let change: OrderChange;
    try {
      const venue = await readers[order.market].order(order.symbol, order.venueOrderId!);
      change = { order: mergeVenueOrder(order, venue, clock.now()), reason: 'venue order query' };
    } catch (err) {
      if (!(err instanceof UnknownOrderError)) {
        log.warn({ err: errText(err), clientOrderId: order.clientOrderId, venueOrderId: order.venueOrderId }, 'order query failed; will retry');
        return;
      }
      change = settlePurged(order, this.filled(order.market, order.symbol, order.venueOrderId!), clock.now());
    }
    const latest = journal.order(order.clientOrderId) ?? order;
    if (change.order.status === latest.status && dec.eq(change.order.executedVolume, latest.executedVolume)) return;
    journal.updateOrder({ ...latest, ...pick(change.order) }, change.reason);
    await this.deps.onOrder(journal.order(order.clientOrderId)!);
  }

  /**
   * Unknown orders looked up by client order id, where the venue takes that: once a lookup has
   * found an order, the venue is known to; a parameter error says it does not (remembered).
   * Before it is proven, "no such order" proves nothing (a venue may look up an empty order id).
   */
  private async lookUpUnknown(market: Market, symbol: string): Promise<void> {
    const support = this.clientIdLookup(market);
    if (support === 'no') return;
    const { journal, clock, log, readers } = this.deps;
    const unknowns = journal.orders({ openOnly: true }).filter((o) => o.market === market && o.symbol === symbol && o.status === 'unknown' && !o.venueOrderId && !this.inconclusive.has(o.clientOrderId));
    for (const order of unknowns.slice(0, QUERIES_PER_PASS)) {
      try {
        const venue = await readers[market].orderByClientId(symbol, order.clientOrderId);
        if (venue.clientOrderId !== undefined && venue.clientOrderId !== order.clientOrderId) continue;
        this.clientIdLookup(market, 'yes');
        journal.updateOrder(mergeVenueOrder(order, venue, clock.now()), 'found by client order id');
        await this.deps.onOrder(journal.order(order.clientOrderId)!);
      } catch (err) {
        if (err instanceof UnknownOrderError) {
          if (this.clientIdLookup(market) === 'yes') {
            journal.updateOrder({ ...order, status: 'rejected', updatedAt: clock.now() }, 'the venue has no order with its client order id: it was never placed (not sent again)');
            await this.deps.onOrder(journal.order(order.clientOrderId)!);
          } else this.inconclusive.add(order.clientOrderId);
        } else if (err instanceof OrderRejectedError && PARAMETER_CODES.has(err.venue.venueCode ?? 0)) {
          this.clientIdLookup(market, 'no');
          log.info({ market, code: err.venue.venueCode }, 'the venue does not look orders up by client order id; lost answers are settled from its open orders and trades');
          return;
        } else log.warn({ err: errText(err), clientOrderId: order.clientOrderId }, 'client order id lookup failed; will retry');
      }
    }
  }

  /** Whether the venue looks orders up by client order id: 'yes', 'no', or not known yet. Remembered in the journal. */
  private clientIdLookup(market: Market, set?: 'yes' | 'no'): 'yes' | 'no' | undefined {
    const key = `venue:${market}:clientIdLookup`;
    if (set && this.deps.journal.cursor(key) !== set) this.deps.journal.setCursor(key, set);
    const v = this.deps.journal.cursor(key);
    return v === 'yes' || v === 'no' ? v : undefined;
  }

  // ---------- fills ----------

  private filled(market: Market, symbol: string, venueOrderId: string): Decimal {
    this.indexFills();
    return this.filledByOrder!.get(`${market}:${symbol}:${venueOrderId}`) ?? ZERO;
  }

  private indexFills(): void {
    if (this.filledByOrder) return;
    this.filledByOrder = new Map();
    for (const f of this.deps.journal.fills()) this.sum(f);
  }

  /** Adds a just-journaled fill to its order's total; returns the total. */
  private addFill(f: Fill): Decimal {
    this.indexFills();
    return this.sum(f);
  }

  private sum(f: Fill): Decimal {
    const k = `${f.market}:${f.symbol}:${f.venueOrderId}`;
    const total = dec.add(this.filledByOrder!.get(k) ?? ZERO, f.volume);
    this.filledByOrder!.set(k, total);
    return total;
  }

  /** A new fill reaches positions, and its movement is kept for judging holdings read before it. */
  private remember(fill: Fill): void {
    this.deps.positions.apply(fill);
    const line = this.lineOf(fill.market, fill.symbol);
    if (!line) return;
    const list = this.moves.get(line.key) ?? [];
    list.push({ time: fill.time, delta: movement(fill, line.name, fill.market) });
    this.moves.set(line.key, list);
  }

  // ---------- drift ----------

  /** The drift line a symbol's fills move: its base asset (spot) or its contract (futures). */
  private lineOf(market: Market, symbol: string): { key: string; name: string } | undefined {
    const name = market === 'spot' ? this.deps.instruments.get(keyOf('spot', symbol))?.baseAsset : symbol;
    return name ? { key: keyOf(market, name), name } : undefined;
  }

  /**
   * Judges, per market, the newest holdings read that every symbol's trades now cover with
   * graceMs to spare, and acts on the verdict. Reads still too young wait; older ones are dropped.
   */
  private judgeDrift(symbols: readonly Sym[]): void {
    const { clock, settings, journal } = this.deps;
    const now = clock.now();
    let judged = false;
    for (const market of new Set(symbols.map((s) => s.market))) {
      const queue = this.snapshots.get(market) ?? [];
      const mine = symbols.filter((s) => s.market === market);
      // A line's baseline is taken at the first read of it (what the account held before
      // sluice traded it), not a judgement later: a run that stops first still leaves one.
      const latest = this.latest.get(market);
      const names = mine.flatMap((x) => this.lineOf(market, x.symbol)?.name ?? []);
      if (latest && names.some((n) => journal.cursor(`baseline:${market}:${n}`) === undefined)) this.lines(market, mine, latest, true);
      const ready = (s: Snapshot) => now >= s.answeredAt + settings.drift.graceMs && mine.every((x) => (this.coverage.get(keyOf(market, x.symbol))?.caughtUpAt ?? -Infinity) >= s.answeredAt + settings.drift.graceMs);
      const i = queue.findLastIndex(ready);
      if (i < 0) continue;
      const snapshot = queue[i]!;
      this.snapshots.set(market, queue.slice(i + 1));
      this.lastDrift = [...this.lastDrift.filter((l) => l.market !== market), ...this.lines(market, mine, snapshot, true)];
      judged = true;
      this.prune(market);
    }
    if (!judged) return;
    const verdict = this.driftWatch.observe(this.lastDrift);
    if (verdict !== 'wait') this.deps.onDrift(verdict, this.lastDrift.filter((l) => l.beyond));
  }

  /** Drift as of the latest holdings read, against every fill journaled so far (for `sluice status`). */
  driftNow(symbols: readonly Sym[]): DriftLine[] {
    const out: DriftLine[] = [];
    for (const market of new Set(symbols.map((s) => s.market))) {
      const s = this.latest.get(market);
      if (s) out.push(...this.lines(market, symbols.filter((x) => x.market === market), { ...s, from: Infinity, to: Infinity }, false));
    }
    this.lastDrift = out;
    return out;
  }

  private lines(market: Market, symbols: readonly Sym[], snapshot: Snapshot, persist: boolean): DriftLine[] {
    const { journal, positions, settings, log } = this.deps;
    const byName = new Map<string, string[]>();
    for (const { symbol } of symbols) {
      const line = this.lineOf(market, symbol);
      if (line) byName.set(line.name, [...(byName.get(line.name) ?? []), symbol]);
    }
    const out: DriftLine[] = [];
    for (const [name, syms] of byName) {
      const { unreadable, amounts } = snapshot.holdings;
      if (unreadable.has(name) || unreadable.has('*')) {
        this.reportOnce(`drift:${market}:${name}`, () => log.warn({ market, name }, `drift of ${name} not checked: the venue's figure for it could not be read`));
        continue;
      }
      this.reported.delete(`drift:${market}:${name}`);
      const pendingMoves = syms.flatMap((s) => (this.awaited.get(keyOf(market, s)) ?? []).map((t) => ({ time: t.time, delta: movement(toFill(t, market, s, ownOrderId(t)!), name, market) })));
      const oursNow = dec.add(
        dec.sum(syms.map((s) => (market === 'spot' ? dec.sub(positions.entry(market, s).quantity, positions.entry(market, s).otherFees[name] ?? ZERO) : positions.entry(market, s).quantity))),
        dec.sum(pendingMoves.map((m) => m.delta)),
      );
      const baselineKey = `baseline:${market}:${name}`;
      const stored = journal.cursor(baselineKey) as Decimal | undefined;
      const tolerance = syms.reduce<Decimal>((t, s) => dec.max(t, settings.drift.tolerance[s] ?? ZERO), ZERO);
      const base = { market, name, symbols: syms, venue: amounts.get(name) ?? ZERO, baseline: stored, tolerance };
      const line = Number.isFinite(snapshot.from)
        ? driftAt({ ...base, oursNow, recent: [...(this.moves.get(keyOf(market, name)) ?? []), ...pendingMoves], from: snapshot.from, to: snapshot.to })
        : driftOf({ ...base, ours: oursNow });
      if (stored === undefined && persist) journal.setCursor(baselineKey, line.baseline);
      out.push(line);
    }
    return out;
  }

  /** Movements older than every read still to judge are no longer needed. */
  private prune(market: Market): void {
    const oldest = Math.min(...(this.snapshots.get(market) ?? []).map((s) => s.from), this.venueNow());
    for (const [k, list] of this.moves) if (k.startsWith(`${market}:`)) this.moves.set(k, list.filter((m) => m.time >= oldest - CLOCK_SLACK_MS));
  }

  // ---------- plumbing ----------

  private venueNow(): number {
    return this.deps.clock.now() + this.deps.venueClock().offsetMs;
  }

  private slackMs(): number {
    return this.deps.venueClock().errorMs + CLOCK_SLACK_MS;
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

/** An order's changes within one pass: the latest version of each, and the reasons in order. */
class PassChanges {
  readonly list: OrderChange[] = [];
  private readonly latest = new Map<string, Order>();

  set(c: OrderChange): void {
    this.list.push(c);
    this.latest.set(c.order.clientOrderId, c.order);
  }

  /** A version written directly (inside the commit). */
  note(order: Order): void {
    this.latest.set(order.clientOrderId, order);
  }

  get(o: Order): Order {
    return this.latest.get(o.clientOrderId) ?? o;
  }

  byVenueId(id: string): Order | undefined {
    for (const o of this.latest.values()) if (o.venueOrderId === id) return o;
    return undefined;
  }

  changed(): Order[] {
    return [...this.latest.values()];
  }
}

/** The highest trade id a page holds, readable items and skipped ones alike. */
function lastId(page: Listing<VenueTrade>): string | undefined {
  const ids = [...page.items.map((t) => t.tradeId), ...page.skipped.flatMap((s) => (s.key ? [s.key] : []))];
  return ids.reduce<string | undefined>((a, b) => (a === undefined || compareIds(b, a) > 0 ? b : a), undefined);
}

/** What a fill moves in drift line `name`: spot base volume less a fee paid in it; futures contracts. */
function movement(fill: Fill, name: string, market: Market): Decimal {
  const signed = fill.side === 'BUY' ? fill.volume : dec.neg(fill.volume);
  return market === 'spot' && fill.feeAsset.toUpperCase() === name ? dec.sub(signed, fill.fee) : signed;
}

/** The fields a query or settlement decides; the rest stays as the journal has it. */
function pick(o: Order): Pick<Order, 'status' | 'executedVolume' | 'avgPrice' | 'venueOrderId' | 'updatedAt'> {
  return { status: o.status, executedVolume: o.executedVolume, avgPrice: o.avgPrice, venueOrderId: o.venueOrderId, updatedAt: o.updatedAt };
}

export { describeDrift, fillKey };

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
