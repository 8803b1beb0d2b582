// Small pure helpers for turning intents and venue answers into Order records.
import { dec, ZERO } from '../core/decimal.js';
import type { VenueOrderId } from '../core/ids.js';
import type { Order, OrderStatus, PlaceIntent } from '../core/types.js';
import type { VenueOrder } from '../core/venue.js';

export function pendingOrder(intent: PlaceIntent, now: number): Order {
  const order: Order = {
    clientOrderId: intent.clientOrderId,
    strategyId: intent.strategyId,
    market: intent.market,
    symbol: intent.symbol,
    side: intent.side,
    type: intent.type,
    volume: intent.volume,
    executedVolume: ZERO,
    status: 'pending',
    createdAt: now,
    updatedAt: now,
  };
  if (intent.price !== undefined) order.price = intent.price;
  if (intent.open !== undefined) order.open = intent.open;
  if (intent.positionType !== undefined) order.positionType = intent.positionType;
  return order;
}

/** The order as the venue describes it; executed volume never goes backwards. */
export function mergeVenueOrder(order: Order, venue: VenueOrder, now: number): Order {
  const executedVolume = dec.max(order.executedVolume, venue.executedQty);
  return {
    ...order,
    venueOrderId: venue.orderId,
    executedVolume,
    avgPrice: venue.avgPrice && !dec.isZero(venue.avgPrice) ? venue.avgPrice : order.avgPrice,
    status: venue.status,
    updatedAt: now,
  };
}

export function withStatus(order: Order, status: OrderStatus, now: number, venueOrderId?: VenueOrderId): Order {
  return { ...order, status, updatedAt: now, ...(venueOrderId ? { venueOrderId } : {}) };
}

export function remaining(order: Order): ReturnType<typeof dec.sub> {
  return dec.sub(order.volume, order.executedVolume);
}
