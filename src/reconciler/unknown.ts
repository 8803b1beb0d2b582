// Orders whose placement answer was lost (`unknown`): matched to what the venue shows without
// a client-id lookup (the contract's lookup takes the order id, which we never got, and open
// orders carry no client id on every venue), as pure functions.
//
// A venue order that no journal order claims, open or only seen in our trades, is a candidate.
// An unknown order matches a candidate with the same side and type, the same limit price, a
// volume that fits, a venue time no earlier than the intent was journaled and, where the venue
// says when it took the order, no later than the order became unknown (both within a clock
// slack). Orders still in flight (`pending`) get their answer soon: a candidate one of them
// could be is left alone until they have it, so an unknown never takes a sibling's order.
// Identical unknowns are interchangeable; the oldest takes the oldest candidate.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { VenueOrderId } from '../core/ids.js';
import type { Order, OrderType, Side } from '../core/types.js';
import type { VenueOrder, VenueTrade } from '../core/venue.js';
import { compareIds } from '../core/ids.js';
import { ownOrderId, quoteSized } from './fills.js';

/** A venue order no journal order claims. */
export interface Candidate {
  venueOrderId: VenueOrderId;
  side: Side;
  /** Known when the venue listed the order (open orders); a trade does not say. */
  type?: OrderType;
  price?: Decimal;
  volume?: Decimal;
  /** Volume traded so far (executedQty, or the sum of the trades seen). */
  filled: Decimal;
  /** Quote spent or received so far (trades only), for a spot market buy sized in quote. */
  quote: Decimal;
  /** Prices of the trades seen where the order was the maker: a resting limit order trades at its own price. */
  makerPrices: Decimal[];
  /** Prices of the trades seen where it took liquidity: at its limit or better. */
  takerPrices: Decimal[];
  /** Venue time of the order or its first trade, when known. */
  time?: number;
  /**
   * When the venue took the order, when that is known: an open order says; an order traded
   * as taker arrived at its first taker trade (only an arriving order takes liquidity). A
   * resting order's maker trades say only that it arrived before them.
   */
  placedAt?: number;
  source: 'open' | 'trades';
}

export function openCandidate(v: VenueOrder): Candidate {
  return { venueOrderId: v.orderId, side: v.side, type: v.type, price: v.price, volume: v.origQty, filled: v.executedQty, quote: ZERO, makerPrices: [], takerPrices: [], time: v.time, placedAt: v.time, source: 'open' };
}

/** Unclaimed trades grouped by our side's venue order: one candidate per order. */
export function tradeCandidates(trades: readonly VenueTrade[]): Candidate[] {
  const byOrder = new Map<string, Candidate>();
  for (const t of trades) {
    const id = ownOrderId(t);
    if (!id) continue;
    const c = byOrder.get(id) ?? { venueOrderId: id, side: t.isBuyer ? 'BUY' : 'SELL', filled: ZERO, quote: ZERO, makerPrices: [], takerPrices: [], time: t.time, source: 'trades' as const };
    c.filled = dec.add(c.filled, t.qty);
    c.quote = dec.add(c.quote, dec.mul(t.qty, t.price));
    (t.isMaker ? c.makerPrices : c.takerPrices).push(t.price);
    c.time = Math.min(c.time ?? t.time, t.time);
    if (!t.isMaker) c.placedAt = Math.min(c.placedAt ?? t.time, t.time);
    byOrder.set(id, c);
  }
  return [...byOrder.values()];
}

/**
 * How far a venue time, made ours, may sit from ours when judging whether it can be an order
 * awaiting its answer: before its intent was journaled (the clocks' error), and after its answer
 * was lost (that error, plus how late the venue may still act on a request it received).
 */
export interface Slack {
  earlyMs: number;
  lateMs: number;
}

/** Whether `c` may be `order` on the venue. */
export function couldBe(order: Order, c: Candidate, slack: Slack): boolean {
  if (order.side !== c.side) return false;
  if (c.type !== undefined && c.type !== order.type) return false;
  if (c.time !== undefined && c.time < order.createdAt - slack.earlyMs) return false;
  // Its request was signed before the order became unknown (the error came back, or the
  // process that could send it died), and a venue refuses a request that arrives later than
  // its recvWindow: an order the venue took well after that is not this one. A pending order's
  // request may not be signed yet (it can wait in the queue): no such bound.
  if (order.status === 'unknown' && c.placedAt !== undefined && c.placedAt > order.updatedAt + slack.lateMs) return false;
  if (quoteSized(order)) {
    // A market buy's volume is the quote amount to spend; what it bought can only cost less.
    return dec.lte(c.volume ?? c.quote, order.volume);
  }
  if (c.volume !== undefined ? !dec.eq(c.volume, order.volume) : dec.gt(c.filled, order.volume)) return false;
  if (order.type === 'LIMIT') {
    const limit = order.price!;
    if (c.price !== undefined && !dec.eq(c.price, limit)) return false;
    // A limit order rests at its price (maker trades there), and takes at its price or better.
    if (c.makerPrices.some((p) => !dec.eq(p, limit))) return false;
    const worse = order.side === 'BUY' ? (p: Decimal) => dec.gt(p, limit) : (p: Decimal) => dec.lt(p, limit);
    if (c.takerPrices.some(worse)) return false;
  } else if (c.makerPrices.length > 0) {
    return false; // a market order never rests
  }
  return true;
}

