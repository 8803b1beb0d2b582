// The venue's candles a tape recorded, as a backtest's simulator keeps them. The simulator builds
// candles only from the trades it replays, so its klines began at the tape's start, and a
// strategy's klines warm-up (20 one-minute candles, say) waited that long in tape time, where
// live the venue's history met it at once. The klines answers the recording got hold that
// history: the klines route serves the candles recorded for the time before the simulator's
// own, then its own (built from the tape's market, consistent with its fills).
import type { Kline } from '../core/market.js';

/** Each interval's span in ms by the name a request gives it; 'month': calendar months (UTC). */
export const INTERVALS: Readonly<Record<string, number | 'month'>> = {
  '1min': 60_000,
  '5min': 300_000,
  '15min': 900_000,
  '30min': 1_800_000,
  '60min': 3_600_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1day': 86_400_000,
  '1week': 604_800_000,
  '1month': 'month',
};

/** The open time of the candle of span `span` that holds `t`. */
export function bucketOf(span: number | 'month'): (t: number) => number {
  if (span !== 'month') return (t) => Math.floor(t / span) * span;
  return (t) => {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  };
}

/** One market's recorded candles, per span (60min and 1h are one); a later answer's candle replaces an earlier one's of the same open time. */
export class RecordedKlines {
  private readonly bySpan = new Map<number | 'month', Map<number, Kline>>();

  add(interval: string, klines: readonly Kline[]): void {
    const span = INTERVALS[interval];
    // An interval the simulator does not serve: no read of the run can ask for it.
    if (span === undefined) return;
    let candles = this.bySpan.get(span);
    if (!candles) this.bySpan.set(span, (candles = new Map()));
    for (const k of klines) candles.set(k.openTime, k);
  }

  /** The recorded candles of `span` that opened before `before` and within [startTime, endTime], oldest first. */
  before(span: number | 'month', before: number, opts: { startTime?: number; endTime?: number }): Kline[] {
    const candles = this.bySpan.get(span);
    if (!candles) return [];
    const inside = (t: number) => t < before && (opts.startTime === undefined || t >= opts.startTime) && (opts.endTime === undefined || t <= opts.endTime);
    return [...candles.values()].filter((k) => inside(k.openTime)).sort((a, b) => a.openTime - b.openTime);
  }
}
