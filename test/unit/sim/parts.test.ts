// The simulator's small parts: price-time priority, exact unit conversion, big ids in bodies,
// the latency distributions and the rolling window's edges.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { OrderBook } from '../../../src/sim/book.js';
import { Faults, NO_FAULTS } from '../../../src/sim/faults.js';
import { parseBody } from '../../../src/sim/json.js';
import { RateLimiter } from '../../../src/sim/limits.js';
import { queryParams } from '../../../src/sim/params.js';
import { fromUnits, toUnits, toUnitsBig } from '../../../src/sim/units.js';

describe('OrderBook', () => {
  it('matches best price first, then earliest at a price', () => {
    const b = new OrderBook();
    b.rest({ id: 'late', owner: 'x', side: 'SELL', priceTicks: 100, lots: 5, seq: 2 });
    b.rest({ id: 'early', owner: 'x', side: 'SELL', priceTicks: 100, lots: 5, seq: 1 });
    b.rest({ id: 'better', owner: 'x', side: 'SELL', priceTicks: 99, lots: 1, seq: 3 });
    b.rest({ id: 'worse', owner: 'x', side: 'SELL', priceTicks: 101, lots: 9, seq: 0 });
    const fills: string[] = [];
    const n = b.match({ id: 't', owner: 'y', side: 'BUY', limitTicks: 100, lots: 8 }, (maker, priceTicks, lots) => fills.push(`${maker.id}@${priceTicks}x${lots}`));
    expect(n).toBe(8);
    expect(fills).toEqual(['better@99x1', 'early@100x5', 'late@100x2']);
    expect(b.levels('SELL', 10)).toEqual([
      [100, 3],
      [101, 9],
    ]);
    expect(b.get('early')).toBeUndefined();
  });

  it('restAll puts newer orders among a side as rest() of each in turn does', () => {
    const order = fc.record({ priceTicks: fc.integer({ min: 1, max: 20 }), lots: fc.integer({ min: 1, max: 9 }) });
    fc.assert(
      fc.property(fc.constantFrom('BUY', 'SELL'), fc.array(order, { maxLength: 8 }), fc.array(order, { maxLength: 12 }), (side, resting, quotes) => {
        const older = resting.map((o, i) => ({ ...o, id: `own${i}`, owner: 'acct', side, seq: i }));
        // Best first, as a tape's book gives them; newer than every order already there.
        const newer = quotes
          .map((o) => o.priceTicks)
          .sort((a, b) => (side === 'BUY' ? b - a : a - b))
          .map((priceTicks, i) => ({ priceTicks, lots: quotes[i]!.lots, id: `q${i}`, owner: '~others', side, seq: 100 + i }));
        const oneByOne = new OrderBook();
        const merged = new OrderBook();
        for (const o of older) {
          oneByOne.rest({ ...o });
          merged.rest({ ...o });
        }
        for (const o of newer) oneByOne.rest({ ...o }, false);
        merged.restAll(side, newer.map((o) => ({ ...o })));
        const ids = (b: OrderBook) => (side === 'BUY' ? b.bids : b.asks).map((o) => o.id);
        expect(ids(merged)).toEqual(ids(oneByOne));
        expect(ids(merged)).toHaveLength(older.length + newer.length);
      }),
      { numRuns: 500 },
    );
  });

  it('a MARKET BUY with a budget stops when the budget buys no more lots', () => {
    const b = new OrderBook();
    b.rest({ id: 'a', owner: 'x', side: 'SELL', priceTicks: 10, lots: 3, seq: 1 });
    b.rest({ id: 'b', owner: 'x', side: 'SELL', priceTicks: 20, lots: 3, seq: 2 });
    let budget = 75;
    const n = b.match({ id: 't', owner: 'y', side: 'BUY', lots: Number.MAX_SAFE_INTEGER, cap: (p) => Math.floor(budget / p) }, (_, priceTicks, lots) => (budget -= priceTicks * lots));
    expect([n, budget]).toEqual([5, 5]);
  });
});

