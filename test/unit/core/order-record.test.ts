// Every Order has one hidden class, however it was made (src/core/order-record.ts): the
// reconciler's pass reads every order each pass, and orders of many classes kept its compiled
// code deoptimizing. Checked on this V8 with its own test of maps.
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { Decimal } from '../../../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../../../src/core/ids.js';
import type { Order, PlaceIntent } from '../../../src/core/types.js';
import { pendingOrder, withStatus } from '../../../src/engine/orders.js';
import { adoptedOrder } from '../../../src/reconciler/foreign.js';
import { toOrder, type OrderRow } from '../../../src/store/statements.js';

setFlagsFromString('--allow-natives-syntax');
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const d = (s: string) => s as Decimal;
const intent = (more: Partial<PlaceIntent>): PlaceIntent => ({ kind: 'place', intentId: 'i1', strategyId: 's1', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.01'), clientOrderId: 's1-1' as ClientOrderId, ...more });
const row = (more: Partial<OrderRow>): OrderRow => ({
  client_order_id: 's1-2', intent: 1, venue_order_id: null, strategy: 's1', market: 'spot', symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', volume: '0.01', price: null,
  executed_volume: '0', avg_price: null, status: 'pending', updated_at: 5, created_at: 5, open: null, position_type: null, ...more,
});

describe('orderRecord', () => {
  const made: [string, Order][] = [
    ['a pending market order', pendingOrder(intent({ type: 'MARKET' }), 1)],
    ['a pending limit order', pendingOrder(intent({ price: d('30000') }), 1)],
    ['a pending futures order', pendingOrder(intent({ market: 'futures', price: d('30000'), open: 'OPEN', positionType: 1 }), 1)],
    ['a journal row without a venue id', toOrder(row({}))],
    ['a journal row with everything', toOrder(row({ venue_order_id: '77', price: '30000', avg_price: '29999', status: 'filled', open: 'CLOSE', position_type: 2 }))],
    ['an adopted order', adoptedOrder({ orderId: '88' as VenueOrderId, symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('1'), origQty: d('1'), executedQty: d('0'), status: 'open', venueStatus: 'NEW' }, 'spot', ['s1'], 3).order],
    ['an adopted market order', adoptedOrder({ orderId: '89' as VenueOrderId, symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', origQty: d('1'), executedQty: d('0'), status: 'open', venueStatus: 'NEW' }, 'spot', ['s1'], 3).order],
    ['a pending order given its venue id', withStatus(pendingOrder(intent({}), 1), 'open', 2, '99' as VenueOrderId)],
  ];

  it('orders made every way share one hidden class', () => {
    const [, first] = made[0]!;
    expect(made.filter(([, o]) => !sameMap(o, first)).map(([how]) => how)).toEqual([]);
  });

  it('keeps what each was made with: the members it lacks are undefined', () => {
    expect(made[0]![1]).toMatchObject({ clientOrderId: 's1-1', type: 'MARKET', status: 'pending', executedVolume: '0', createdAt: 1 });
    expect(made[0]![1].price).toBeUndefined();
    expect(made[2]![1]).toMatchObject({ market: 'futures', price: '30000', open: 'OPEN', positionType: 1 });
    expect(made[4]![1]).toMatchObject({ venueOrderId: '77', price: '30000', avgPrice: '29999', status: 'filled', open: 'CLOSE', positionType: 2 });
    expect(made[3]![1].venueOrderId).toBeUndefined();
    expect(made[5]![1]).toMatchObject({ venueOrderId: '88', price: '1', strategyId: 'adopted' });
    expect(made[7]![1]).toMatchObject({ venueOrderId: '99', status: 'open', updatedAt: 2 });
  });
});
