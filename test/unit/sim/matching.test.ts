// Properties of the simulator's matching engine under random order flow from two accounts, the
// other participants' synthetic quotes and trades, and cancels: balances are conserved (accounts
// + the others' net flow + fees), free and locked never go negative, locks match open orders,
// fills never exceed an order's volume, and the book is never crossed after matching.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d, dec, ZERO, type Decimal } from '../../../src/core/decimal.js';
import { SimError } from '../../../src/sim/errors.js';
import { SimExchange, USER } from '../../../src/sim/exchange.js';
import { FINAL } from '../../../src/sim/types.js';
import { fromUnits } from '../../../src/sim/units.js';

const ACCOUNTS = [USER, 'bob'] as const;

type Op =
  | { kind: 'limit'; who: 0 | 1; symbol: 0 | 1; side: 'BUY' | 'SELL'; offsetTicks: number; lots: number }
  | { kind: 'market'; who: 0 | 1; symbol: 0 | 1; side: 'BUY' | 'SELL'; amount: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'tape'; symbol: 0 | 1; side: 'BUY' | 'SELL'; offsetTicks: number; lots: number }
  | { kind: 'time'; ms: number };

const who = fc.constantFrom(0 as const, 1 as const);
const symbol = fc.constantFrom(0 as const, 1 as const);
const side = fc.constantFrom('BUY' as const, 'SELL' as const);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('limit' as const), who, symbol, side, offsetTicks: fc.integer({ min: -3000, max: 3000 }), lots: fc.integer({ min: 1, max: 60_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('market' as const), who, symbol, side, amount: fc.integer({ min: 1, max: 1_500_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tape' as const), symbol, side, offsetTicks: fc.integer({ min: -3000, max: 3000 }), lots: fc.integer({ min: 1, max: 60_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('time' as const), ms: fc.integer({ min: 1, max: 2000 }) }) },
);

const SYMBOLS = ['BTCUSDT', 'ETHUSDT'] as const;

async function run(seed: number, ops: readonly Op[], tapeDriven: boolean): Promise<number> {
  const clock = new ManualClock(1_700_000_000_000);
  const ex = new SimExchange({ seed, clock, balances: { USDT: '50000', BTC: '1', ETH: '10' } });
  ex.ledger.open('bob', { USDT: d('50000'), BTC: d('1'), ETH: d('10') });
  const initial = new Map(ex.ledger.conservedTotals());
  if (tapeDriven) for (const s of SYMBOLS) ex.markets.get(s)!.external = true;

  for (const o of ops) {
    const now = clock.now();
    try {
      if (o.kind === 'limit' || o.kind === 'market') {
        const name = SYMBOLS[o.symbol];
        const spec = ex.symbols.get(name)!;
        const m = ex.markets.get(name)!;
        if (o.kind === 'limit') {
          const ticks = Math.max(1, m.midTicks + o.offsetTicks);
          ex.spot.place(ACCOUNTS[o.who], { symbol: name, side: o.side, type: 'LIMIT', price: fromUnits(ticks, spec.pricePrecision), volume: fromUnits(o.lots, spec.quantityPrecision) }, now);
        } else {
          // A MARKET BUY amount has the price's precision; a MARKET SELL is base lots.
          const volume = o.side === 'BUY' ? fromUnits(o.amount, spec.pricePrecision) : fromUnits(o.amount % 60_000, spec.quantityPrecision);
          ex.spot.place(ACCOUNTS[o.who], { symbol: name, side: o.side, type: 'MARKET', volume }, now);
        }
      } else if (o.kind === 'cancel') {
        const open = [...ex.spot.orders.values()].filter((x) => !FINAL.has(x.status) && x.status !== 'PENDING_CANCEL');
        const target = open[o.pick % Math.max(1, open.length)];
        if (target) {
          ex.spot.requestCancel(target, now);
          ex.schedule(now + ex.cancelSettleMs, (at) => ex.spot.settleCancel(target, at));
        }
      } else if (o.kind === 'tape') {
        const m = ex.markets.get(SYMBOLS[o.symbol])!;
        m.applyTrade(Math.max(1, m.midTicks + o.offsetTicks), o.lots, o.side, now);
      } else {
        await clock.advance(o.ms);
        ex.catchUp();
      }
    } catch (e) {
      if (!(e instanceof SimError)) throw e;
    }
    check(ex, initial);
  }
  return ex.allTrades().length;
}

function check(ex: SimExchange, initial: ReadonlyMap<string, Decimal>): void {
  // Conservation: what the accounts hold, plus what the others took or gave, plus fees.
  const totals = ex.ledger.conservedTotals();
  for (const [asset, amount] of initial) expect(totals.get(asset) ?? ZERO, asset).toBe(amount);
  for (const account of ACCOUNTS) {
    const lockedByOrders = new Map<string, Decimal>();
    for (const o of ex.spot.orders.values()) {
      if (o.account !== account) continue;
      const spec = ex.symbols.get(o.symbol)!;
      const asset = o.side === 'BUY' ? spec.quoteAsset : spec.baseAsset;
      lockedByOrders.set(asset, dec.add(lockedByOrders.get(asset) ?? ZERO, o.locked));
    }
    for (const b of ex.ledger.balances(account)) {
      expect(dec.isNegative(b.free), `${account} ${b.asset} free ${b.free}`).toBe(false);
      expect(dec.isNegative(b.locked), `${account} ${b.asset} locked ${b.locked}`).toBe(false);
      expect(b.locked, `${account} ${b.asset} locked vs its orders`).toBe(lockedByOrders.get(b.asset) ?? ZERO);
    }
  }
  for (const o of ex.spot.orders.values()) {
    if (o.origLots !== undefined) expect(o.executedLots).toBeLessThanOrEqual(o.origLots);
    // A MARKET BUY never spends more than its amount.
    else expect(dec.lte(o.executedQuote, o.volume)).toBe(true);
    if (FINAL.has(o.status)) expect(o.locked).toBe(ZERO);
  }
  for (const s of SYMBOLS) expect(ex.markets.get(s)!.book.crossed()).toBe(false);
  for (const c of ex.contracts.keys()) expect(ex.markets.get(c)!.book.crossed()).toBe(false);
}

describe('matching engine properties', () => {
  for (const tapeDriven of [false, true]) {
    it(tapeDriven ? 'on a tape-driven book where the two accounts meet each other' : 'with the synthetic market quoting and trading around them', async () => {
      let fills = 0;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), fc.array(op, { minLength: 5, maxLength: 80 }), async (seed, ops) => {
          fills += await run(seed, ops, tapeDriven);
        }),
        { numRuns: 100 },
      );
      // The properties are about fills: make sure the runs produced plenty.
      expect(fills).toBeGreaterThan(50);
    });
  }
});
