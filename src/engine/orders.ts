// Small pure helpers for turning intents into Order records.
import { amend } from '../core/amend.js';
import { ZERO } from '../core/decimal.js';
import type { VenueOrderId } from '../core/ids.js';
import type { Order, OrderStatus, PlaceIntent } from '../core/types.js';

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
  if (intent.timeInForce !== undefined) order.timeInForce = intent.timeInForce;
  return order;
}

export function withStatus(order: Order, status: OrderStatus, now: number, venueOrderId?: VenueOrderId): Order {
  return venueOrderId ? amend(order, { status, updatedAt: now, venueOrderId }) : amend(order, { status, updatedAt: now });
}
