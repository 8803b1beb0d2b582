// Trades into fills, and fills into order state, as pure functions.
import { dec, type Decimal } from '../core/decimal.js';
import type { VenueOrderId } from '../core/ids.js';
import { FINAL_STATUSES, type Fill, type Market, type Order } from '../core/types.js';
import type { VenueTrade } from '../core/venue.js';

/**
 * The venue id of our side of a trade item: the one it names, else the bid for a buyer, the ask
 * for a seller. A self-trade is listed once per side (each item its own isBuyer, fee and maker
 * flag), so each item is exactly one of our fills.
 */
export function ownOrderId(t: VenueTrade): VenueOrderId | undefined {
  return t.orderId ?? (t.isBuyer ? t.bidId : t.askId);
}

/** The fill a trade item is, for our order `venueOrderId`. */
export function toFill(t: VenueTrade, market: Market, symbol: string, venueOrderId: VenueOrderId): Fill {
  return {
    tradeId: t.tradeId,
    market,
    symbol,
    venueOrderId,
    side: t.isBuyer ? 'BUY' : 'SELL',
    price: t.price,
    volume: t.qty,
    fee: t.fee,
    feeAsset: t.feeCoin,
    isMaker: t.isMaker,
    time: t.time,
  };
}

/** A spot market buy's volume is a quote amount: its fills cannot tell when it is done. */
export function quoteSized(o: Pick<Order, 'market' | 'type' | 'side'>): boolean {
  return o.market === 'spot' && o.type === 'MARKET' && o.side === 'BUY';
}

/**
 * The order once `filled` (the sum of its journaled fills) is known, or undefined when that
 * changes nothing. Executed volume never goes backwards (a venue answer may already have raised
 * it: the larger wins, never the sum). A fill that completes it makes it filled, even one that
 * shows after a cancel settled it; a pending cancel stays pending until the venue settles it.
 */
export function afterFills(order: Order, filled: Decimal, now: number): Order | undefined {
  const executedVolume = dec.max(order.executedVolume, filled);
  if (dec.eq(executedVolume, order.executedVolume) || quoteSized(order)) return undefined;
  const complete = dec.gte(executedVolume, order.volume);
  let status = order.status;
  if (complete && order.status !== 'rejected') status = 'filled';
  else if (!FINAL_STATUSES.has(order.status) && order.status !== 'pending_cancel') status = 'partially_filled';
  return { ...order, executedVolume, status, updatedAt: now };
}
