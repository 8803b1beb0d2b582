// Series helpers shared by the report and its charts: the drawdown curve and downsampling.
import { dec, type Decimal } from '../core/decimal.js';
import type { Market } from '../core/types.js';
import type { EquitySample, PriceSeries } from './types.js';

export interface DrawdownPoint {
  at: number;
  equity: Decimal;
  /** Running peak, seeded with the starting equity so a loss before the first sample counts. */
  peak: Decimal;
  peakAt: number;
  /** peak - equity, never negative. */
  drawdown: Decimal;
}

export function drawdownSeries(samples: readonly EquitySample[], startingEquity: Decimal, startedAt: number): DrawdownPoint[] {
  let peak = startingEquity;
  let peakAt = startedAt;
  return samples.map((s) => {
    if (dec.gt(s.equity, peak)) {
      peak = s.equity;
      peakAt = s.at;
    }
    return { at: s.at, equity: s.equity, peak, peakAt, drawdown: dec.sub(peak, s.equity) };
  });
}

/**
 * Indices of at most `maxPoints` items to draw. Up to maxPoints everything is kept; beyond,
 * the series is cut into maxPoints / 2 buckets and each keeps its lowest and highest value in
 * time order, so peaks and troughs (the point of a drawdown chart) survive a stride that would
 * skip them.
 */
export function downsampleIndices(values: readonly number[], maxPoints: number): number[] {
  const n = values.length;
  if (n <= maxPoints) return values.map((_, i) => i);
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  const kept: number[] = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * n) / buckets);
    const to = Math.floor(((b + 1) * n) / buckets);
    let lo = from;
    let hi = from;
    for (let i = from + 1; i < to; i++) {
      if (values[i]! < values[lo]!) lo = i;
      if (values[i]! > values[hi]!) hi = i;
    }
    if (lo === hi) kept.push(lo);
    else kept.push(Math.min(lo, hi), Math.max(lo, hi));
  }
  return kept;
}

/** Samples each symbol's price whenever `take` is called (the backtest calls it with each equity sample). */
export class PriceSampler {
  private readonly series: { market: Market; symbol: string; samples: { at: number; price: Decimal }[] }[];

  constructor(
    symbols: readonly { market: Market; symbol: string }[],
    private readonly priceOf: (market: Market, symbol: string) => Decimal | undefined,
  ) {
    const seen = new Set<string>();
    this.series = symbols.filter((s) => !seen.has(`${s.market}:${s.symbol}`) && seen.add(`${s.market}:${s.symbol}`)).map((s) => ({ ...s, samples: [] }));
  }

  take(at: number): void {
    for (const s of this.series) {
      const price = this.priceOf(s.market, s.symbol);
      if (price !== undefined) s.samples.push({ at, price });
    }
  }

  result(): PriceSeries[] {
    return this.series;
  }
}
