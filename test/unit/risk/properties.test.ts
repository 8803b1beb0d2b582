// Properties of the gate over random intents, accounts and call sequences.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { d, dec, ZERO, type Decimal } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { OrderIntent, PlaceIntent } from '../../../src/core/types.js';
import { checkIntents, emptyRiskState, fingerprint, type KillSwitchMode, type RiskLimits, type RiskSnapshot, type RiskState } from '../../../src/risk/index.js';
import { LIMITS, resting, snapshot } from './fixtures.js';

const cents = (n: number) => d((n / 100).toFixed(2));

/** Mostly sensible intents, some malformed, some for unknown symbols, some cancels. */
const intentArb: fc.Arbitrary<OrderIntent> = fc.oneof(
  { weight: 8, arbitrary: fc.record({
    strategyId: fc.constantFrom('t', 'u'),
    symbol: fc.constantFrom('BTCUSDT', 'BTCUSDT', 'ETHBTC', 'DOGEUSDT'),
    side: fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL'),
    type: fc.constantFrom<'LIMIT' | 'MARKET'>('LIMIT', 'LIMIT', 'MARKET'),
    volume: fc.integer({ min: -5, max: 60 }),
    priceOffset: fc.option(fc.integer({ min: -800, max: 800 }), { freq: 8 }),
    id: fc.nat(),
  }).map(({ strategyId, symbol, side, type, volume, priceOffset, id }): PlaceIntent => {
    const base = symbol === 'ETHBTC' ? 5 : 20000;
    const p: PlaceIntent = { kind: 'place', intentId: `i${id}`, clientOrderId: `slt-${id}` as ClientOrderId, strategyId, market: 'spot', symbol, side, type, volume: cents(volume) };
    if (priceOffset !== null) p.price = symbol === 'ETHBTC' ? cents(500 + priceOffset / 10) : d(String(base + priceOffset * 5));
    return p;
  }) },
  { weight: 1, arbitrary: fc.nat({ max: 5 }).map((n): OrderIntent => ({ kind: 'cancel', intentId: `c${n}`, strategyId: 't', market: 'spot', symbol: 'BTCUSDT', clientOrderId: `slt-${n}` as ClientOrderId })) },
);

const snapshotArb: fc.Arbitrary<RiskSnapshot> = fc
  .record({
    pos: fc.integer({ min: -150, max: 150 }),
    usdt: fc.integer({ min: 0, max: 5_000_000 }),
    btc: fc.integer({ min: 0, max: 300 }),
    openBuy: fc.integer({ min: 0, max: 50 }),
    hasLast: fc.boolean(),
  })
  .map(({ pos, usdt, btc, openBuy, hasLast }) =>
    snapshot({
      positions: { 'spot:BTCUSDT': (pos / 100).toFixed(2) },
      balances: { USDT: (usdt / 100).toFixed(2), BTC: (btc / 100).toFixed(2), ETH: '10' },
      openOrders: openBuy ? [resting('BUY', (openBuy / 100).toFixed(2), { strategyId: 'u' })] : [],
      lastPrices: hasLast ? { 'spot:BTCUSDT': '20000', 'spot:ETHBTC': '5' } : { 'spot:ETHBTC': '5' },
    }),
  );

const limitsArb: fc.Arbitrary<RiskLimits> = fc.record({
  mode: fc.constantFrom<KillSwitchMode>('off', 'off', 'halted', 'reduce_only'),
  rate: fc.integer({ min: 1, max: 8 }),
  open: fc.integer({ min: 1, max: 20 }),
  dup: fc.constantFrom(0, 500, 1000),
}).map(({ mode, rate, open, dup }) => ({ ...LIMITS, maxOpenOrders: open, maxOrdersPerSecond: rate, duplicateWindowMs: dup, maxNotionalPerMinute: d('60000'), killSwitch: { mode } }));

/** A run of calls at increasing times, each with a few intents. */
const runArb = fc.array(fc.record({ gap: fc.integer({ min: 0, max: 1500 }), intents: fc.array(intentArb, { maxLength: 8 }) }), { maxLength: 12 });

function run(calls: { gap: number; intents: OrderIntent[] }[], snap: RiskSnapshot, limits: RiskLimits) {
  let state: RiskState = emptyRiskState();
  let now = 1_000_000;
  const accepted: { at: number; intent: PlaceIntent }[] = [];
  for (const call of calls) {
    now += call.gap;
    const r = checkIntents(call.intents, snap, limits, state, now);
    expect(r.accepted.length + r.rejected.length).toBe(call.intents.length);
    for (const i of r.accepted) if (i.kind === 'place') accepted.push({ at: now, intent: i });
    state = r.nextState;
    // The carried per-asset total always equals the window's entries added up.
    const assets = new Set(state.notional.map((n) => n.asset));
    expect(Object.keys(state.notionalTotal).sort()).toEqual([...assets].sort());
    for (const asset of assets) expect(state.notionalTotal[asset]).toBe(dec.sum(state.notional.filter((n) => n.asset === asset).map((n) => n.value)));
  }
  return accepted;
}

const notionalOf = (i: PlaceIntent): Decimal => (i.type === 'MARKET' && i.side === 'BUY' ? i.volume : dec.mul(i.volume, i.price ?? d('20000')));

