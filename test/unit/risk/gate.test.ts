// The stateful shell the engine holds: windows carried between calls, the live kill-switch mode,
// journal orders converted to resting base volume.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { Order } from '../../../src/core/types.js';
import { RiskGate, toRiskOpenOrder, toRiskSnapshot } from '../../../src/risk/index.js';
import { LIMITS, market, place, snapshot } from './fixtures.js';

const order = (over: Partial<Order>): Order => ({
  clientOrderId: 'slt-o' as ClientOrderId,
  strategyId: 't',
  market: 'spot',
  symbol: 'BTCUSDT',
  side: 'BUY',
  type: 'LIMIT',
  volume: d('1'),
  price: d('20000'),
  executedVolume: d('0.25'),
  status: 'partially_filled',
  createdAt: 0,
  updatedAt: 0,
  ...over,
});

describe('RiskGate', () => {
  it('carries the windows from one call to the next', () => {
    const gate = new RiskGate({ ...LIMITS, maxOpenOrders: 100 });
    expect(gate.check([place('0.1', '20000')], snapshot(), 0).accepted).toHaveLength(1);
    expect(gate.check([place('0.1', '20000')], snapshot(), 10).rejected.map((r) => r.rule)).toEqual(['duplicate']);
    expect(gate.check([place('0.1', '20000')], snapshot(), 1000).accepted).toHaveLength(1);
    // The place at 0 has left the 1 s window by 1000.
    expect(gate.state().placedAt).toEqual([1000]);
    expect(gate.check(['20001', '20002', '20003', '20004'].map((p) => place('0.01', p)), snapshot(), 1001).rejected.map((r) => r.reason)).toEqual([
      'order_rate: 4 orders accepted in the last second, at the 4 per second cap',
    ]);
  });

  it('uses the live kill-switch mode; toggleHalt flips between halted and the configured mode', () => {
    const gate = new RiskGate({ ...LIMITS, killSwitch: { mode: 'reduce_only' } });
    expect(gate.toggleHalt()).toBe('halted');
    expect(gate.check([place('0.1', '20000')], snapshot(), 0).rejected[0]!.rule).toBe('kill_switch');
    expect(gate.toggleHalt()).toBe('reduce_only');
    gate.setKillSwitch('off');
    expect(gate.killSwitch()).toBe('off');
    expect(gate.check([place('0.1', '20000')], snapshot(), 0).accepted).toHaveLength(1);
    const halted = new RiskGate({ ...LIMITS, killSwitch: { mode: 'halted' } });
    expect(halted.toggleHalt()).toBe('off');
  });

  it('counts journal orders by what is left to fill, in base units', () => {
    expect(toRiskOpenOrder(order({}), new Map()).remaining).toBe('0.75');
    // A spot market buy is sized in quote: its amount at the last price.
    const quoteSized = order({ type: 'MARKET', volume: d('5000'), executedVolume: d('0') });
    expect(toRiskOpenOrder(quoteSized, new Map([['spot:BTCUSDT', d('20000')]])).remaining).toBe('0.25');
    const gate = new RiskGate(LIMITS);
    const v = gate.check([place('0.3', '20000')], { ...snapshot(), openOrders: [order({})] }, 0);
    expect(v.rejected[0]!.reason).toBe('max_position: position 0 + open buys 0.75 + this 0.3 = 1.05 BTCUSDT, above the 1 limit');
    expect(gate.check([market('SELL', '0.1')], { ...snapshot(), openOrders: [order({})] }, 0).accepted).toHaveLength(1);
  });

  it('reads each order version as it is: a new version of an order counts anew, a quote-sized one at the price of the moment', () => {
    const resting = order({});
    const inputs = (o: Order, last: string) => ({ ...snapshot(), openOrders: [o], lastPrices: new Map([['spot:BTCUSDT', d(last)]]) });
    expect(toRiskSnapshot(inputs(resting, '20000')).openOrders[0]!.remaining).toBe('0.75');
    expect(toRiskSnapshot(inputs({ ...resting, executedVolume: d('0.9') }, '20000')).openOrders[0]!.remaining).toBe('0.1');
    expect(toRiskSnapshot(inputs(resting, '20000')).openOrders[0]!.remaining).toBe('0.75');
    const quoteSized = order({ type: 'MARKET', volume: d('5000'), executedVolume: d('0') });
    expect(toRiskSnapshot(inputs(quoteSized, '20000')).openOrders[0]!.remaining).toBe('0.25');
    expect(toRiskSnapshot(inputs(quoteSized, '25000')).openOrders[0]!.remaining).toBe('0.2');
  });

  it("marks the orders named off the venue's book, for that snapshot only", () => {
    const a = order({ clientOrderId: 'slt-a' as ClientOrderId });
    const b = order({ clientOrderId: 'slt-b' as ClientOrderId });
    const inputs = { ...snapshot(), openOrders: [a, b] };
    const marked = toRiskSnapshot({ ...inputs, offBook: new Set(['slt-b']) }).openOrders;
    expect(marked.map((o) => [o.remaining, o.offBook === true])).toEqual([['0.75', false], ['0.75', true]]);
    // Conversions are kept per order version: the mark is not.
    expect(toRiskSnapshot(inputs).openOrders.map((o) => o.offBook === true)).toEqual([false, false]);
    expect('offBook' in toRiskSnapshot({ ...inputs, offBook: new Set(['slt-b']) })).toBe(false);
  });

  it('sums what rests per symbol and side over many open orders', () => {
    const many = Array.from({ length: 300 }, (_, i) => order({ clientOrderId: `slt-${i}` as ClientOrderId, side: i % 3 === 0 ? 'SELL' : 'BUY', volume: d('0.0013'), executedVolume: d('0.0001') }));
    const gate = new RiskGate({ ...LIMITS, maxOpenOrders: 1000, maxPosition: { BTCUSDT: d('0.24') } });
    // 200 buys of 0.0012 left: 0.24 rest; any further buy is over the limit, a sell is not.
    const v = gate.check([place('0.001', '20000')], { ...snapshot(), openOrders: many }, 0);
    expect(v.rejected[0]!.reason).toBe('max_position: position 0 + open buys 0.24 + this 0.001 = 0.241 BTCUSDT, above the 0.24 limit');
  });
});