/** How far a compatible candidate is from an exact fit: 0 for one the venue lists at the order's price, else how much better its taker prices were. */
function distance(order: Order, c: Candidate): Decimal {
  if (order.type !== 'LIMIT') return ZERO;
  return dec.sum(c.takerPrices.map((p) => dec.abs(dec.sub(p, order.price!))));
}

export interface Match {
  order: Order;
  candidate: Candidate;
}

/**
 * Pairs unknown orders with candidates, as many pairs as the candidates allow: a maximum
 * matching, so an unknown never takes a candidate another could own when that leaves one it
 * alone could own unclaimed (its fill would count nowhere). A limit order's maker trades fit
 * only its own price while a taker trade fits every limit at or beyond it, so the least
 * flexible candidates choose first, and a later one may move an earlier choice along to
 * another that fits. Among the unknowns that fit a candidate, the likeliest goes first (see
 * fitsBetter). Candidates a pending order could be are held back.
 */
export function matchUnknown(unknowns: readonly Order[], candidates: readonly Candidate[], pending: readonly Order[], slack: Slack): Match[] {
  const free = candidates
    .filter((c) => !pending.some((p) => couldBe(p, c, slack)))
    .sort((a, b) => (a.source === b.source ? (a.time ?? 0) - (b.time ?? 0) || compareIds(a.venueOrderId, b.venueOrderId) : a.source === 'open' ? -1 : 1));
  const fits = free.map((c) => unknowns.filter((o) => couldBe(o, c, slack)).sort((a, b) => (fitsBetter(a, b, c) ? -1 : fitsBetter(b, a, c) ? 1 : 0)));
  const ownerOf = new Map<Order, number>();
  // Kuhn's augmenting paths: give candidate `ci` an unknown, moving others along if they can.
  const assign = (ci: number, tried: Set<Order>): boolean => {
    for (const o of fits[ci]!) {
      if (tried.has(o)) continue;
      tried.add(o);
      const held = ownerOf.get(o);
      if (held === undefined || assign(held, tried)) {
        ownerOf.set(o, ci);
        return true;
      }
    }
    return false;
  };
  const leastFlexibleFirst = free.map((_, i) => i).sort((a, b) => fits[a]!.length - fits[b]!.length || a - b);
  for (const ci of leastFlexibleFirst) if (fits[ci]!.length > 0) assign(ci, new Set());
  return [...ownerOf]
    .map(([order, ci]) => ({ order, candidate: free[ci]! }))
    .sort((a, b) => a.order.createdAt - b.order.createdAt || (a.order.clientOrderId < b.order.clientOrderId ? -1 : 1));
}

/** Whether `a` is a likelier owner of `c` than `b` (both compatible). */
function fitsBetter(a: Order, b: Order, c: Candidate): boolean {
  const da = distance(a, c);
  const db = distance(b, c);
  if (!dec.eq(da, db)) return dec.lt(da, db);
  const at = c.placedAt ?? c.time;
  if (at === undefined) return a.createdAt < b.createdAt;
  const aBefore = a.createdAt <= at;
  const bBefore = b.createdAt <= at;
  if (aBefore !== bBefore) return aBefore;
  return aBefore ? a.createdAt > b.createdAt : a.createdAt < b.createdAt;
}

/** What the poller knows about how recently it saw the whole symbol. */
export interface Coverage {
  /** When the last trades read that reached the end was sent (local ms). */
  caughtUpAt: number;
  /**
   * When the newest complete open-orders read was sent that a trades read to the end made
   * drift.graceMs later has covered (local ms): an order the venue took before it was open
   * then, or done with its trades shown since.
   */
  settledOpenAt: number;
}

/** Coverage as the poller keeps it: with the complete open-orders reads (send times, oldest first) not yet settled. */
export interface CoverageLog extends Coverage {
  opens: number[];
  /** Orders of ours with an accepted cancel gone from complete open-orders reads: client order id, the first such read's send time. */
  cancelsGone: Map<string, number>;
}

export function newCoverage(): CoverageLog {
  return { caughtUpAt: Number.NEGATIVE_INFINITY, settledOpenAt: Number.NEGATIVE_INFINITY, opens: [], cancelsGone: new Map() };
}

/** Notes a pass's reads: a complete open-orders read sent at `openAt`, a trades read to the end sent at `caughtUpAt`. */
export function coverReads(c: CoverageLog, reads: { openAt: number | undefined; caughtUpAt: number | undefined }, graceMs: number): void {
  if (reads.openAt !== undefined) c.opens.push(reads.openAt);
  if (reads.caughtUpAt !== undefined) c.caughtUpAt = reads.caughtUpAt;
  while (c.opens.length > 0 && c.opens[0]! <= c.caughtUpAt - graceMs) c.settledOpenAt = c.opens.shift()!;
}

/**
 * Unknown orders to give up: unmatched for `afterMs` since they became unknown, with a complete
 * open-orders read made after that and settled (`settledOpenAt`). An order the venue took shows
 * by then: resting in that read, or traded in a trades read made graceMs after it (a fill just
 * before the read may show late). One that shows in neither was never placed. It is final for
 * us and never sent again: its strategy decides what to do.
 */
export function unknownsToGiveUp(unknowns: readonly Order[], coverage: Coverage, now: number, afterMs: number): Order[] {
  return unknowns.filter((o) => {
    const deadline = o.updatedAt + afterMs;
    return now >= deadline && coverage.settledOpenAt >= deadline;
  });
}
