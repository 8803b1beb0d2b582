// What one read of a symbol's open orders says about our orders, as a pure function.
import { amend } from '../core/amend.js';
import { dec } from '../core/decimal.js';
import type { VenueOrderId } from '../core/ids.js';
import type { OpenOrdersPage } from '../core/ports.js';
import { FINAL_STATUSES, type Order } from '../core/types.js';
import type { VenueOrder } from '../core/venue.js';

export interface OrderChange {
  order: Order;
  reason: string;
}

export interface OpenOrdersInput {
  /** Our orders in this symbol that are not final. */
  ours: readonly Order[];
  page: OpenOrdersPage;
  /**
   * When the page was asked for (our clock). `ours` is read from the journal after the page's
   * answer, so an order acknowledged (or otherwise changed) since may have reached the venue
   * after the page was taken: its absence from that page proves nothing.
   */
  askedAt: number;
  /** Whether a cancel the venue took for this order may still be under way when the page was asked for (settle.ts cancelInProgress). */
  cancelling(order: Order): boolean;
  /** Any journal order by venue id (final ones too) in this market and symbol. */
  byVenueId(id: VenueOrderId): Order | undefined;
  /** Any journal order by client order id. */
  byClientId(id: string): Order | undefined;
  now: number;
}

export interface OpenOrdersResult {
  /** When the page was asked for (our clock). */
  askedAt: number;
  /** Orders whose status, executed volume or venue id the venue's list changes. */
  changes: OrderChange[];
  /** On the venue, and no journal order claims it: an order of ours still unresolved, or foreign. */
  unclaimed: VenueOrder[];
  /** Ours with a venue id, missing from a complete page, unchanged since it was asked for: they left the book (how, is for settle). */
  absent: Order[];
  /** Ours with a venue id, missing from an incomplete page: they may simply be beyond it. */
  unseen: Order[];
}

/**
 * Matches the venue's open orders to ours by venue id, or by client order id where the venue
 * echoes it (our ids are unique, so an echo of one is that order, even one we had given up).
 */
export function readOpenOrders(input: OpenOrdersInput): OpenOrdersResult {
  const { page, now } = input;
  const ourByVenueId = new Map<string, Order>();
  for (const o of input.ours) if (o.venueOrderId) ourByVenueId.set(o.venueOrderId, o);
  const seen = new Set<string>(page.skipped.flatMap((s) => (s.key ? [s.key] : [])));
  const changes: OrderChange[] = [];
  const unclaimed: VenueOrder[] = [];
  for (const v of page.items) {
    seen.add(v.orderId);
    const known = ourByVenueId.get(v.orderId) ?? input.byVenueId(v.orderId) ?? echoed(v, input);
    if (!known) {
      unclaimed.push(v);
      continue;
    }
    // Changed at or after the read was sent (a cancel the venue accepted, a fill, an answer): the
    // page is older than what we know, and its NEW would undo a pending cancel or a fill. The
    // next pass's page judges it.
    if (known.updatedAt >= input.askedAt) continue;
    const executedVolume = dec.max(known.executedVolume, v.executedQty);
    const listedOpen = v.status === 'open' || v.status === 'partially_filled';
    const cancelling = listedOpen && input.cancelling(known);
    const status = cancelling ? 'pending_cancel' : v.status === 'open' && dec.isPositive(executedVolume) ? 'partially_filled' : v.status;
    if (known.venueOrderId === v.orderId && known.status === status && dec.eq(known.executedVolume, executedVolume)) continue;
    const reason = known.status === 'unknown' ? 'found open on the venue' : FINAL_STATUSES.has(known.status) ? 'open on the venue after it was given up' : 'venue open orders';
    changes.push({ order: amend(known, { venueOrderId: v.orderId, status, executedVolume, updatedAt: now }), reason });
  }
  const absent: Order[] = [];
  const unseen: Order[] = [];
  for (const o of input.ours) {
    if (!o.venueOrderId || seen.has(o.venueOrderId)) continue;
    // Changed at or after the read was sent (an answer to its place, a cancel's): the venue may
    // have taken it after the page was taken. The next pass's page judges it.
    if (o.updatedAt >= input.askedAt) continue;
    (page.complete ? absent : unseen).push(o);
  }
  return { askedAt: input.askedAt, changes, unclaimed, absent, unseen };
}

function echoed(v: VenueOrder, input: OpenOrdersInput): Order | undefined {
  if (!v.clientOrderId) return undefined;
  const o = input.byClientId(v.clientOrderId);
  // Claimed under another venue id already: the echo is someone else's reuse of the id.
  return o && !o.venueOrderId ? o : o?.venueOrderId === v.orderId ? o : undefined;
}
