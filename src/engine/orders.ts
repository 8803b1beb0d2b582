// Small pure helpers for turning intents into Order records.
import { amend } from '../core/amend.js';
import { ZERO } from '../core/decimal.js';
import { orderRecord } from '../core/order-record.js';
import type { VenueOrderId } from '../core/ids.js';
import type { Order, OrderStatus, PlaceIntent } from '../core/types.js';

export function pendingOrder(intent: PlaceIntent, now: number): Order {
  return orderRecord({
    clientOrderId: intent.clientOrderId,
    strategyId: intent.strategyId,
    market: intent.market,
    symbol: intent.symbol,
    side: intent.side,
    type: intent.type,
    volume: intent.volume,
    price: intent.price,
    executedVolume: ZERO,
    status: 'pending',
    createdAt: now,
    updatedAt: now,
    open: intent.open,
    positionType: intent.positionType,
  });
}

export function withStatus(order: Order, status: OrderStatus, now: number, venueOrderId?: VenueOrderId): Order {
  return venueOrderId ? amend(order, { status, updatedAt: now, venueOrderId }) : amend(order, { status, updatedAt: now });
}
