// The exit monitor over hand-written fakes (a MemoryJournal, a manual clock, positions and prices
// the test sets): the steps of one exit, what it never does twice (across a restart too), the
// retries of an exit order that ends unfilled, the wait for an account read on spot, and a
// remainder too small to close.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d, ZERO } from '../../../src/core/decimal.js';
import { clientOrderId, type ClientOrderId } from '../../../src/core/ids.js';
import type { OrderIntent, PlaceIntent, StrategyPosition } from '../../../src/core/types.js';
import { ExitMonitor, type ExitNotice } from '../../../src/engine/exit-monitor.js';
import { pendingOrder, withStatus } from '../../../src/engine/orders.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { BTCUSDT, MemoryLog, placeOf } from '../../fixtures/engine-parts.js';

function rig(journal = new MemoryJournal(), clock = new ManualClock(1_000_000)) {
  const log = new MemoryLog();
  const state = { quantity: '0.002', net: '0.001996', entry: '20000', price: '20000', unbooked: '0', maxNotional: '100000', balancesAskedAt: 0, seq: 100 };
  const alerts: string[] = [];
  const submitted: OrderIntent[][] = [];
  const told: ExitNotice[] = [];
  const position = (): StrategyPosition => ({
    market: 'spot',
    symbol: 'BTCUSDT',
    quantity: d(state.quantity),
    netQuantity: d(state.net),
    avgEntryPrice: d(state.entry),
    realizedPnl: ZERO,
    fees: ZERO,
    otherFees: {},
    unbookedQuantity: d(state.unbooked),
  });
  const monitor = new ExitMonitor({
    clock,
    log,
    journal,
    strategies: [{ id: 't', market: 'spot', symbols: ['BTCUSDT'], exits: { stopLossPct: d('2'), cooldownMs: 0 } }],
    position,
    lastPrice: () => d(state.price),
    instrument: () => BTCUSDT,
    active: () => true,
    nextId: (id) => clientOrderId(id, state.seq++),
    balancesAskedAt: () => state.balancesAskedAt,
    maxNotionalPerOrder: () => d(state.maxNotional),
    alert: (_kind, message) => void alerts.push(message),
    submit: async (_id, intents) => {
      submitted.push(intents);
      for (const i of intents) if (i.kind === 'place') journal.recordIntent(i, pendingOrder(i, clock.now()));
    },
    tell: (_id, n) => void told.push(n),
  });
  const places = () => submitted.flat().filter((i): i is PlaceIntent => i.kind === 'place');
  const cancels = () => submitted.flat().filter((i) => i.kind === 'cancel').map((i) => i.clientOrderId);
  const end = (id: ClientOrderId, status: 'filled' | 'canceled' | 'rejected') => journal.updateOrder(withStatus(journal.order(id)!, status, clock.now()), status);
  return { journal, clock, log, state, monitor, submitted, told, places, cancels, end, alerts };
}

