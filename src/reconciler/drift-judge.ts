// Drift over time: keeps each holdings read until every fill booked before it has had graceMs
// to show in myTrades, then judges it against exactly those fills (driftAt), and tells the
// engine when a drift appears or goes. The arithmetic is in drift.ts; this is its memory.
import { amend } from '../core/amend.js';
import type { Clock } from '../core/clock.js';
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { Log } from '../core/log.js';
import type { SymbolInfo } from '../core/market.js';
import type { Holdings, Journal } from '../core/ports.js';
import type { Fill, Market } from '../core/types.js';
import type { VenueTrade } from '../core/venue.js';
import { driftAt, driftOf, DriftWatch, type DriftLine, type Movement } from './drift.js';
import { ownOrderId, toFill } from './fills.js';

export interface DriftSettings {
  readonly tolerance: Readonly<Record<string, Decimal>>;
  /** How late a fill may show in myTrades after the venue booked it (the balance moved at once). */
  readonly graceMs: number;
}

/** What drift reads of positions (the PositionBook is one). */
export interface PositionsView {
  apply(fill: Fill): boolean;
  /** Whether this side of this trade was applied. */
  has(fill: Fill): boolean;
  entry(market: Market, symbol: string): { quantity: Decimal; otherFees: Readonly<Record<string, Decimal>> };
}

export interface DriftJudgeDeps {
  journal: Journal;
  positions: PositionsView;
  instruments: ReadonlyMap<string, SymbolInfo>;
  settings: DriftSettings;
  clock: Clock;
  venueOffsetMs(): number;
  log: Log;
  /** A judged drift beyond tolerance ('act'), or none any more ('clear'). */
  onDrift(verdict: 'act' | 'clear', lines: readonly DriftLine[]): void;
}

type Sym = { market: Market; symbol: string };
const keyOf = (market: Market, name: string) => `${market}:${name}`;

/** A holdings read as the judge keeps it (`sluice status` carries its first look's to its second). */
export interface HoldingsRead {
  holdings: Holdings;
  /** Venue time span in which the venue took the figures. */
  from: number;
  to: number;
  /** Our clock when the answer came: judged once graceMs later. */
  answeredAt: number;
}

/** Movements are kept this much longer than the oldest read still to judge (clock slack). */
const KEEP_SLACK_MS = 30_000;

export class DriftJudge {
  lastDrift: DriftLine[] = [];
  private readonly snapshots = new Map<Market, HoldingsRead[]>();
  private readonly latest = new Map<Market, HoldingsRead>();
  /** Movements of the fills journaled in this run, per line (market:name). */
  private readonly moves = new Map<string, Movement[]>();
  /** Trades of ours no order claims yet but one awaiting its answer may, per symbol: on the account, not yet in positions. */
  private readonly awaited = new Map<string, VenueTrade[]>();
  private readonly watch = new DriftWatch();
  private readonly unreadable = new Set<string>();

  constructor(private readonly deps: DriftJudgeDeps) {}

  /** A holdings read: sent at `from` and answered at `to` (venue time), `answeredAt` on our clock. */
  record(market: Market, holdings: Holdings, from: number, to: number, answeredAt: number): void {
    const snapshot = { holdings, from, to, answeredAt };
    this.latest.set(market, snapshot);
    this.snapshots.set(market, [...(this.snapshots.get(market) ?? []), snapshot]);
  }

  /** A fill just journaled and applied to positions. */
  remember(fill: Fill): void {
    const line = this.lineOf(fill.market, fill.symbol);
    if (!line) return;
    const list = this.moves.get(keyOf(fill.market, line)) ?? [];
    list.push({ time: fill.time, delta: movement(fill, line, fill.market) });
    this.moves.set(keyOf(fill.market, line), list);
  }

  /** The trades of a symbol that may still become ours (they are on the account already). */
  setAwaited(market: Market, symbol: string, trades: VenueTrade[]): void {
    this.awaited.set(keyOf(market, symbol), trades);
  }

  /**
   * Judges, per market, the newest holdings read that every symbol's trades now cover with
   * graceMs to spare (`caughtUpAt`: when a trades read that reached the end was sent), and acts
   * on the verdict. Reads still too young wait; older ones are dropped.
   */
  judge(symbols: readonly Sym[], caughtUpAt: (market: Market, symbol: string) => number): void {
    const { clock, settings, journal } = this.deps;
    const now = clock.now();
    let judged = false;
    for (const market of new Set(symbols.map((s) => s.market))) {
      const mine = symbols.filter((s) => s.market === market);
      // A line's baseline is taken at the first read of it (what the account held before
      // sluice traded it), not at a judgement later: a run that stops first still leaves one.
      const latest = this.latest.get(market);
      if (latest && mine.some((x) => journal.cursor(`baseline:${market}:${this.lineOf(market, x.symbol)}`) === undefined)) this.lines(market, mine, latest, true);
      const queue = this.snapshots.get(market) ?? [];
      const ripe = now - settings.graceMs;
      const i = queue.findLastIndex((s) => s.answeredAt <= ripe && mine.every((x) => caughtUpAt(market, x.symbol) >= s.answeredAt + settings.graceMs));
      if (i < 0) continue;
      const snapshot = queue[i]!;
      this.snapshots.set(market, queue.slice(i + 1));
      this.lastDrift = [...this.lastDrift.filter((l) => l.market !== market), ...this.lines(market, mine, snapshot, true)];
      this.prune(market);
      judged = true;
    }
    if (!judged) return;
    const verdict = this.watch.observe(this.lastDrift);
    if (verdict !== 'wait') this.deps.onDrift(verdict, this.lastDrift.filter((l) => l.beyond));
  }

