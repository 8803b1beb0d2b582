import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { Batch, Market, OrderIntent } from '../../../src/core/types.js';
import { mostPerRound, planDispatch, planRound, toBatches, type DispatchPlan } from '../../../src/batcher/index.js';

const place = (n: number | string, symbol = 'BTCUSDT', market: Market = 'spot'): OrderIntent => ({
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
const places = (n: number, symbol = 'BTCUSDT', from = 0) => Array.from({ length: n }, (_, k) => place(`${symbol}${from + k}`, symbol));

const ids = (b: Batch) => b.items.map((i) => i.intentId).join(',');
const sizes = (bs: readonly Batch[]) => bs.map((b) => b.items.length);

describe('toBatches', () => {
  it('groups by symbol and kind, first seen first, at most 10, in order', () => {
    const intents = [...Array.from({ length: 12 }, (_, i) => place(i)), place(100, 'ETHUSDT'), cancel(1), place(12)];
    expect(toBatches(intents).map((b) => `${b.symbol}:${b.kind}:${ids(b)}`)).toEqual([
      'BTCUSDT:place:i0,i1,i2,i3,i4,i5,i6,i7,i8,i9',
      'BTCUSDT:place:i10,i11,i12',
      'ETHUSDT:place:i100',
      'BTCUSDT:cancel:c1',
    ]);
  });

  it('futures intents travel one by one (the futures API has no batch endpoints)', () => {
    expect(sizes(toBatches([place(1, 'E-BTC-USDT', 'futures'), place(2, 'E-BTC-USDT', 'futures')]))).toEqual([1, 1]);
  });

  it('a smaller maximum; nothing in, nothing out; a maximum outside 1..10 is a programming error', () => {
    expect(sizes(toBatches(places(7), 3))).toEqual([3, 3, 1]);
    expect(toBatches([])).toEqual([]);
    expect(() => toBatches(places(1), 11)).toThrow(RangeError);
    expect(() => toBatches(places(1), 0)).toThrow(RangeError);
  });
});

describe('planDispatch', () => {
  it('under saturation uses both endpoints, then leaves the rest waiting in order', () => {
    const plan = planDispatch(toBatches(places(35, 'X')), { single: 3, batch: 2 });
    expect(sizes(plan.viaBatch)).toEqual([10, 10]);
    expect(plan.viaSingle.map((i) => i.intentId)).toEqual(['iX20', 'iX21', 'iX22']);
    expect(plan.leftover.map(ids)).toEqual([places(10, 'X', 23).map((i) => i.intentId).join(','), 'iX33,iX34']);
  });

  it('reaches the venue ceiling: 100 singles + 50 batches of 10 = 600 orders per 2 s window', () => {
    const plan = planDispatch(toBatches(places(700, 'X')), { single: 100, batch: 50 });
    expect(plan.viaBatch.length).toBe(50);
    expect(plan.viaSingle.length).toBe(100);
    expect(plan.leftover.flatMap((b) => b.items).length).toBe(100);
  });

  it('sends a small batch as singles when single capacity is free', () => {
    const plan = planDispatch(toBatches([...places(1, 'X'), ...places(5, 'Y')]), { single: 6, batch: 5 });
    expect(plan.viaBatch).toEqual([]);
    expect(plan.viaSingle.map((i) => i.intentId)).toEqual(['iX0', 'iY0', 'iY1', 'iY2', 'iY3', 'iY4']);
  });

  it('a batch of one uses the batch endpoint only when no single is free', () => {
    const plan = planDispatch(toBatches(places(1, 'X')), { single: 0, batch: 1 });
    expect(sizes(plan.viaBatch)).toEqual([1]);
  });

  it('gives batch requests to the largest groups and singles to the small ones', () => {
    // Singles in input order would send X's 9 as 1 single + (8 as a batch) and leave Y waiting.
    const plan = planDispatch(toBatches([...places(9, 'X'), ...places(1, 'Y')]), { single: 1, batch: 1 });
    expect(plan.viaBatch.map(ids)).toEqual([places(9, 'X').map((i) => i.intentId).join(',')]);
    expect(plan.viaSingle.map((i) => i.intentId)).toEqual(['iY0']);
    expect(plan.leftover).toEqual([]);
  });

  it('futures never uses the batch endpoint', () => {
    const futures = [1, 2, 3].map((n) => place(n, 'E-BTC-USDT', 'futures'));
    const plan = planDispatch(toBatches(futures), { single: 2, batch: 5 });
    expect(plan.viaBatch).toEqual([]);
    expect(plan.viaSingle.map((i) => i.intentId)).toEqual(['i1', 'i2']);
    expect(plan.leftover.map(ids)).toEqual(['i3']);
  });

  it('no capacity: everything waits; odd capacity figures count as whole and non-negative', () => {
    expect(planDispatch(toBatches(places(12, 'X')), { single: 0, batch: 0 }).leftover.map((b) => b.items.length)).toEqual([10, 2]);
    const odd = planDispatch(toBatches(places(3, 'X')), { single: 1.9, batch: -2 });
    expect(odd.viaSingle.length).toBe(1);
    expect(odd.viaBatch).toEqual([]);
    expect(planDispatch(toBatches(places(3, 'X')), { single: Number.NaN, batch: 0 }).viaSingle).toEqual([]);
  });

});

/** The most intents any plan could send: try every split of batch requests over the groups. */
function bruteForceBest(groups: { size: number; batchable: boolean }[], single: number, batch: number): number {
  const total = groups.reduce((n, g) => n + g.size, 0);
  let best = 0;
  const visit = (k: number, batchesLeft: number, carried: number) => {
    if (k === groups.length) {
      best = Math.max(best, carried + Math.min(single, total - carried));
      return;
    }
    const g = groups[k]!;
    for (let b = 0; b <= (g.batchable ? batchesLeft : 0); b++) visit(k + 1, batchesLeft - b, carried + Math.min(g.size, 10 * b));
  };
  visit(0, batch, 0);
  return best;
}

describe('a round over every kind', () => {
  const free = (room: Record<string, number>) => (endpoint: string) => room[endpoint] ?? 0;

  it('a group needs no more of its oldest than its own endpoints can take now, whatever the others have free', () => {
    const room = free({ 'spot.order': 3, 'spot.batchOrders': 2, 'spot.cancel': 100, 'spot.batchCancel': 50, 'futures.order': 7, 'futures.cancel': 20 });
    expect(mostPerRound(place(1), room)).toBe(23);
    expect(mostPerRound(cancel(1), room)).toBe(600);
    expect(mostPerRound(place(1, 'E-BTC-USDT', 'futures'), room)).toBe(7);
    // Places with no place slot free: none, though every cancel slot is free.
    expect(mostPerRound(place(1), free({ 'spot.order': 0, 'spot.batchOrders': -0.5, 'spot.cancel': 100 }))).toBe(0);
  });

  it('sends what a plan over the whole queue sends when it is given only that many of each group', () => {
    const queue = [...places(40), ...places(15, 'ETHUSDT'), cancel(1), cancel(2), place(9, 'E-BTC-USDT', 'futures')];
    const room = free({ 'spot.order': 3, 'spot.batchOrders': 2, 'spot.cancel': 1, 'futures.order': 1 });
    const taken = new Map<string, number>();
    const head = queue.filter((i) => {
      const key = `${i.market}:${i.symbol}:${i.kind}`;
      const n = taken.get(key) ?? 0;
      taken.set(key, n + 1);
      return n < mostPerRound(i, room);
    });
    expect(head.length).toBeLessThan(queue.length);
    expect(planRound(head, room).send).toEqual(planRound(queue, room).send);
  });
});

describe('planDispatch properties', () => {
  const scenario = fc.record({
    groups: fc.array(fc.record({ symbol: fc.constantFrom('A', 'B', 'C', 'F'), n: fc.integer({ min: 1, max: 25 }) }), { maxLength: 4 }),
    single: fc.integer({ min: 0, max: 15 }),
    batch: fc.integer({ min: 0, max: 4 }),
  });
  /** Interleaves symbols so that input order and grouping differ; F is a futures symbol. */
  const intentsOf = (groups: { symbol: string; n: number }[]) =>
    groups.flatMap(({ symbol, n }, g) => Array.from({ length: n }, (_, k) => place(`${symbol}-${g}-${k}`, symbol, symbol === 'F' ? 'futures' : 'spot')));

  it('every intent exactly once; order kept per symbol; no batch over 10; capacity never exceeded; as many sent as any plan could', () => {
    fc.assert(
      fc.property(scenario, ({ groups, single, batch }) => {
        const intents = intentsOf(groups);
        const plan: DispatchPlan = planDispatch(toBatches(intents), { single, batch });
        const sent = [...plan.viaBatch.flatMap((b) => b.items), ...plan.viaSingle];
        const waiting = plan.leftover.flatMap((b) => b.items);
        expect([...sent, ...waiting].map((i) => i.intentId).sort()).toEqual(intents.map((i) => i.intentId).sort());
        expect(plan.viaBatch.length).toBeLessThanOrEqual(batch);
        expect(plan.viaSingle.length).toBeLessThanOrEqual(single);
        for (const b of [...plan.viaBatch, ...plan.leftover]) {
          expect(b.items.length).toBeGreaterThanOrEqual(1);
          expect(b.items.length).toBeLessThanOrEqual(b.market === 'spot' ? 10 : 1);
          expect(b.items.every((i) => i.symbol === b.symbol && i.market === b.market && i.kind === b.kind)).toBe(true);
        }
        expect(plan.viaBatch.every((b) => b.market === 'spot')).toBe(true);
        // Per symbol: what goes now is a prefix of its input order; what waits is the rest, in order.
        for (const symbol of new Set(intents.map((i) => i.symbol))) {
          const mine = intents.filter((i) => i.symbol === symbol).map((i) => i.intentId);
          const now = new Set(sent.filter((i) => i.symbol === symbol).map((i) => i.intentId));
          expect(mine.slice(0, now.size).every((id) => now.has(id))).toBe(true);
          expect(waiting.filter((i) => i.symbol === symbol).map((i) => i.intentId)).toEqual(mine.slice(now.size));
        }
        // Nothing waits while capacity that could carry it is idle.
        if (waiting.length > 0) expect(plan.viaSingle.length).toBe(single);
        // Singles are preferred: a partial batch only when the intents outside full batches outnumber the free singles.
        const outsideFull = intents.length - 10 * plan.viaBatch.filter((b) => b.items.length === 10).length;
        if (plan.viaBatch.some((b) => b.items.length < 10)) expect(outsideFull).toBeGreaterThan(single);
        const bySymbol = new Map<string, number>();
        for (const i of intents) bySymbol.set(i.symbol, (bySymbol.get(i.symbol) ?? 0) + 1);
        const best = bruteForceBest([...bySymbol].map(([s, size]) => ({ size, batchable: s !== 'F' })), single, batch);
        expect(sent.length).toBe(best);
      }),
      { numRuns: 500 },
    );
  });
});