describe('risk properties', () => {
  it('with the kill switch halted no place is ever accepted; cancels always are (once per order)', () => {
    fc.assert(
      fc.property(fc.array(intentArb, { maxLength: 30 }), snapshotArb, limitsArb, (intents, snap, limits) => {
        const r = checkIntents(intents, snap, { ...limits, killSwitch: { mode: 'halted' } }, emptyRiskState(), 0);
        expect(r.accepted.filter((i) => i.kind === 'place')).toEqual([]);
        const cancels = new Set(intents.filter((i) => i.kind === 'cancel').map((i) => i.clientOrderId));
        expect(r.accepted.length).toBe(cancels.size);
      }),
    );
  });

  it('accepted places never exceed maxOrdersPerSecond within any 1 s, nor the per-minute notional within any 60 s', () => {
    fc.assert(
      fc.property(runArb, snapshotArb, limitsArb, (calls, snap, limits) => {
        const accepted = run(calls, snap, limits);
        for (const { at } of accepted) {
          expect(accepted.filter((a) => a.at <= at && at - a.at < 1000).length).toBeLessThanOrEqual(limits.maxOrdersPerSecond);
          for (const quote of ['USDT', 'BTC']) {
            const inMinute = accepted.filter((a) => a.at <= at && at - a.at < 60_000 && a.intent.symbol.endsWith(quote));
            expect(dec.lte(dec.sum(inMinute.map((a) => notionalOf(a.intent))), limits.maxNotionalPerMinute)).toBe(true);
          }
        }
      }),
    );
  });

  it('no two identical places are accepted within the duplicate window', () => {
    fc.assert(
      fc.property(runArb, snapshotArb, limitsArb, (calls, snap, limits) => {
        const accepted = run(calls, snap, limits);
        if (limits.duplicateWindowMs === 0) return;
        accepted.forEach((a, k) => {
          for (const b of accepted.slice(k + 1)) {
            if (fingerprint(a.intent) === fingerprint(b.intent)) expect(b.at - a.at).toBeGreaterThanOrEqual(limits.duplicateWindowMs);
          }
        });
      }),
    );
  });

  it('accepted buys never exceed the free quote balance; accepted sells never exceed the free base', () => {
    fc.assert(
      fc.property(fc.array(intentArb, { maxLength: 30 }), snapshotArb, limitsArb, (intents, snap, limits) => {
        const r = checkIntents(intents, snap, { ...limits, maxOrdersPerSecond: 100, maxOpenOrders: 100 }, emptyRiskState(), 0);
        const places = r.accepted.filter((i): i is PlaceIntent => i.kind === 'place' && i.symbol === 'BTCUSDT');
        const spent = dec.sum(places.filter((p) => p.side === 'BUY').map((p) => dec.mul(notionalOf(p), d('1.002'))));
        expect(dec.lte(spent, snap.balances.get('USDT') ?? ZERO)).toBe(true);
        const sold = dec.sum(places.filter((p) => p.side === 'SELL').map((p) => p.volume));
        expect(dec.lte(sold, snap.balances.get('BTC') ?? ZERO)).toBe(true);
      }),
    );
  });

  it('an accepted buy never takes the worst-case long past maxPosition when it started inside', () => {
    fc.assert(
      fc.property(fc.array(intentArb, { maxLength: 30 }), snapshotArb, (intents, randomSnap) => {
        // Deep pockets and a known price, so that max_position is the rule that binds.
        const snap = { ...randomSnap, balances: new Map([['USDT', d('1000000')], ['BTC', d('100')]]), lastPrices: snapshot().lastPrices };
        const r = checkIntents(intents, snap, { ...LIMITS, maxOrdersPerSecond: 100, maxOpenOrders: 100, maxNotionalPerMinute: d('1000000') }, emptyRiskState(), 0);
        const start = dec.add(snap.positions.get('spot:BTCUSDT') ?? ZERO, dec.sum(snap.openOrders.filter((o) => o.side === 'BUY').map((o) => o.remaining)));
        const bought = r.accepted.filter((i): i is PlaceIntent => i.kind === 'place' && i.symbol === 'BTCUSDT' && i.side === 'BUY').map((i) => (i.type === 'MARKET' ? dec.div(i.volume, d('20000')) : i.volume));
        const worst = dec.add(start, dec.sum(bought));
        expect(dec.lte(worst, d('1')) || bought.length === 0).toBe(true);
      }),
    );
  });

  it('is deterministic, never throws, and leaves its inputs untouched', () => {
    fc.assert(
      fc.property(fc.array(intentArb, { maxLength: 30 }), snapshotArb, limitsArb, fc.integer({ min: 0, max: 2_000 }), (intents, snap, limits, now) => {
        const state: RiskState = { placedAt: [0, 500], notional: [{ at: 0, asset: 'USDT', value: d('100') }], notionalTotal: { USDT: d('100') }, recent: {} };
        const frozen = JSON.stringify([intents, state, limits, [...snap.openOrders]]);
        const a = checkIntents(intents, snap, limits, state, now);
        const b = checkIntents(intents, snap, limits, state, now);
        expect(b).toEqual(a);
        expect(JSON.stringify([intents, state, limits, [...snap.openOrders]])).toBe(frozen);
        for (const r of a.rejected) expect(r.reason.startsWith(`${r.rule}: `)).toBe(true);
        // Verdicts keep input order.
        expect(a.accepted).toEqual(intents.filter((i) => a.accepted.includes(i)));
      }),
    );
  });
});
