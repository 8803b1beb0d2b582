// Indicators fed from klines (plugin API 2): each closed candle once, oldest first, and the
// forming one, replaced as it changes, where a strategy asks for it.
import type { KlineInterval } from '../core/market.js';
import { dec } from '../core/decimal.js';
import type { Candle, CandleInput, StreamingIndicator } from './api.js';

interface Fed {
  indicator: StreamingIndicator<number> | StreamingIndicator<CandleInput>;
  input: 'close' | 'candle';
  forming: boolean;
  /** Open time of the newest closed candle fed. */
  closedUpTo: number;
  /** Open time of the forming candle whose value is in the indicator now (replace it next). */
  formingAt: number | undefined;
}

export class IndicatorFeed {
  private readonly fed = new Map<string, Fed[]>();

  add(symbol: string, interval: KlineInterval, f: Omit<Fed, 'closedUpTo' | 'formingAt'>): void {
    const k = `${symbol}:${interval}`;
    this.fed.set(k, [...(this.fed.get(k) ?? []), { indicator: f.indicator, input: f.input, forming: f.forming, closedUpTo: Number.NEGATIVE_INFINITY, formingAt: undefined }]);
  }

  /** Feeds what `candles` adds to every indicator of that symbol and interval. */
  feed(symbol: string, interval: KlineInterval, candles: readonly Candle[]): void {
    for (const f of this.fed.get(`${symbol}:${interval}`) ?? []) {
      for (const c of candles) {
        if (c.openTime <= f.closedUpTo) continue;
        if (c.closed) {
          // A forming value of this candle is in the indicator: its final value replaces it.
          this.put(f, c, f.formingAt === c.openTime);
          f.formingAt = undefined;
          f.closedUpTo = c.openTime;
        } else if (f.forming) {
          this.put(f, c, f.formingAt !== undefined);
          f.formingAt = c.openTime;
        }
      }
    }
  }

  private put(f: Fed, c: Candle, replace: boolean): void {
    const value = f.input === 'candle' ? candleInput(c) : dec.toNumberForDisplay(c.close);
    const ind = f.indicator as StreamingIndicator<number | CandleInput>;
    if (replace) ind.replace(value);
    else ind.add(value);
  }
}

function candleInput(c: Candle): CandleInput {
  return { open: dec.toNumberForDisplay(c.open), high: dec.toNumberForDisplay(c.high), low: dec.toNumberForDisplay(c.low), close: dec.toNumberForDisplay(c.close), volume: dec.toNumberForDisplay(c.vol) };
}
