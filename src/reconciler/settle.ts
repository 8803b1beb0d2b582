// The final state of an order that left the venue's book, from evidence where there is enough
// and from one order query where there is not, as pure functions.
import { amend } from '../core/amend.js';
import { dec, type Decimal } from '../core/decimal.js';
import type { Journal } from '../core/ports.js';
import type { Order } from '../core/types.js';
import type { VenueOrder } from '../core/venue.js';
import type { OrderChange } from './open-orders.js';
import { quoteSized } from './fills.js';
import type { CoverageLog } from './unknown.js';

/**
 * An order of ours missing from a complete open-orders read (after this pass's fills):
 * - its fills cover its volume: filled;
 * - its cancel was accepted (pending_cancel): cancelled, with what it executed, once its fills
 *   have all shown (`fillsShown`, see cancelsShown); until then it waits. A cancel answered
 *   "already ended" usually means filled, and the venue may show that fill up to drift.graceMs
 *   late: cancelled before, the strategy would hear nothing executed, and a futures close held
 *   behind it would go and close the position twice;
 * - otherwise (a venue-side cancel or expiry, or fills still to show): ask the venue.
 */
export function settleAbsent(order: Order, filled: Decimal, now: number, fillsShown: boolean): OrderChange | 'query' | 'wait' {
  if (quoteSized(order)) return 'query';
  const executedVolume = dec.max(order.executedVolume, filled);
  if (dec.gte(executedVolume, order.volume)) return { order: { ...order, executedVolume, status: 'filled', updatedAt: now }, reason: 'left the book with its volume filled' };
  if (order.status === 'pending_cancel') {
    return fillsShown ? { order: { ...order, executedVolume, status: 'canceled', updatedAt: now }, reason: 'cancel settled (left the book)' } : 'wait';
  }
  return 'query';
}

/**
 * Notes this pass's orders with an accepted cancel gone from its complete open-orders read (sent
 * at `askedAt`) and returns the ones whose fills have all shown: gone from a read that a trades
 * read to the end, sent drift.graceMs after it, covers (coverage.settledOpenAt). An order not gone
 * this pass (listed again, ended, or the read incomplete) is forgotten: its wait starts afresh.
 */
export function cancelsShown(coverage: CoverageLog, gone: readonly Order[], askedAt: number): Set<string> {
  const since = new Map(gone.map((o) => [o.clientOrderId as string, coverage.cancelsGone.get(o.clientOrderId) ?? askedAt]));
  coverage.cancelsGone = since;
  return new Set([...since].filter(([, at]) => at <= coverage.settledOpenAt).map(([id]) => id));
}

/**
 * Whether a cancel the venue took for `order` may still be under way at `at`: taken (the start
 * of its latest run of pending_cancel in the journal, which its fills do not move) less than
 * drift.graceMs before. The venue cancels asynchronously (the notes), so until then a page or a
 * query may still say open; after it, an order still open is one whose cancel did not take.
 */
export function cancelInProgress(journal: Pick<Journal, 'history'>, order: Order, at: number, graceMs: number): boolean {
  if (order.status !== 'pending_cancel') return false;
  const events = journal.history(order.clientOrderId);
  let takenAt = order.updatedAt;
  for (let i = events.length - 1; i >= 0 && events[i]!.status === 'pending_cancel'; i--) takenAt = events[i]!.at;
  return takenAt >= at - graceMs;
}

/**
 * The order as the venue's answer to a query describes it; executed volume never goes backwards,
 * and a cancel still under way (`cancelling`, see cancelInProgress) is not undone by an answer
 * that still says open.
 */
export function mergeVenueOrder(order: Order, venue: VenueOrder, now: number, cancelling = false): Order {
  const executedVolume = dec.max(order.executedVolume, venue.executedQty);
  const stillOpen = venue.status === 'open' || venue.status === 'partially_filled';
  return amend(order, {
    venueOrderId: venue.orderId,
    executedVolume,
    avgPrice: venue.avgPrice && !dec.isZero(venue.avgPrice) ? venue.avgPrice : order.avgPrice,
    status: stillOpen && cancelling ? 'pending_cancel' : venue.status === 'open' && dec.isPositive(executedVolume) ? 'partially_filled' : venue.status,
    updatedAt: now,
  });
}

/**
 * The venue no longer knows an order it once acknowledged (-2013: purged after it ended). It is
 * final: filled when its fills cover it, cancelled otherwise. Never asked again.
 */
export const PURGED_REASON = 'the venue no longer knows it (-2013): ended';

export function settlePurged(order: Order, filled: Decimal, now: number): OrderChange {
  const executedVolume = dec.max(order.executedVolume, filled);
  // A market buy sized in quote ends once it bought what it could: any fill means it ran.
  const done = quoteSized(order) ? dec.isPositive(executedVolume) : dec.gte(executedVolume, order.volume);
  const status = done ? 'filled' : 'canceled';
  return { order: { ...order, executedVolume, status, updatedAt: now }, reason: PURGED_REASON };
}
