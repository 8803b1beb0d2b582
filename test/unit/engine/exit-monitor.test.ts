// The exit monitor over hand-written fakes (a MemoryJournal, a manual clock, positions and prices
// the test sets): the steps of one exit, what it never does twice (across a restart too), the
// retries of an exit order that ends unfilled, the wait for an account read on spot, and a
// remainder too small to close.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d, ZERO } from '../../../src/core/decimal.js';
import { clientOrderId, type ClientOrderId } from '../../../src/core/ids.js';
import type { ExitSettings, OrderIntent, PlaceIntent, StrategyPosition } from '../../../src/core/types.js';
import { ExitMonitor, type ExitNotice } from '../../../src/engine/exit-monitor.js';
import { pendingOrder, withStatus } from '../../../src/engine/orders.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { BTCUSDT, MemoryLog, placeOf } from '../../fixtures/engine-parts.js';

function rig(journal = new MemoryJournal(), clock = new ManualClock(1_000_000), exits: ExitSettings = { stopLossPct: d('2'), cooldownMs: 0 }) {
  const log = new MemoryLog();
  const state = { quantity: '0.002', net: '0.001996', entry: '20000', price: '20000', unbooked: '0', maxNotional: '100000', balancesAskedAt: 0, seq: 100, priceAt: undefined as number | undefined };
  // When the price was read: now (fresh) unless a test says otherwise.
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
    strategies: [{ id: 't', market: 'spot', symbols: ['BTCUSDT'], exits }],
    position,
    lastPrice: () => d(state.price),
    lastPriceAt: () => state.priceAt ?? clock.now(),
    pollEveryMs: 1000,
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

  it('a stale price fires no exit: judged only once a price is read again (within 3 poll intervals), said once blind and once back', async () => {
    const r = rig();
    // The last price read, then ticker reads fail: the price stays as it was, no longer the market.
    r.state.priceAt = r.clock.now();
    r.state.price = '19600';
    r.clock.moveTo(r.clock.now() + 3001);
    await r.monitor.check();
    await r.monitor.check();
    expect(r.submitted).toEqual([]);
    expect(r.log.withMsg('exit triggered')).toEqual([]);
    expect(r.log.withMsg('exits: no fresh price; exits of this symbol are not judged until one is read').map((l) => [l.fields.symbol, l.fields.last, l.fields.freshMs])).toEqual([['BTCUSDT', '19600', 3000]]);
    expect(r.alerts).toEqual([]);
    // A read answers: the same price, now fresh, fires the stop.
    r.state.priceAt = r.clock.now();
    await r.monitor.check();
    expect(r.log.withMsg('exits: a fresh price again; exits of this symbol are judged again').map((l) => l.fields.blindMs)).toEqual([0]);
    expect(r.log.withMsg('exit triggered')).toHaveLength(1);
    expect(r.places().map((p) => [p.side, p.volume])).toEqual([['SELL', '0.00199']]);
  });

  it('a price 3 poll intervals old is still judged; blind for a minute raises one exit alert', async () => {
    const r = rig();
    const readAt = r.clock.now();
    r.state.priceAt = readAt;
    r.clock.moveTo(readAt + 3000);
    await r.monitor.check();
    expect(r.log.withMsg('exits: no fresh price; exits of this symbol are not judged until one is read')).toEqual([]);
    r.clock.moveTo(readAt + 3001);
    await r.monitor.check();
    r.clock.moveTo(readAt + 3001 + 59_999);
    await r.monitor.check();
    expect(r.alerts).toEqual([]);
    r.clock.moveTo(readAt + 3001 + 60_000);
    await r.monitor.check();
    r.clock.moveTo(readAt + 3001 + 120_000);
    await r.monitor.check();
    expect(r.alerts).toEqual([
      'exits of spot BTCUSDT have had no fresh price for 60 s (the last 20000, read 1970-01-01T00:16:40.000Z): stop-loss, take-profit and trailing stop are not judged there until the venue answers ticker reads again. Check the venue and the position',
    ]);
    expect(r.log.withMsg('exits: no fresh price; exits of this symbol are not judged until one is read')).toHaveLength(1);
  });

  it('a take-profit whose close is under way when the price falls through the stop-loss is relabelled stop_loss, with no second close', async () => {
    const r = rig(undefined, undefined, { stopLossPct: d('2'), takeProfitPct: d('5'), cooldownMs: 0 });
    r.state.price = '21000';
    await r.monitor.check();
    expect(r.places()).toHaveLength(1);
    expect(r.monitor.counts).toEqual({ take_profit: 1 });
    r.state.price = '19500';
    await r.monitor.check();
    await r.monitor.check();
    expect(r.places()).toHaveLength(1);
    expect(r.log.withMsg('exit relabelled').map((l) => [l.fields.was, l.fields.reason, l.fields.trigger, l.fields.last])).toEqual([['take_profit', 'stop_loss', '19600', '19500']]);
    expect(r.alerts.slice(1)).toEqual(['t: the take_profit exit of BTCUSDT under way is now a stop_loss: last 19500 reached 19600 (entry 20000); the close under way goes on, no second one is sent']);
    expect(r.monitor.counts).toEqual({ stop_loss: 1 });
    expect(r.monitor.refusal(placeOf('t-new'))).toMatch(/^exits: a stop_loss exit of BTCUSDT is under way/);
  });

  it('flat: a stale price says nothing', async () => {
    const r = rig();
    r.state.quantity = '0';
    r.state.net = '0';
    r.state.priceAt = r.clock.now();
    r.clock.moveTo(r.clock.now() + 120_000);
    await r.monitor.check();
    expect(r.log.lines).toEqual([]);
    expect(r.alerts).toEqual([]);
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
