import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { Order, OrderIntent, PlaceIntent } from '../../../src/core/types.js';
import { RiskGate, type RiskInputs, type RiskLimits } from '../../../src/risk/index.js';
import { BTCUSDT } from '../../fixtures/strategy-harness.js';

const LIMITS: RiskLimits = {
  maxPosition: { BTCUSDT: d('1') },
  maxOpenOrders: 3,
  maxNotionalPerOrder: d('10000'),
  maxNotionalPerMinute: d('25000'),
  priceBandPct: d('5'),
  maxOrdersPerSecond: 4,
  duplicateWindowMs: 1000,
  killSwitch: { mode: 'off' },
};

let n = 0;
const buy = (volume: string, price: string, over: Partial<PlaceIntent> = {}): PlaceIntent => {
  const id = `slt-${++n}` as ClientOrderId;
  return { kind: 'place', intentId: id, clientOrderId: id, strategyId: 't', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d(volume), price: d(price), ...over };
};

function inputs(over: Partial<RiskInputs> = {}): RiskInputs {
  return {
    positions: new Map(),
    openOrders: [],
    balances: new Map([
      ['USDT', d('100000')],
      ['BTC', d('2')],
    ]),
    lastPrices: new Map([['spot:BTCUSDT', d('20000')]]),
    instruments: new Map([['spot:BTCUSDT', BTCUSDT]]),
    ...over,
  };
}

const only = (gate: RiskGate, intent: OrderIntent, inp = inputs(), now = 0) => gate.check([intent], inp, now);

