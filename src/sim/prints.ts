// The public trades a market has printed, newest last, in typed arrays: a dense tape prints
// hundreds of thousands, and an object per print outlived the young generation (the last
// thousands are kept), so each one cost a promotion and a major GC's marking.
import type { Side } from '../core/types.js';

export interface PublicTrade {
  priceTicks: number;
  lots: number;
  at: number;
  side: Side;
}

/**
 * Keeps between `keep` and 2 * `keep` prints, as an array trimmed back to `keep` once it
 * passes 2 * `keep` would: what recentTrades() can see is the same at every moment.
 */
export class PrintLog {
  private readonly capacity: number;
  private readonly priceTicks: Float64Array;
  private readonly lots: Float64Array;
  private readonly at: Float64Array;
  private readonly buy: Uint8Array;
  /** Slot of the next print. */
  private next = 0;
  /** Prints visible (the kept array's length). */
  length = 0;

  constructor(private readonly keep: number) {
    this.capacity = 2 * keep + 1;
    this.priceTicks = new Float64Array(this.capacity);
    this.lots = new Float64Array(this.capacity);
    this.at = new Float64Array(this.capacity);
    this.buy = new Uint8Array(this.capacity);
  }

  push(priceTicks: number, lots: number, at: number, side: Side): void {
    const i = this.next;
    this.priceTicks[i] = priceTicks;
    this.lots[i] = lots;
    this.at[i] = at;
    this.buy[i] = side === 'BUY' ? 1 : 0;
    this.next = i + 1 === this.capacity ? 0 : i + 1;
    if (++this.length > 2 * this.keep) this.length = this.keep;
  }

  /** The last `limit` prints, newest first. */
  recent(limit: number): PublicTrade[] {
    const n = Math.min(Math.max(limit, 0), this.length);
    const out: PublicTrade[] = new Array(n);
    for (let k = 0; k < n; k++) {
      const i = (this.next - 1 - k + this.capacity) % this.capacity;
      out[k] = { priceTicks: this.priceTicks[i]!, lots: this.lots[i]!, at: this.at[i]!, side: this.buy[i] ? 'BUY' : 'SELL' };
    }
    return out;
  }
}
