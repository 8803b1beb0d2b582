// Fill volume per venue order: what settles an order whose fills show before or after its
// answer. Kept for the orders filled lately only; an older one is summed from the journal again
// (one indexed read), so memory does not grow with every order ever filled.
import { BoundedMap } from '../core/bounded.js';
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { Journal } from '../core/ports.js';
import type { Fill, Market } from '../core/types.js';

/** Venue orders whose totals stay in memory. */
const KEPT = 10_000;

export class FillTotals {
  private readonly totals = new BoundedMap<Decimal>(KEPT);

  constructor(private readonly journal: Pick<Journal, 'fillVolumes'>) {}

  /** The volume journaled as filled for a venue order. */
  of(market: Market, symbol: string, venueOrderId: string): Decimal {
    const k = `${market}:${symbol}:${venueOrderId}`;
    let total = this.totals.get(k);
    if (total === undefined) {
      total = this.journal.fillVolumes(market, symbol, venueOrderId).reduce(dec.add, ZERO);
      this.totals.set(k, total);
    }
    return total;
  }

  /** Adds a fill just journaled to its order's total; returns the total. */
  add(f: Fill): Decimal {
    const before = this.totals.get(`${f.market}:${f.symbol}:${f.venueOrderId}`);
    // Not in memory: the journal's sum already counts the fill just written (same connection).
    if (before === undefined) return this.of(f.market, f.symbol, f.venueOrderId);
    const total = dec.add(before, f.volume);
    this.totals.set(`${f.market}:${f.symbol}:${f.venueOrderId}`, total);
    return total;
  }

  /** After a rolled-back commit: its fills were counted here but not kept there. */
  clear(): void {
    this.totals.clear();
  }
}
