// A price-time priority limit order book in integer ticks and lots. It knows nothing about
// money: the caller settles each fill (spot balances or futures positions).
import type { Side } from '../core/types.js';

export interface Resting {
  id: string;
  /** Who owns it: an account id, or the synthetic participants. */
  owner: string;
  side: Side;
  priceTicks: number;
  lots: number;
  /** Arrival order: earlier wins at equal price. */
  seq: number;
  /** Set by the book when the order is in its id index. */
  indexed?: boolean;
}

export interface Taker {
  id: string;
  owner: string;
  side: Side;
  /** Worst acceptable price; absent for MARKET. */
  limitTicks?: number;
  lots: number;
  /** For a quote-budgeted MARKET BUY: the most lots affordable at this price (0 stops). */
  cap?: (priceTicks: number) => number;
}

export class OrderBook {
  /** Best first: highest price, then lowest seq. */
  readonly bids: Resting[] = [];
  /** Best first: lowest price, then lowest seq. */
  readonly asks: Resting[] = [];
  private readonly byId = new Map<string, Resting>();

  best(side: Side): Resting | undefined {
    return side === 'BUY' ? this.bids[0] : this.asks[0];
  }

  get(id: string): Resting | undefined {
    return this.byId.get(id);
  }

  /** Orders in the id index: the accounts' (the other participants' are not indexed). */
  indexedCount(): number {
    return this.byId.size;
  }

  /**
   * Matches `taker` against the opposite side at maker prices while it crosses; calls `onFill`
   * for each fill (maker already reduced) and returns the lots filled. Makers that reach zero
   * leave the book before `onFill` runs.
   */
  match(taker: Taker, onFill: (maker: Resting, priceTicks: number, lots: number) => void): number {
    const opposite = taker.side === 'BUY' ? this.asks : this.bids;
    let remaining = taker.lots;
    let filled = 0;
    while (remaining > 0) {
      const maker = opposite[0];
      if (!maker) break;
      if (taker.limitTicks !== undefined) {
        const crosses = taker.side === 'BUY' ? maker.priceTicks <= taker.limitTicks : maker.priceTicks >= taker.limitTicks;
        if (!crosses) break;
      }
      let lots = Math.min(remaining, maker.lots);
      if (taker.cap) lots = Math.min(lots, taker.cap(maker.priceTicks));
      if (lots <= 0) break;
      maker.lots -= lots;
      remaining -= lots;
      filled += lots;
      if (maker.lots === 0) {
        opposite.shift();
        if (maker.indexed) this.byId.delete(maker.id);
      }
      onFill(maker, maker.priceTicks, lots);
    }
    return filled;
  }

  /**
   * Puts an order on its side in price-time order. The caller has matched it first. Orders
   * that will never be looked up by id (`indexed` false: the other participants' quotes,
   * re-made every step) skip the id index, which is most of the cost of a step.
   */
  rest(order: Resting, indexed = true): void {
    const side = order.side === 'BUY' ? this.bids : this.asks;
    const buy = order.side === 'BUY';
    const price = order.priceTicks;
    // First index whose order does not come before `order` (binary search over a sorted side).
    // A tape's book comes best level first, so each quote usually goes last: try that first.
    let lo = 0;
    let hi = side.length;
    const last = side[hi - 1];
    if (last !== undefined && (last.priceTicks === price ? last.seq < order.seq : buy ? last.priceTicks > price : last.priceTicks < price)) lo = hi;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const a = side[mid]!;
      const ahead = a.priceTicks === price ? a.seq < order.seq : buy ? a.priceTicks > price : a.priceTicks < price;
      if (ahead) lo = mid + 1;
      else hi = mid;
    }
    if (lo === side.length) side.push(order);
    else side.splice(lo, 0, order);
    if (indexed) {
      order.indexed = true;
      this.byId.set(order.id, order);
    }
  }

  /**
   * Puts `orders` (all on `side`, best first, none crossing the other side, each newer than every
   * order already there) among that side's orders in one merge from the end: what rest() of each
   * in turn gives, without an insertion (and a shift of the side) each. Not indexed: the other
   * participants' quotes, which a tape's book replaces 40 at a time.
   */
  restAll(side: Side, orders: readonly Resting[]): void {
    const book = side === 'BUY' ? this.bids : this.asks;
    const buy = side === 'BUY';
    let i = book.length - 1;
    // Room at the end, by push: a longer length would leave holes (a slower kind of array).
    for (const o of orders) book.push(o);
    let k = book.length - 1;
    for (let j = orders.length - 1; j >= 0; ) {
      const older = i >= 0 ? book[i]! : undefined;
      // An order already there goes after a new one only at a worse price (at an equal one, it is older).
      if (older !== undefined && (buy ? older.priceTicks < orders[j]!.priceTicks : older.priceTicks > orders[j]!.priceTicks)) book[k--] = book[i--]!;
      else book[k--] = orders[j--]!;
    }
  }

  /** Whether an order at `priceTicks` on `side` would trade with the opposite side. */
  wouldCross(side: Side, priceTicks: number): boolean {
    const best = side === 'BUY' ? this.asks[0] : this.bids[0];
    return best !== undefined && (side === 'BUY' ? best.priceTicks <= priceTicks : best.priceTicks >= priceTicks);
  }

  /** Lots an order at `priceTicks` on `side` could take from the opposite side. */
  lotsTaken(side: Side, priceTicks: number): number {
    let lots = 0;
    for (const o of side === 'BUY' ? this.asks : this.bids) {
      if (side === 'BUY' ? o.priceTicks > priceTicks : o.priceTicks < priceTicks) break;
      lots += o.lots;
    }
    return lots;
  }

  remove(id: string): Resting | undefined {
    const order = this.byId.get(id);
    if (!order) return undefined;
    const side = order.side === 'BUY' ? this.bids : this.asks;
    const i = side.indexOf(order);
    if (i >= 0) side.splice(i, 1);
    this.byId.delete(id);
    return order;
  }

  /** Removes every order of `owner` (the synthetic participants re-quote each step). */
  removeOwner(owner: string): void {
    for (const side of [this.bids, this.asks]) {
      let w = 0;
      for (let i = 0; i < side.length; i++) {
        const o = side[i]!;
        if (o.owner !== owner) side[w++] = o;
        else if (o.indexed) this.byId.delete(o.id);
      }
      side.length = w;
    }
  }

  /** Aggregated levels, best first: [priceTicks, lots]. */
  levels(side: Side, limit: number): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    for (const o of side === 'BUY' ? this.bids : this.asks) {
      const last = out[out.length - 1];
      if (last && last[0] === o.priceTicks) last[1] += o.lots;
      else {
        if (out.length === limit) break;
        out.push([o.priceTicks, o.lots]);
      }
    }
    return out;
  }

  crossed(): boolean {
    const b = this.bids[0];
    const a = this.asks[0];
    return b !== undefined && a !== undefined && b.priceTicks >= a.priceTicks;
  }
}
