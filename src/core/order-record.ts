// One shape for every Order: each member present, in one order, undefined where absent. Orders
// are the engine's most-read objects (the reconciler's pass reads each of them every pass), and
// V8 gives objects a hidden class per set and order of members: built three ways with optional
// members set or left out, they came in many classes, so the code reading them kept
// deoptimizing and being compiled again (the reconciler's pass, 150 ms a compile, three times a
// backtest). Built as amend() builds (Object.assign into a fresh object), so an order amended
// later, which gains no member, keeps the same class.
import { amend } from './amend.js';
import type { Order } from './types.js';

export function orderRecord(o: Order): Order {
  return amend({}, {
    clientOrderId: o.clientOrderId,
    venueOrderId: o.venueOrderId,
    strategyId: o.strategyId,
    market: o.market,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    volume: o.volume,
    price: o.price,
    executedVolume: o.executedVolume,
    avgPrice: o.avgPrice,
    status: o.status,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    open: o.open,
    positionType: o.positionType,
  });
}
