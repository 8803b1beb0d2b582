// Properties of the futures engine under random order flow, in both position models: the margin
// coin is conserved (available + locked + position margins - realised PnL + fees never changes),
// locks match open OPEN orders, CLOSE reservations match open CLOSE orders and never exceed the
// position, fills never exceed an order, and the net model keeps one position per contract.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d, dec, ZERO, type Decimal } from '../../../src/core/decimal.js';
import { SimError } from '../../../src/sim/errors.js';
import { SimExchange, USER } from '../../../src/sim/exchange.js';
import { FINAL } from '../../../src/sim/types.js';
import { fromUnits } from '../../../src/sim/units.js';

const CONTRACTS = ['E-BTC-USDT', 'E-ETH-USDT'] as const;
const START = d('100000');

type Op =
  | { kind: 'order'; contract: 0 | 1; side: 'BUY' | 'SELL'; open: 'OPEN' | 'CLOSE'; type: 'LIMIT' | 'MARKET'; offsetTicks: number; lots: number; positionType: 1 | 2 }
  | { kind: 'cancel'; pick: number }
  | { kind: 'tape'; contract: 0 | 1; side: 'BUY' | 'SELL'; offsetTicks: number; lots: number }
  | { kind: 'time'; ms: number };

const contract = fc.constantFrom(0 as const, 1 as const);
const side = fc.constantFrom('BUY' as const, 'SELL' as const);
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('order' as const),
      contract,
      side,
      open: fc.constantFrom('OPEN' as const, 'OPEN' as const, 'CLOSE' as const),
      type: fc.constantFrom('LIMIT' as const, 'MARKET' as const),
      offsetTicks: fc.integer({ min: -40, max: 40 }),
      lots: fc.integer({ min: 1, max: 60 }),
      positionType: fc.constantFrom(1 as const, 2 as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tape' as const), contract, side, offsetTicks: fc.integer({ min: -40, max: 40 }), lots: fc.integer({ min: 1, max: 80 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('time' as const), ms: fc.integer({ min: 1, max: 1500 }) }) },
);

async function run(model: 1 | 2, seed: number, ops: readonly Op[]): Promise<number> {
  const clock = new ManualClock(1_700_000_000_000);
  const ex = new SimExchange({ seed, clock, futuresPositionModel: model, futuresBalance: START });
  for (const o of ops) {
    const now = clock.now();
    try {
      if (o.kind === 'order') {
        const name = CONTRACTS[o.contract];
        const spec = ex.contracts.get(name)!;
        const m = ex.markets.get(name)!;
        const price = o.type === 'LIMIT' ? fromUnits(Math.max(1, m.midTicks + o.offsetTicks), spec.pricePrecision) : undefined;
        ex.futures.place(USER, { contract: name, side: o.side, type: o.type, volume: String(o.lots) as Decimal, price, open: o.open, positionType: o.positionType }, now);
      } else if (o.kind === 'cancel') {
        const open = [...ex.futures.orders.values()].filter((x) => !FINAL.has(x.status) && x.status !== 'PENDING_CANCEL');
        const target = open[o.pick % Math.max(1, open.length)];
        if (target) {
          ex.futures.requestCancel(target, now);
          ex.schedule(now + ex.cancelSettleMs, (at) => ex.futures.settleCancel(target, at));
        }
      } else if (o.kind === 'tape') {
        const m = ex.markets.get(CONTRACTS[o.contract])!;
        m.applyTrade(Math.max(1, m.midTicks + o.offsetTicks), o.lots, o.side, now);
      } else {
        await clock.advance(o.ms);
        ex.catchUp();
      }
    } catch (e) {
      if (!(e instanceof SimError)) throw e;
    }
    check(ex, model);
  }
  return ex.allTrades().length;
}

function check(ex: SimExchange, model: 1 | 2): void {
  const w = ex.futures.wallet(USER);
  let total = dec.sub(dec.add(w.normal, w.lock), w.realized);
  for (const p of w.positions.values()) total = dec.add(total, p.margin);
  for (const f of ex.futures.feesCollected.values()) total = dec.add(total, f);
  expect(total, 'margin coin conserved').toBe(START);

  let locked: Decimal = ZERO;
  const reserved = new Map<string, number>();
  for (const o of ex.futures.orders.values()) {
    expect(o.executedLots).toBeLessThanOrEqual(o.lots);
    if (FINAL.has(o.status)) {
      expect(o.locked).toBe(ZERO);
      continue;
    }
    locked = dec.add(locked, o.locked);
    if (o.open === 'CLOSE') {
      const held = o.side === 'SELL' ? 'BUY' : 'SELL';
      const k = `${o.contract} ${held}`;
      reserved.set(k, (reserved.get(k) ?? 0) + o.lots - o.executedLots);
    }
  }
  expect(w.lock, 'lock = what open OPEN orders hold').toBe(locked);
  const perContract = new Map<string, number>();
  for (const [key, p] of w.positions) {
    expect(p.lots).toBeGreaterThanOrEqual(0);
    expect(p.pendingCloseLots).toBeGreaterThanOrEqual(0);
    expect(p.pendingCloseLots, 'reserved <= held').toBeLessThanOrEqual(p.lots);
    if (p.lots === 0) expect(p.margin).toBe(ZERO);
    else expect(dec.isPositive(p.margin)).toBe(true);
    expect(reserved.get(`${p.contract} ${p.side}`) ?? 0, `reservations of ${key}`).toBe(p.pendingCloseLots);
    if (p.lots > 0) perContract.set(p.contract, (perContract.get(p.contract) ?? 0) + 1);
    expect(key).toBe(model === 1 ? p.contract : `${p.contract}:${p.side}`);
  }
  if (model === 1) for (const n of perContract.values()) expect(n).toBe(1);
  for (const c of CONTRACTS) expect(ex.markets.get(c)!.book.crossed()).toBe(false);
}

describe('futures engine properties', () => {
  for (const model of [1, 2] as const) {
    it(`${model === 1 ? 'net' : 'hedge'} model: conservation, locks, reservations`, async () => {
      let fills = 0;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), fc.array(op, { minLength: 5, maxLength: 80 }), async (seed, ops) => {
          fills += await run(model, seed, ops);
        }),
        { numRuns: 100 },
      );
      expect(fills).toBeGreaterThan(200);
    });
  }
});
