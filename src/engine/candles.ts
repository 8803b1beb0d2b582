// Klines as strategies see them: which candle is still forming, and whether a poll changed
// anything (the venue answers the same candles every poll; a strategy hears only of changes).
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

/** When a candle opened at `openTime` closes (a month candle at the next month's start, UTC). */
export function closesAt(openTime: number, interval: KlineInterval): number {
  if (interval !== '1month') return openTime + SPAN_MS[interval];
  const d = new Date(openTime);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * Oldest first, each marked closed or forming. Every candle but the newest has closed (a later
 * one exists); the newest has once its span has passed by `now` (the engine clock: a venue clock
 * ahead of ours by a second marks it closed a second late).
 */
export function toCandles(klines: readonly Kline[], interval: KlineInterval, now: number): Candle[] {
  const sorted = [...klines].sort((a, b) => a.openTime - b.openTime);
  return sorted.map((k, i) => amend(k, { closed: i < sorted.length - 1 || closesAt(k.openTime, interval) <= now }));
}

/** Whether `next` tells anything `prev` did not: a new candle, a candle that closed, or the forming one moved. */
export function candlesChanged(prev: readonly Candle[] | undefined, next: readonly Candle[]): boolean {
  if (!prev || prev.length === 0) return next.length > 0;
  const a = prev.at(-1)!;
  const b = next.at(-1);
  if (!b) return false;
  return b.openTime !== a.openTime || b.closed !== a.closed || b.close !== a.close || b.high !== a.high || b.low !== a.low || b.vol !== a.vol;
}