  /** The latest holdings read of each market. */
  latestReads(): ReadonlyMap<Market, HoldingsRead> {
    return new Map(this.latest);
  }

  /**
   * Reads taken earlier (by another look: `sluice status`'s first), judged as the daemon judges a
   * read graceMs old: against the fills journaled now that the venue booked before each read.
   * `afterFillId`: the journal's last fill before the reads were sent (a fill booked after one
   * was journaled after it), so only the newer fills are read again.
   */
  judgeEarlier(symbols: readonly Sym[], reads: ReadonlyMap<Market, HoldingsRead>, afterFillId = 0): DriftLine[] {
    const out: DriftLine[] = [];
    for (const [market, snapshot] of reads) {
      const moves = new Map<string, Movement[]>();
      for (const { fill } of this.deps.journal.eachFill(afterFillId)) {
        const line = fill.market === market && fill.time >= snapshot.from ? this.lineOf(market, fill.symbol) : undefined;
        if (line) moves.set(keyOf(market, line), [...(moves.get(keyOf(market, line)) ?? []), { time: fill.time, delta: movement(fill, line, market) }]);
      }
      out.push(...this.lines(market, symbols.filter((x) => x.market === market), snapshot, false, moves));
    }
    return out;
  }

  /** Drift as of the latest holdings read, against every fill journaled so far (for `sluice status`). */
  now(symbols: readonly Sym[]): DriftLine[] {
    const out: DriftLine[] = [];
    for (const market of new Set(symbols.map((s) => s.market))) {
      const s = this.latest.get(market);
      if (s) out.push(...this.lines(market, symbols.filter((x) => x.market === market), { ...s, from: Infinity, to: Infinity }, false));
    }
    this.lastDrift = out;
    return out;
  }

  /** The drift line a symbol's fills move: its base asset (spot) or its contract (futures). */
  private lineOf(market: Market, symbol: string): string | undefined {
    return market === 'spot' ? this.deps.instruments.get(keyOf('spot', symbol))?.baseAsset : symbol;
  }

  /** `moves`: the movements of fills booked from the read on (this run's, unless given). */
  private lines(market: Market, symbols: readonly Sym[], snapshot: HoldingsRead, persist: boolean, moves: ReadonlyMap<string, Movement[]> = this.moves): DriftLine[] {
    const { journal, positions, settings, log } = this.deps;
    const byName = new Map<string, string[]>();
    for (const { symbol } of symbols) {
      const name = this.lineOf(market, symbol);
      if (name) byName.set(name, [...(byName.get(name) ?? []), symbol]);
    }
    const out: DriftLine[] = [];
    for (const [name, syms] of byName) {
      const { unreadable, amounts } = snapshot.holdings;
      const k = keyOf(market, name);
      if (unreadable.has(name) || unreadable.has('*')) {
        if (!this.unreadable.has(k)) log.warn({ market, name }, `drift of ${name} not checked: the venue's figure for it could not be read`);
        this.unreadable.add(k);
        continue;
      }
      this.unreadable.delete(k);
      const pending = syms.flatMap((s) => (this.awaited.get(keyOf(market, s)) ?? []).map((t) => ({ time: t.time, delta: movement(toFill(t, market, s, ownOrderId(t)!), name, market) })));
      const fromFills = syms.map((s) => {
        const e = positions.entry(market, s);
        return market === 'spot' ? dec.sub(e.quantity, e.otherFees[name] ?? ZERO) : e.quantity;
      });
      const oursNow = dec.add(dec.sum(fromFills), dec.sum(pending.map((m) => m.delta)));
      const baselineKey = `baseline:${k}`;
      const stored = journal.cursor(baselineKey) as Decimal | undefined;
      const tolerance = syms.reduce<Decimal>((t, s) => dec.max(t, settings.tolerance[s] ?? ZERO), ZERO);
      const base = { market, name, symbols: syms, venue: amounts.get(name) ?? ZERO, baseline: stored, tolerance };
      const line = Number.isFinite(snapshot.from)
        ? driftAt(amend(base, { oursNow, recent: [...(moves.get(k) ?? []), ...pending], from: snapshot.from, to: snapshot.to }))
        : driftOf(amend(base, { ours: oursNow }));
      if (stored === undefined && persist) journal.setCursor(baselineKey, line.baseline);
      out.push(line);
    }
    return out;
  }

  /** Movements older than every read still to judge are no longer needed. */
  private prune(market: Market): void {
    const venueNow = this.deps.clock.now() + this.deps.venueOffsetMs();
    const oldest = Math.min(...(this.snapshots.get(market) ?? []).map((s) => s.from), venueNow);
    for (const [k, list] of this.moves) if (k.startsWith(`${market}:`)) this.moves.set(k, list.filter((m) => m.time >= oldest - KEEP_SLACK_MS));
  }
}

/** What a fill moves in drift line `name`: spot base volume less a fee paid in it; futures contracts. */
function movement(fill: Fill, name: string, market: Market): Decimal {
  const signed = fill.side === 'BUY' ? fill.volume : dec.neg(fill.volume);
  return market === 'spot' && fill.feeAsset.toUpperCase() === name ? dec.sub(signed, fill.fee) : signed;
}
