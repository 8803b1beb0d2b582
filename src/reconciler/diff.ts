// The reconciler's decisions, as a pure function: what the venue says (open orders, new
// trades) against what we think (our orders). I/O lives in the poller.
import { dec, type Decimal } from '../core/decimal.js';
import type { VenueOrderId } from '../core/ids.js';
import type { VenueTrade } from '../core/venue.js';
import { FINAL_STATUSES, type Fill, type Market, type Order } from '../core/types.js';

/** What the venue says about one open order (decoded). */
export interface VenueOpenOrder {
  orderId: VenueOrderId;
  clientOrderId?: string;
  symbol: string;
  executedQty: Decimal;
  status: Order['status'];
}

/** One of the account's trades as the venue reports it. */
export type VenueFill = VenueTrade;

export interface DiffInput {
  market: Market;
  symbol: string;
  /** Our orders in this symbol that are not final, `unknown` and `pending` included. */
  ours: readonly Order[];
  venueOpen: readonly VenueOpenOrder[];
  /** Trades newer than our cursor, in any order. */
  trades: readonly VenueFill[];
  /**
   * Any of our orders by venue id, final ones included: an order can be acknowledged as
   * FILLED before its trades are seen, and those trades are still ours.
   */
  lookup?: (venueOrderId: VenueOrderId) => Order | undefined;
  now: number;
}

export interface OrderChange {
  order: Order;
  reason: string;
}

export interface DiffResult {
  /** Orders whose status or venue id the venue's open list changes. */
  changes: OrderChange[];
  /** Trades that belong to our orders, as fills. */
  fills: Fill[];
  /** Our orders with a venue id that the venue no longer lists as open: query their final state. */
  closedOnVenue: Order[];
  /** Our `unknown` orders the venue does not list: look them up by client order id. */
  unresolved: Order[];
  /** Open on the venue, unknown to us. */
  foreignOrders: VenueOpenOrder[];
  /** Trades of orders we do not know. */
  foreignTrades: VenueFill[];
  /**
   * The highest trade id that may be marked as seen. Trades that might belong to one of our
   * `unknown` orders (whose venue id we do not know yet) hold the cursor back until resolved.
   */
  cursor?: string;
}

/** The venue id of our side of a trade: the bid for a buyer, the ask for a seller. */
export function ownOrderId(t: VenueFill): VenueOrderId | undefined {
  return t.orderId ?? (t.isBuyer ? t.bidId : t.askId);
}

export function diffVenue(input: DiffInput): DiffResult {
  const byVenueId = new Map<string, Order>();
  const byClientId = new Map<string, Order>();
  for (const o of input.ours) {
    if (o.venueOrderId) byVenueId.set(o.venueOrderId, o);
    byClientId.set(o.clientOrderId, o);
  }

  const changes: OrderChange[] = [];
  const seenOpen = new Set<string>();
  const foreignOrders: VenueOpenOrder[] = [];
  for (const v of input.venueOpen) {
    const ours = byVenueId.get(v.orderId) ?? (v.clientOrderId ? byClientId.get(v.clientOrderId) : undefined);
    if (!ours) {
      foreignOrders.push(v);
      continue;
    }
    seenOpen.add(ours.clientOrderId);
    const executedVolume = dec.max(ours.executedVolume, v.executedQty);
    const status = v.status === 'open' && dec.isPositive(executedVolume) ? 'partially_filled' : v.status;
    if (ours.venueOrderId !== v.orderId || ours.status !== status || !dec.eq(ours.executedVolume, executedVolume)) {
      const order: Order = { ...ours, venueOrderId: v.orderId, status, executedVolume, updatedAt: input.now };
      changes.push({ order, reason: ours.status === 'unknown' ? 'found open on the venue' : 'venue open orders' });
      byVenueId.set(v.orderId, order);
    }
  }

  const fills: Fill[] = [];
  const foreignTrades: VenueFill[] = [];
  const hasUnresolved = input.ours.some((o) => o.status === 'unknown' && !o.venueOrderId && !seenOpen.has(o.clientOrderId));
  let cursor: string | undefined;
  let blockedAt: string | undefined;
  for (const t of [...input.trades].sort((a, b) => compareIds(a.tradeId, b.tradeId))) {
    const own = ownOrderId(t);
    const ours = own ? (byVenueId.get(own) ?? input.lookup?.(own)) : undefined;
    if (ours) {
      fills.push({
        tradeId: t.tradeId,
        market: input.market,
        symbol: input.symbol,
        venueOrderId: own!,
        side: t.isBuyer ? 'BUY' : 'SELL',
        price: t.price,
        volume: t.qty,
        fee: t.fee,
        feeAsset: t.feeCoin,
        isMaker: t.isMaker,
        time: t.time,
      });
    } else {
      foreignTrades.push(t);
      if (hasUnresolved && blockedAt === undefined) blockedAt = t.tradeId;
    }
    if (blockedAt === undefined) cursor = t.tradeId;
  }

  const closedOnVenue: Order[] = [];
  const unresolved: Order[] = [];
  for (const o of input.ours) {
    if (seenOpen.has(o.clientOrderId) || FINAL_STATUSES.has(o.status) || o.status === 'pending') continue;
    const current = (o.venueOrderId && byVenueId.get(o.venueOrderId)) || o;
    if (current.venueOrderId) closedOnVenue.push(current);
    else if (current.status === 'unknown') unresolved.push(current);
  }

  return { changes, fills, closedOnVenue, unresolved, foreignOrders, foreignTrades, cursor };
}

/** Numeric comparison of digit-string ids (they exceed 2^53). */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