describe('risk rules, each with its reason and numbers', () => {
  it.each<[string, () => { gate: RiskGate; intent: OrderIntent; inp?: RiskInputs }, string]>([
    ['unknown symbol', () => ({ gate: new RiskGate(LIMITS), intent: buy('0.1', '20000', { symbol: 'DOGEUSDT' }) }), 'invalid: unknown symbol DOGEUSDT: the venue does not list it'],
    ['kill switch', () => ({ gate: new RiskGate({ ...LIMITS, killSwitch: { mode: 'halted' } }), intent: buy('0.1', '20000') }), 'kill_switch: trading is halted; no new orders until the kill switch is released'],
    ['reduce only', () => ({ gate: new RiskGate({ ...LIMITS, killSwitch: { mode: 'reduce_only' } }), intent: buy('0.1', '20000'), inp: inputs({ positions: new Map([['spot:BTCUSDT', d('0.5')]]) }) }), 'kill_switch: reduce-only: BUY 0.1 BTCUSDT would not reduce the position 0.5'],
    ['no last price', () => ({ gate: new RiskGate(LIMITS), intent: buy('0.1', '20000'), inp: inputs({ lastPrices: new Map() }) }), 'price_band: no last price for BTCUSDT yet'],
    ['price band', () => ({ gate: new RiskGate(LIMITS), intent: buy('0.1', '22000') }), 'price_band: price 22000 is 10% from the last price 20000, beyond 5%'],
    ['notional per order', () => ({ gate: new RiskGate(LIMITS), intent: buy('0.6', '20000') }), 'max_notional_per_order: 0.6 BTCUSDT at 20000 is 12000 USDT, above the 10000 limit'],
    ['max position', () => ({ gate: new RiskGate(LIMITS), intent: buy('0.3', '20000'), inp: inputs({ positions: new Map([['spot:BTCUSDT', d('0.8')]]) }) }), 'max_position: position 0.8 with open buys 0 and this 0.3 could reach 1.1 BTCUSDT, beyond 1'],
    ['balance', () => ({ gate: new RiskGate(LIMITS), intent: buy('0.1', '20000'), inp: inputs({ balances: new Map([['USDT', d('1000')]]) }) }), 'balance: needs 2004 USDT, 1000 free'],
  ])('%s', (_name, make, reason) => {
    const { gate, intent, inp } = make();
    const v = only(gate, intent, inp);
    expect(v.accepted).toEqual([]);
    expect(v.rejected.map((r) => r.reason)).toEqual([reason]);
  });

  it('max open orders, per strategy', () => {
    const open = Array.from({ length: 3 }, (_, i) => ({ ...buy('0.01', '20000'), executedVolume: d('0'), status: 'open', updatedAt: 0, clientOrderId: `x${i}` }) as unknown as Order);
    const v = only(new RiskGate(LIMITS), buy('0.01', '20000'), inputs({ openOrders: open }));
    expect(v.rejected[0]!.reason).toBe('max_open_orders: t has 3 open orders, at the 3 limit');
  });

  it('duplicates within the window, order rate, notional per minute', () => {
    const gate = new RiskGate({ ...LIMITS, maxOpenOrders: 100 });
    const first = buy('0.1', '20000');
    expect(only(gate, first).accepted).toHaveLength(1);
    expect(only(gate, { ...buy('0.1', '20000') }, inputs(), 10).rejected[0]!.rule).toBe('duplicate');
    expect(only(gate, buy('0.1', '20000'), inputs(), 1001).accepted).toHaveLength(1);
    const rate = gate.check([buy('0.01', '20001'), buy('0.01', '20002'), buy('0.01', '20003'), buy('0.01', '20004')], inputs(), 1002);
    expect(rate.rejected.map((r) => r.reason)).toEqual(['order_rate: 4 orders in the last second, at the 4 cap']);
  });

  it('notional per minute rolls over after 60 s', () => {
    const gate = new RiskGate(LIMITS);
    expect(gate.check([buy('0.45', '20000'), buy('0.4', '20001')], inputs(), 0).accepted).toHaveLength(2);
    const v = only(gate, buy('0.4', '20002'), inputs(), 30_000);
    expect(v.rejected[0]!.reason).toBe('max_notional_per_minute: 17000.4 + 8000.8 USDT in the last minute would pass the 25000 limit');
    expect(only(gate, buy('0.4', '20002'), inputs(), 60_001).accepted).toHaveLength(1);
  });

  it('a duplicate window of 0 turns suppression off, within one call too', () => {
    const gate = new RiskGate({ ...LIMITS, duplicateWindowMs: 0 });
    const v = gate.check([buy('0.01', '20000'), buy('0.01', '20000')], inputs(), 0);
    expect(v.accepted).toHaveLength(2);
  });

  it('cancels pass; a repeated cancel in one call is suppressed', () => {
    const c: OrderIntent = { kind: 'cancel', intentId: 'c', clientOrderId: 'slt-1' as ClientOrderId, strategyId: 't', market: 'spot', symbol: 'BTCUSDT' };
    const v = new RiskGate({ ...LIMITS, killSwitch: { mode: 'halted' } }).check([c, c], inputs(), 0);
    expect(v.accepted).toEqual([c]);
    expect(v.rejected.map((r) => r.rule)).toEqual(['duplicate']);
  });

  it('toggleHalt flips between halted and the configured mode', () => {
    const gate = new RiskGate(LIMITS);
    expect(gate.toggleHalt()).toBe('halted');
    expect(gate.toggleHalt()).toBe('off');
  });
});

describe('risk properties', () => {
  const intentArb = fc.record({ volume: fc.integer({ min: 1, max: 50 }), price: fc.integer({ min: 19000, max: 21000 }), side: fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL') });
  it('halted accepts no place; accepted buys never exceed free quote; order rate holds; never throws', () => {
    fc.assert(
      fc.property(fc.array(intentArb, { maxLength: 30 }), fc.constantFrom<'off' | 'halted'>('off', 'halted'), (raw, mode) => {
        const gate = new RiskGate({ ...LIMITS, killSwitch: { mode }, maxOpenOrders: 1000, maxNotionalPerMinute: d('1000000000') });
        const intents = raw.map((r) => buy(String(r.volume / 100), String(r.price), { side: r.side }));
        const free = d('30000');
        const v = gate.check(intents, inputs({ balances: new Map([['USDT', free], ['BTC', d('2')]]) }), 0);
        const places = v.accepted.filter((i): i is PlaceIntent => i.kind === 'place');
        if (mode === 'halted') expect(places).toEqual([]);
        const spent = dec.sum(places.filter((p) => p.side === 'BUY').map((p) => dec.mul(p.volume, p.price!)));
        expect(dec.lte(spent, free)).toBe(true);
        expect(places.length).toBeLessThanOrEqual(LIMITS.maxOrdersPerSecond);
        expect(v.accepted.length + v.rejected.length).toBe(intents.length);
      }),
    );
  });
});