describe('ExitMonitor', () => {
  it('spot: cancels the open order, waits for it to end and for an account read asked after, then sells netQuantity rounded down once; a restart sends no second', async () => {
    const r = rig();
    // The strategy's resting sell.
    const rest = placeOf('t-rest', { side: 'SELL', price: d('30000'), volume: d('0.001') });
    r.journal.recordIntent(rest, withStatus(pendingOrder(rest, r.clock.now()), 'open', r.clock.now()));
    r.state.price = '19600';
    await r.monitor.check();
    expect(r.cancels()).toEqual(['t-rest']);
    expect(r.places()).toEqual([]);
    expect(r.log.withMsg('exit triggered')).toHaveLength(1);
    // A place of its own is refused meanwhile.
    expect(r.monitor.refusal(placeOf('t-new'))).toBe('exits: a stop_loss exit of BTCUSDT is under way; new orders in it are refused until it ends');
    r.clock.moveTo(1_000_500);
    r.end(cid('t-rest'), 'canceled');
    r.state.balancesAskedAt = 1_000_400;
    await r.monitor.check();
    expect(r.places()).toEqual([]);
    r.state.balancesAskedAt = 1_000_600;
    await r.monitor.check();
    expect(r.places().map((p) => [p.side, p.type, p.volume, p.strategyId])).toEqual([['SELL', 'MARKET', '0.00199', 't']]);
    expect(r.told.map((n) => [n.reason, n.entry, n.trigger, n.last, n.order.clientOrderId])).toEqual([['stop_loss', '20000', '19600', '19600', r.places()[0]!.clientOrderId]]);
    expect(r.monitor.refusal(r.places()[0]!)).toBeUndefined();
    // More polls, and a restart on the same journal: the exit waits for its order.
    await r.monitor.check();
    const again = rig(r.journal, r.clock);
    await again.monitor.check();
    expect(r.places().length + again.places().length).toBe(1);
    expect(again.monitor.refusal(placeOf('t-new'))).toMatch(/under way/);
    // Filled: done; the strategy is flat but for dust.
    r.end(r.places()[0]!.clientOrderId, 'filled');
    again.state.quantity = '0.00001';
    again.state.net = '0.000006';
    await again.monitor.check();
    expect(again.monitor.refusal(placeOf('t-new'))).toBeUndefined();
    expect(again.places()).toEqual([]);
  });

  it('an exit order that ends unfilled is sent again after 1 s, then 2 s; it counts as one exit', async () => {
    const r = rig();
    r.state.price = '19000';
    await r.monitor.check();
    expect(r.places()).toHaveLength(1);
    r.end(r.places()[0]!.clientOrderId, 'rejected');
    await r.monitor.check();
    expect(r.places()).toHaveLength(1);
    expect(r.log.withMsg('exit order ended unfilled; the exit tries again')).toHaveLength(1);
    r.clock.moveTo(r.clock.now() + 999);
    await r.monitor.check();
    expect(r.places()).toHaveLength(1);
    r.clock.moveTo(r.clock.now() + 1);
    await r.monitor.check();
    expect(r.places()).toHaveLength(2);
    r.end(r.places()[1]!.clientOrderId, 'canceled');
    await r.monitor.check();
    r.clock.moveTo(r.clock.now() + 1999);
    await r.monitor.check();
    expect(r.places()).toHaveLength(2);
    r.clock.moveTo(r.clock.now() + 1);
    await r.monitor.check();
    expect(r.places()).toHaveLength(3);
    expect(r.monitor.counts).toEqual({ stop_loss: 1 });
  });

  it('is not judged while an execution is unbooked: a re-buy on a remainder is measured from its own entry once booked', async () => {
    const r = rig();
    // A remainder bought at 20000, then a buy at 19700 the venue reported and the trades read has not booked.
    r.state.quantity = '0.002';
    r.state.unbooked = '0.001';
    r.state.entry = '20000';
    r.state.price = '19600';
    await r.monitor.check();
    expect(r.submitted).toEqual([]);
    expect(r.log.withMsg('exit triggered')).toEqual([]);
    // Booked: the entry is 19850, and 19600 is 1.26% below it, inside the 2% stop.
    r.state.unbooked = '0';
    r.state.entry = '19850';
    await r.monitor.check();
    expect(r.submitted).toEqual([]);
    r.state.price = '19450';
    await r.monitor.check();
    expect(r.places().map((p) => [p.side, p.volume])).toEqual([['SELL', '0.00199']]);
  });

  it('a close worth more than risk.maxNotionalPerOrder goes in parts, each under it, the next once the last is booked', async () => {
    const r = rig();
    r.state.maxNotional = '20';
    r.state.price = '19000';
    await r.monitor.check();
    // 20 / 19000 = 0.00105..., down to the step.
    expect(r.places().map((p) => p.volume)).toEqual(['0.00105']);
    r.end(r.places()[0]!.clientOrderId, 'filled');
    r.state.quantity = '0.00095';
    r.state.net = '0.000946';
    r.state.unbooked = '-0.00105';
    await r.monitor.check();
    expect(r.places()).toHaveLength(1);
    r.state.unbooked = '0';
    await r.monitor.check();
    expect(r.places().map((p) => p.volume)).toEqual(['0.00105', '0.00094']);
    r.end(r.places()[1]!.clientOrderId, 'filled');
    r.state.quantity = '0.00001';
    r.state.net = '0.000006';
    await r.monitor.check();
    expect(r.monitor.refusal(placeOf('t-new'))).toBeUndefined();
    expect(r.monitor.counts).toEqual({ stop_loss: 1 });
    // The exit's own alert, no other.
    expect(r.alerts).toHaveLength(1);
  });

  it('an exit whose closing orders keep ending unfilled is alerted after the third, once', async () => {
    const r = rig();
    r.state.price = '19000';
    for (let i = 0; i < 5; i++) {
      await r.monitor.check();
      r.end(r.places()[i]!.clientOrderId, 'rejected');
      await r.monitor.check();
      r.clock.moveTo(r.clock.now() + 60_000);
    }
    expect(r.places()).toHaveLength(5);
    // After the exit's own alert.
    expect(r.alerts.slice(1)).toEqual([
      't: the stop_loss exit of BTCUSDT has not closed the position: 3 closing orders ended unfilled (the last: rejected, rejected); it keeps trying, at most a minute apart, and the strategy\'s new orders there stay refused. Check the risk limits, the kill switch and the venue',
    ]);
  });

  it('a remainder below the step is not closed: one warning per quantity, and it is judged as flat', async () => {
    const r = rig();
    r.state.quantity = '0.00001';
    r.state.net = '0.000006';
    r.state.price = '10000';
    await r.monitor.check();
    await r.monitor.check();
    expect(r.submitted).toEqual([]);
    expect(r.log.withMsg('exit skipped: the position is below what one order can close').map((l) => l.fields.why)).toEqual(['holds 0.000006, below the step of 5 decimals']);
  });

  it('spot below zero (sold from the account\'s own holdings): nothing to close, no word', async () => {
    const r = rig();
    r.state.quantity = '-0.5';
    r.state.net = '-0.5';
    r.state.price = '30000';
    await r.monitor.check();
    expect(r.submitted).toEqual([]);
    expect(r.log.lines).toEqual([]);
  });
});

const cid = (s: string) => s as ClientOrderId;