describe('units', () => {
  it('round-trips integers and decimals exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 12 }), (n, places) => {
        expect(toUnitsBig(fromUnits(n, places), places)).toBe(n);
      }),
    );
    fc.assert(fc.property(fc.maxSafeInteger(), fc.integer({ min: 0, max: 12 }), (n, places) => {
        expect(toUnits(fromUnits(n, places), places)).toBe(n);
      }),
    );
    expect(fromUnits(3001234, 2)).toBe('30012.34');
    expect(fromUnits(5, 5)).toBe('0.00005');
    expect(fromUnits(100, 2)).toBe('1');
    expect(toUnits(d('0.001'), 2)).toBeUndefined();
  });
});

describe('parseBody', () => {
  it('keeps the digits of ids beyond 2^53 given as JSON numbers, and leaves strings alone', () => {
    expect(parseBody('{"orderIds":[165964665990709251,12,"165964665990709252"],"s":"x 1234567890123456789"}')).toEqual({
      orderIds: ['165964665990709251', 12, '165964665990709252'],
      s: 'x 1234567890123456789',
    });
    expect(() => parseBody('{"a":')).toThrow(SyntaxError);
  });
});

describe('queryParams', () => {
  it('reads a query as URLSearchParams does (first value of a name wins), escaped or not', () => {
    const viaUrl = (q: string) => {
      const out: Record<string, string> = {};
      for (const [k, v] of new URLSearchParams(q)) if (!(k in out)) out[k] = v;
      return out;
    };
    const part = fc.oneof(fc.constantFrom('symbol', 'limit', 'a', '=', '&', '%41', '%', '+', ' ', '?', 'toString', 'é', '\ud800', '100', 'BTCUSDT'), fc.string({ maxLength: 4 }));
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), (parts) => {
        const q = parts.join('');
        expect(queryParams(q)).toEqual(viaUrl(q));
      }),
      { numRuns: 3000 },
    );
    expect(queryParams('symbol=BTCUSDT&limit=5&limit=6&flag&&x=a=b')).toEqual({ symbol: 'BTCUSDT', limit: '5', flag: '', x: 'a=b' });
  });
});

describe('faults', () => {
  it('latency stays within [min, max] for both shapes; exponential is skewed to the low end', () => {
    for (const shape of ['uniform', 'exponential'] as const) {
      const f = new Faults(7, { ...NO_FAULTS, latencyMs: { min: 10, max: 200, shape } });
      const xs = Array.from({ length: 2000 }, () => f.draw().latencyIn);
      expect(Math.min(...xs)).toBeGreaterThanOrEqual(10);
      expect(Math.max(...xs)).toBeLessThanOrEqual(200);
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      if (shape === 'uniform') expect(mean).toBeGreaterThan(90);
      else expect(mean).toBeLessThan(80);
    }
  });

  it('a rate changes only its own fault: the draws of the others stay put', () => {
    const a = new Faults(3, { ...NO_FAULTS, resetRate: 0.5 });
    const b = new Faults(3, { ...NO_FAULTS, resetRate: 0.5, error5xxRate: 0.5 });
    const resetsA = Array.from({ length: 200 }, () => a.draw().reset);
    const resetsB = Array.from({ length: 200 }, () => b.draw().reset);
    expect(resetsB).toEqual(resetsA);
  });
});

describe('RateLimiter', () => {
  it('holds exactly `limit` in any 2 s window, and bans after the allowed violations', () => {
    const r = new RateLimiter({ violations: 1, violationWindowMs: 10_000, banMs: 5000 });
    for (let i = 0; i < 3; i++) expect(r.admit('k', 'e', 3, 1000 + i, ['k'])).toEqual({ ok: true });
    expect(r.admit('k', 'e', 3, 2999, ['k'])).toEqual({ ok: false, kind: 'limited', retryAfterMs: 1 });
    expect(r.admit('k', 'e', 3, 3000, ['k'])).toEqual({ ok: true });
    expect(r.admit('k', 'e', 3, 3000, ['k'])).toEqual({ ok: false, kind: 'banned', until: 8000 });
    expect(r.bannedUntil(['k'], 7999)).toBe(8000);
    expect(r.bannedUntil(['k'], 8000)).toBe(0);
  });
});
