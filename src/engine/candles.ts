// Klines as strategies see them: which candle is still forming, and whether a poll changed
// anything (the venue answers the same candles every poll; a strategy hears only of changes).
// Whether a candle has closed is the venue's to say, never our clock's: a venue clock behind
// ours by 3 s had candles handed on closed 3 s early, with a close, high, low and volume the
// venue went on to change, and indicators kept the early values.
import { amend } from '../core/amend.js';
import type { Kline, KlineInterval } from '../core/market.js';
import type { Candle } from '../strategy/api.js';

const MINUTE = 60_000;
const SPAN_MS: Record<Exclude<KlineInterval, '1month'>, number> = {
  '1min': MINUTE,
  '5min': 5 * MINUTE,
  '15min': 15 * MINUTE,
  '30min': 30 * MINUTE,
  '60min': 60 * MINUTE,
  '1h': 60 * MINUTE,
  '4h': 240 * MINUTE,
  '1day': 1440 * MINUTE,
  '1week': 7 * 1440 * MINUTE,
};

/**
 * Venue time past a candle's end before the newest candle of an answer counts as closed
 * without a newer one beside it: room for a venue whose klines lag its matching (a trade
 * matched just before the end, added to the candle a moment later).
 */
export const CLOSE_GRACE_MS = 5_000;

/** The most closed candles a feed keeps as handed on: one answer holds at most 300 (the notes). */
const KEPT_CLOSED = 300;

/** When a candle opened at `openTime` closes (a month candle at the next month's start, UTC). */
export function closesAt(openTime: number, interval: KlineInterval): number {
  if (interval !== '1month') return openTime + SPAN_MS[interval];
  const d = new Date(openTime);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * Oldest first, one per open time, each marked closed or forming by the venue's own word:
 * every candle but the newest has closed (the venue opened a later one); the newest has once
 * `venueAsOf` (venue time no later than the venue's answer, or undefined when the venue clock
 * is not measured yet) has passed its end by CLOSE_GRACE_MS. Never by our clock alone.
 */
export function toCandles(klines: readonly Kline[], interval: KlineInterval, venueAsOf: number | undefined): Candle[] {
  const byOpen = new Map<number, Kline>();
  for (const k of klines) byOpen.set(k.openTime, k);
  const sorted = [...byOpen.values()].sort((a, b) => a.openTime - b.openTime);
  const ended = (k: Kline) => venueAsOf !== undefined && venueAsOf >= closesAt(k.openTime, interval) + CLOSE_GRACE_MS;
  return sorted.map((k, i) => amend(k, { closed: i < sorted.length - 1 || ended(k) }));
}

/** Whether `next` tells anything `prev` did not: a new candle, a candle that closed, or the forming one moved. */
export function candlesChanged(prev: readonly Candle[] | undefined, next: readonly Candle[]): boolean {
  if (!prev || prev.length === 0) return next.length > 0;
  const a = prev.at(-1)!;
  const b = next.at(-1);
  if (!b) return false;
  return b.openTime !== a.openTime || b.closed !== a.closed || !sameValues(a, b);
}

const sameValues = (a: Kline, b: Kline) => a.open === b.open && a.close === b.close && a.high === b.high && a.low === b.low && a.vol === b.vol;

/** What read() makes of one answer. */
export interface CandleRead {
  /** The candles as strategies see them, oldest first; undefined for a stale answer (older than one already read), which is dropped. */
  candles: Candle[] | undefined;
  /** Open times of candles handed on closed that this answer gives otherwise (strategies keep what they were handed). */
  revised: number[];
}

/**
 * One klines feed's candles as strategies have been handed them. A candle handed on closed is
 * final: later answers show it as it was then, so no strategy sees a closed candle change or
 * the same candle close twice, whatever the venue answers later (a candle it revises, an
 * answer from before the close).
 */
export class CandleFeed {
  /** Candles handed on closed, by open time. */
  private readonly closed = new Map<number, Candle>();
  /** Open time of the newest candle any answer held. */
  private newest = Number.NEGATIVE_INFINITY;

  read(klines: readonly Kline[], interval: KlineInterval, venueAsOf: number | undefined): CandleRead {
    const fresh = toCandles(klines, interval, venueAsOf);
    const newest = fresh.at(-1)?.openTime ?? Number.NEGATIVE_INFINITY;
    // Its newest candle opened before one already seen: an answer from before (a lagging
    // replica, a shorter page); what it says is old, and the candle it holds forming has closed.
    if (newest < this.newest) return { candles: undefined, revised: [] };
    this.newest = newest;
    const revised: number[] = [];
    const candles = fresh.map((c) => {
      const kept = this.closed.get(c.openTime);
      if (kept) {
        if (!sameValues(kept, c)) revised.push(c.openTime);
        return kept;
      }
      if (c.closed) this.closed.set(c.openTime, c);
      return c;
    });
    this.prune();
    return { candles, revised };
  }

  /** Keeps the newest KEPT_CLOSED closed candles: older ones no answer holds again. */
  private prune(): void {
    if (this.closed.size <= 2 * KEPT_CLOSED) return;
    const times = [...this.closed.keys()].sort((a, b) => a - b);
    for (const t of times.slice(0, times.length - KEPT_CLOSED)) this.closed.delete(t);
  }
}
