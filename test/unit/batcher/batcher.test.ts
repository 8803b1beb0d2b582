import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { Market, OrderIntent } from '../../../src/core/types.js';
import { planDispatch, toBatches } from '../../../src/batcher/index.js';

const place = (n: number, symbol = 'BTCUSDT', market: Market = 'spot'): OrderIntent => ({
  kind: 'place',
  intentId: `i${n}`,
  clientOrderId: `slt-${n}` as ClientOrderId,
  strategyId: 't',
  market,
  symbol,
  side: 'BUY',
  type: 'LIMIT',
  volume: d('1'),
  price: d('1'),
});
const cancel = (n: number, symbol = 'BTCUSDT'): OrderIntent => ({ kind: 'cancel', intentId: `c${n}`, clientOrderId: `slt-${n}` as ClientOrderId, strategyId: 't', market: 'spot', symbol });

describe('toBatches', () => {
  it('groups by symbol and kind, first seen first, at most 10, in order', () => {
    const intents = [...Array.from({ length: 12 }, (_, i) => place(i)), place(100, 'ETHUSDT'), cancel(1)];
    const batches = toBatches(intents);
    expect(batches.map((b) => `${b.symbol}:${b.kind}:${b.items.map((i) => i.intentId).join(',')}`)).toEqual([
      'BTCUSDT:place:i0,i1,i2,i3,i4,i5,i6,i7,i8,i9',
      'BTCUSDT:place:i10,i11',
      'ETHUSDT:place:i100',
      'BTCUSDT:cancel:c1',
    ]);
  });

  it('futures intents travel one by one (no batch endpoint)', () => {
    expect(toBatches([place(1, 'E-BTC-USDT', 'futures'), place(2, 'E-BTC-USDT', 'futures')]).map((b) => b.items.length)).toEqual([1, 1]);
  });
});

describe('planDispatch', () => {
  it('uses both endpoints under saturation and leaves the rest waiting', () => {
    const batches = toBatches(Array.from({ length: 35 }, (_, i) => place(i)));
    const plan = planDispatch(batches, { single: 3, batch: 2 });
    expect(plan.send.map((b) => b.items.length)).toEqual([10, 10, 1, 1, 1]);
    expect(plan.send.slice(2).map((b) => b.items[0]!.intentId)).toEqual(['i20', 'i21', 'i22']);
    expect(plan.wait.map((i) => i.intentId)).toEqual(Array.from({ length: 12 }, (_, k) => `i${23 + k}`));
  });

  it('sends a small batch as singles when single capacity is free', () => {
    const plan = planDispatch(toBatches([place(1), place(2)]), { single: 5, batch: 5 });
    expect(plan.send.map((b) => b.items.length)).toEqual([1, 1]);
  });

  it('every intent is sent or waits exactly once; capacity is never exceeded; no batch over 10', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 8 }), (n, single, batch) => {
        const intents = Array.from({ length: n }, (_, i) => place(i, i % 3 ? 'BTCUSDT' : 'ETHUSDT'));
        const plan = planDispatch(toBatches(intents), { single, batch });
        const ids = [...plan.send.flatMap((b) => b.items.map((i) => i.intentId)), ...plan.wait.map((i) => i.intentId)].sort();
        expect(ids).toEqual(intents.map((i) => i.intentId).sort());
        expect(plan.send.filter((b) => b.items.length === 1).length).toBeLessThanOrEqual(single + batch);
        expect(plan.send.filter((b) => b.items.length > 1).length).toBeLessThanOrEqual(batch);
        expect(plan.send.every((b) => b.items.length <= 10)).toBe(true);
        const singles = plan.send.filter((b) => b.items.length === 1).length;
        const multis = plan.send.filter((b) => b.items.length > 1).length;
        expect(singles + multis).toBeLessThanOrEqual(single + batch);
      }),
    );
  });
});
