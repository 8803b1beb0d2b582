// An account's place in the queue at its price, kept across a tape's books. A recorded depth
// says how much other traders show at each price, not in which order: replacing the level by a
// snapshot's quotes, all newer than the account's order, would put the order ahead of all the
// size shown at its price at every snapshot, and passive fills would come sooner and more often
// than they do live. So the other traders' size that was ahead of an account's order stays
// ahead of it: it shrinks as trades at that price (or through it) take it, the book's matching
// taking it first, and when a snapshot shows the level smaller than that size, to what the
// level shows (cancels are taken from the back of the queue, behind the order, until there is
// nothing else left to cancel). It never grows: size that joins the level joins behind.
import type { Side } from '../core/types.js';
import type { OrderBook, Resting } from './book.js';
import { OTHERS } from './others.js';

/** An account's resting order and the other traders' lots ahead of it at its price (more than none). */
export interface Ahead {
  order: Resting;
  lots: number;
}

/**
 * The account orders on the book with other traders' lots ahead of them at their price, and
 * those lots, read before a tape's book replaces the others' quotes; undefined when there are
 * none (no account order rests: then a snapshot costs one check more).
 */
export function queueAhead(book: OrderBook): Ahead[] | undefined {
  if (book.indexedCount() === 0) return undefined;
  const out: Ahead[] = [];
  for (const side of [book.bids, book.asks]) {
    let price = NaN;
    let others = 0;
    for (const o of side) {
      if (o.priceTicks !== price) {
        price = o.priceTicks;
        others = 0;
      }
      if (o.owner === OTHERS) others += o.lots;
      // Nothing ahead: the snapshot's quotes go behind it anyway, as they should.
      else if (others > 0) out.push({ order: o, lots: others });
    }
  }
  return out.length > 0 ? out : undefined;
}

/**
 * After a tape's book replaced the others' quotes (all now behind the account's orders at each
 * price): moves the others' size at each account order's price so that as much is ahead of it
 * as was (`ahead`, from queueAhead), or all of the level when it shows less. `quote` makes one
 * of the others' orders with the given queue position (`seq`).
 */
export function keepQueue(book: OrderBook, ahead: readonly Ahead[], quote: (side: Side, priceTicks: number, lots: number, seq: number) => Resting): void {
  // Same side and price: consecutive in `ahead`, in queue order (queueAhead walks the book).
  for (let i = 0; i < ahead.length; ) {
    const first = ahead[i]!.order;
    let j = i + 1;
    while (j < ahead.length && ahead[j]!.order.side === first.side && ahead[j]!.order.priceTicks === first.priceTicks) j++;
    placeLevel(book, ahead.slice(i, j), quote);
    i = j;
  }
}

function placeLevel(book: OrderBook, group: readonly Ahead[], quote: (side: Side, priceTicks: number, lots: number, seq: number) => Resting): void {
  const { side, priceTicks } = group[0]!.order;
  // Orders a crossing quote filled meanwhile have left the book.
  const kept = group.filter((a) => book.get(a.order.id) === a.order);
  if (kept.length === 0) return;
  const list = side === 'BUY' ? book.bids : book.asks;
  let level = 0;
  let behindSeq = Infinity;
  let w = 0;
  for (let r = 0; r < list.length; r++) {
    const o = list[r]!;
    if (o.priceTicks === priceTicks && o.owner === OTHERS) {
      level += o.lots;
      behindSeq = Math.min(behindSeq, o.seq);
    } else list[w++] = o;
  }
  if (level === 0) return;
  list.length = w;
  let placed = 0;
  for (let k = 0; k < kept.length; k++) {
    const want = Math.min(kept[k]!.lots, level);
    // Just before this order (and after the one before it): seqs of account orders are whole numbers.
    if (want > placed) book.rest(quote(side, priceTicks, want - placed, kept[k]!.order.seq - 0.5), false);
    placed = Math.max(placed, want);
  }
  if (level > placed) book.rest(quote(side, priceTicks, level - placed, behindSeq), false);
}
