// reconcileInterval: how often a reconcile pass may run within its share of the read budget.
import { describe, expect, it } from 'vitest';
import type { Market } from '../../../src/core/types.js';
import { reconcileInterval } from '../../../src/reconciler/budget.js';

/** Limits per endpoint id, recording which ones were asked. */
function limits(table: Record<string, number>) {
  const asked: string[] = [];
  const limitOf = (endpoint: string) => {
    asked.push(endpoint);
    const n = table[endpoint];
    if (n === undefined) throw new Error(`no limit for ${endpoint}`);
    return n;
  };
  return { asked, limitOf };
}

const SPOT = { 'spot.openOrders': 20, 'spot.myTrades': 20 };
const FUTURES = { 'futures.openOrders': 20, 'futures.myTrades': 8 };

describe('reconcileInterval', () => {
  it('keeps the configured interval when the budget allows it', () => {
    // 20 per 2 s, half of it: 10 reads per window; 2 symbols need 2 * 2000 / 10 = 400 ms.
    const { asked, limitOf } = limits(SPOT);
    expect(reconcileInterval(2000, 2, ['spot'], limitOf, 0.5)).toBe(2000);
    expect(asked).toEqual(['spot.openOrders', 'spot.myTrades']);
  });

  it('stretches it when the symbols need more of the budget than the share', () => {
    // 30 symbols at 10 reads per window: 30 * 2000 / 10 = 6000 ms.
    expect(reconcileInterval(2000, 30, ['spot'], limits(SPOT).limitOf, 0.5)).toBe(6000);
    // Exactly at the configured interval: 10 symbols need 2000 ms.
    expect(reconcileInterval(2000, 10, ['spot'], limits(SPOT).limitOf, 0.5)).toBe(2000);
    expect(reconcileInterval(2000, 11, ['spot'], limits(SPOT).limitOf, 0.5)).toBe(2200);
  });

  it('takes the tightest limit of every market traded', () => {
    // futures.myTrades 8 * 0.5 = 4 per window: 3 symbols need 3 * 2000 / 4 = 1500 ms.
    const { asked, limitOf } = limits({ ...SPOT, ...FUTURES });
    expect(reconcileInterval(1000, 3, new Set<Market>(['spot', 'futures']), limitOf, 0.5)).toBe(1500);
    expect(asked).toEqual(['spot.openOrders', 'spot.myTrades', 'futures.openOrders', 'futures.myTrades']);
  });

  it('rounds reads per window down and the interval up', () => {
    // 7 * 0.5 = 3.5 -> 3 reads per window; 1 symbol: 2000 / 3 = 666.67 -> 667 ms.
    expect(reconcileInterval(100, 1, ['spot'], limits({ 'spot.openOrders': 7, 'spot.myTrades': 7 }).limitOf, 0.5)).toBe(667);
  });

  it('allows at least one read per window, however small the share', () => {
    expect(reconcileInterval(100, 2, ['spot'], limits({ 'spot.openOrders': 1, 'spot.myTrades': 1 }).limitOf, 0.1)).toBe(4000);
  });

  it('with no market or no symbol there is nothing to budget: the configured interval', () => {
    const { asked, limitOf } = limits(SPOT);
    expect(reconcileInterval(2500, 5, [], limitOf, 0.5)).toBe(2500);
    expect(reconcileInterval(2500, 0, ['spot'], limitOf, 0.5)).toBe(2500);
    expect(asked).toEqual(['spot.openOrders', 'spot.myTrades']);
  });

  it('a full share uses the whole limit', () => {
    expect(reconcileInterval(100, 5, ['futures'], limits(FUTURES).limitOf, 1)).toBe(1250);
  });
});
