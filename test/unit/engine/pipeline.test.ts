// OrderPipeline on a manual clock: the real MemoryJournal, RiskGate and BalanceHolds, a fake
// gateway standing for the venue, and a pacer whose free slots each test sets.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { BannedError, OrderRejectedError, RateLimitedError, TemporaryError } from '../../../src/core/errors.js';
import type { CancelIntent, PlaceIntent } from '../../../src/core/types.js';
import { withStatus } from '../../../src/engine/orders.js';
import type { PlaceOutcome } from '../../../src/executor/index.js';
import { VirtualPacer } from '../../../src/limiter/index.js';
import { cancelOf, cid, pipelineRig, placeOf, settle, SlowDisk, tracked, vid, type PipelineRig } from '../../fixtures/engine-parts.js';

// Each test buy (0.01 BTC at 20000) holds 200.4 USDT: its notional with the 0.2% fee allowance.

const statuses = (rig: PipelineRig, ...ids: string[]) => ids.map((id) => rig.order(id).status);
const notified = (rig: PipelineRig) => rig.notified.map((o) => [o.clientOrderId, o.status]);

/** Ends our order `id` the way the reconciler would report it. */
function end(rig: PipelineRig, id: string, status: 'canceled' | 'filled'): void {
  const ended = withStatus(rig.order(id), status, rig.clock.now());
  rig.journal.updateOrder(ended, `${status} on the venue`);
  rig.pipeline.orderChanged(ended);
}

describe('OrderPipeline: outcome to status', () => {
  it('an accepted place becomes open under its venue id; each answer is journaled and reported', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 5 } });
    rig.accept([placeOf('a'), placeOf('b', { price: d('20001') })]);
    await settle();

    expect(rig.gateway.summary()).toEqual([
      [0, 'place', ['a']],
      [0, 'place', ['b']],
    ]);
    expect(rig.order('a')).toMatchObject({ status: 'open', venueOrderId: '1001', updatedAt: 0 });
    expect(rig.order('b')).toMatchObject({ status: 'open', venueOrderId: '1002' });
    expect(rig.history('a')).toEqual([
      ['pending', 'intent'],
      ['open', 'acknowledged'],
    ]);
    expect(notified(rig)).toEqual([
      ['a', 'open'],
      ['b', 'open'],
    ]);
    expect(rig.pipeline.stats).toEqual({ sent: 2, cancelsSent: 0, accepted: 2, rejected: 0, unknown: 0, expired: 0, intentToWire: [0, 0] });
    // Two single requests took two of the five slots; the kill switch is off, so risk was not asked again.
    expect(rig.pacer.free.get('spot.order')).toBe(3);
    expect(rig.leavingAsked).toEqual([]);
    // Holds 200.4 and 200.41002 USDT until an account read sent after the answers shows them.
    expect(rig.free(0).USDT).toBe('99599.18998');
    expect(rig.free(1).USDT).toBe('100000');
  });

  it('an accepted answer with a final status keeps it (a marketable order can fill at once)', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1 } });
    rig.gateway.onPlace = () => ({ kind: 'accepted', venueOrderId: vid('55'), status: 'filled', executedQty: d('0.01') });
    rig.accept([placeOf('a')]);
    await settle();
    // With what the answer says it executed, before any of its fills is read.
    expect(rig.order('a')).toMatchObject({ status: 'filled', venueOrderId: '55', executedVolume: '0.01' });
    expect(rig.journal.orders({ openOnly: true })).toEqual([]);
  });

  it('rejected and not_sent end rejected with the error and hold nothing; unknown waits for the reconciler', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 3 } });
    const outcomes: Record<string, PlaceOutcome> = {
      r: { kind: 'rejected', error: new OrderRejectedError({ endpoint: 'spot.order', httpStatus: 400, venueCode: -1131 }, 'insufficient balance') },
      n: { kind: 'not_sent', error: new RateLimitedError({ endpoint: 'spot.order', httpStatus: 429 }, 1000) },
      u: { kind: 'unknown', error: new TemporaryError({ endpoint: 'spot.order' }, 'no answer within 20000 ms', true) },
    };
    rig.gateway.onPlace = (i) => outcomes[i.clientOrderId]!;
    rig.accept([placeOf('r'), placeOf('n'), placeOf('u')]);
    await settle();

    expect(rig.history('r')).toEqual([
      ['pending', 'intent'],
      ['rejected', 'spot.order: insufficient balance'],
    ]);
    expect(rig.history('n')).toEqual([
      ['pending', 'intent'],
      ['rejected', 'spot.order: rate limited; retry after 1000 ms'],
    ]);
    expect(rig.history('u')).toEqual([
      ['pending', 'intent'],
      ['unknown', 'spot.order: no answer within 20000 ms'],
    ]);
    expect(rig.order('u').venueOrderId).toBeUndefined();
    expect(rig.pipeline.stats).toMatchObject({ sent: 3, accepted: 0, rejected: 2, unknown: 1 });
    expect(notified(rig)).toEqual([
      ['r', 'rejected'],
      ['n', 'rejected'],
      ['u', 'unknown'],
    ]);
    expect(rig.log.withMsg('order not placed').map((l) => l.fields)).toEqual([
      { clientOrderId: 'r', outcome: 'rejected', reason: 'spot.order: insufficient balance' },
      { clientOrderId: 'n', outcome: 'not_sent', reason: 'spot.order: rate limited; retry after 1000 ms' },
    ]);
    expect(rig.log.withMsg('order outcome unknown: the reconciler will settle it').map((l) => l.fields)).toEqual([{ clientOrderId: 'u', reason: 'spot.order: no answer within 20000 ms' }]);
    // Only the unknown one may hold coins, until a read sent after its answer.
    expect(rig.free(0).USDT).toBe(`99799.6`);
    expect(rig.free(1).USDT).toBe('100000');
    expect(rig.journal.banUntil()).toBe(0);
  });

  it('a BannedError on a place journals the ban', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1 } });
    rig.gateway.onPlace = () => ({ kind: 'not_sent', error: new BannedError({ endpoint: 'spot.order', httpStatus: 418 }, 60_000) });
    rig.accept([placeOf('a')]);
    await settle();
    expect(rig.journal.banUntil()).toBe(60_000);
    expect(rig.history('a').at(-1)).toEqual(['rejected', 'spot.order: banned until 1970-01-01T00:01:00.000Z']);
    expect(rig.pipeline.stats.rejected).toBe(1);
  });

  it('a gateway that throws is logged; its orders stay pending for the reconciler', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1 } });
    rig.gateway.onPlace = () => {
      throw new Error('gateway bug');
    };
    rig.accept([placeOf('a')]);
    await settle();
    expect(rig.log.withMsg('dispatch failed')).toHaveLength(1);
    expect(rig.history('a')).toEqual([['pending', 'intent']]);
    expect(rig.pipeline.stats).toMatchObject({ sent: 1, accepted: 0, rejected: 0, unknown: 0 });
  });
});

describe('OrderPipeline: dispatch by free capacity', () => {
  it('sends only what the free slots carry; the rest goes when a slot comes back', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1 } });
    rig.accept([placeOf('a'), placeOf('b'), placeOf('c')]);
    await settle();
    expect(rig.gateway.summary()).toEqual([[0, 'place', ['a']]]);
    expect(statuses(rig, 'a', 'b', 'c')).toEqual(['open', 'pending', 'pending']);

    await rig.clock.advance(10);
    rig.pacer.giveBack('spot.order', 2);
    await settle();
    expect(rig.gateway.summary()).toEqual([
      [0, 'place', ['a']],
      [10, 'place', ['b']],
      [10, 'place', ['c']],
    ]);
    expect(rig.pipeline.stats.intentToWire).toEqual([0, 10, 10]);
    expect(rig.pacer.overruns).toEqual([]);
  });

  it('counts slots promised to jobs already waiting in the pacer as taken', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 3 } });
    rig.pacer.setQueued('spot.order', 2);
    rig.accept([placeOf('a'), placeOf('b')]);
    await settle();
    expect(rig.gateway.summary()).toEqual([[0, 'place', ['a']]]);
    rig.pacer.setQueued('spot.order', 0);
    await settle();
    expect(rig.gateway.summary()).toEqual([
      [0, 'place', ['a']],
      [0, 'place', ['b']],
    ]);
    expect(rig.pacer.overruns).toEqual([]);
  });

  it('without a slot returning, the dispatcher looks again every dispatchRetryMs', async () => {
    const rig = pipelineRig({ dispatchRetryMs: 40 });
    rig.accept([placeOf('a')]);
    await settle();
    // A slot frees without announcing itself (a pacer that frees slots by arithmetic).
    rig.pacer.free.set('spot.order', 1);
    await rig.clock.advance(39);
    expect(rig.gateway.handed).toEqual([]);
    await rig.clock.advance(1);
    expect(rig.gateway.summary()).toEqual([[40, 'place', ['a']]]);
    expect(rig.pipeline.stats.intentToWire).toEqual([40]);
  });

  it('uses the batch endpoint when the singles cannot carry the queue: full batches first, then the rest', async () => {
    const rig = pipelineRig({ free: { 'spot.batchOrders': 2 } });
    const ids = Array.from({ length: 12 }, (_, k) => `p${k}`);
    rig.accept(ids.map((id) => placeOf(id)));
    await settle();
    expect(rig.gateway.summary()).toEqual([
      [0, 'place', ids.slice(0, 10)],
      [0, 'place', ids.slice(10)],
    ]);
    expect(rig.pipeline.stats.sent).toBe(12);
    expect(rig.pacer.free.get('spot.batchOrders')).toBe(0);
  });

  it('prefers single requests while they suffice, and never batches futures', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 2, 'spot.batchOrders': 2, 'futures.order': 2 } });
    const fut = (id: string) => placeOf(id, { market: 'futures', symbol: 'E-BTC-USDT', volume: d('1'), open: 'OPEN', positionType: 1 });
    rig.accept([placeOf('s1'), fut('f1'), placeOf('s2'), fut('f2')]);
    await settle();
    expect(rig.gateway.handed.map((h) => [h.batch.market, h.batch.items.map((i) => i.clientOrderId)])).toEqual([
      ['spot', ['s1']],
      ['spot', ['s2']],
      ['futures', ['f1']],
      ['futures', ['f2']],
    ]);
    expect([...rig.pacer.free]).toEqual(expect.arrayContaining([['spot.order', 0], ['spot.batchOrders', 2], ['futures.order', 0]]));
  });

  it('paces on a real VirtualPacer: what waits goes out when the window frees its slots', async () => {
    const rig = pipelineRig({
      maxQueueMs: 10_000,
      pacer: (clock) => new VirtualPacer({ limits: { 'spot.order': 2, 'spot.batchOrders': 1 }, windowMs: 2000, safetyMarginMs: 0, clock }),
    });
    const ids = Array.from({ length: 25 }, (_, k) => `p${k}`);
    rig.accept(ids.map((id) => placeOf(id)));
    await settle();
    await rig.clock.advanceTo(1999);
    expect(rig.gateway.handed).toHaveLength(3);
    await rig.clock.advanceTo(4000);
    expect(rig.gateway.summary()).toEqual([
      [0, 'place', ids.slice(0, 10)],
      [0, 'place', ['p10']],
      [0, 'place', ['p11']],
      [2000, 'place', ids.slice(12, 22)],
      [2000, 'place', ['p22']],
      [2000, 'place', ['p23']],
      [4000, 'place', ['p24']],
    ]);
    expect(rig.pipeline.stats.intentToWire).toEqual([...Array(12).fill(0), ...Array(12).fill(2000), 4000]);
    expect(rig.journal.orders({ openOnly: true }).map((o) => o.status)).toEqual(Array(25).fill('open'));
    expect(rig.pipeline.stats.expired).toBe(0);
  });

  it('while the venue bans us, queued orders are dropped rather than held', async () => {
    const rig = pipelineRig();
    rig.pacer.pauseAll(10_000);
    rig.accept([placeOf('a'), placeOf('b')]);
    await settle();
    expect(rig.gateway.handed).toEqual([]);
    expect(rig.history('a')).toEqual([
      ['pending', 'intent'],
      ['canceled', 'not sent: trading is paused by a venue ban'],
    ]);
    expect(statuses(rig, 'a', 'b')).toEqual(['canceled', 'canceled']);
    expect(rig.free(0).USDT).toBe('100000');
    expect(rig.pipeline.stats).toMatchObject({ sent: 0, expired: 0 });
  });

  it('while the venue bans us, a cancel waits for the ban to end, then goes (a request would only be refused)', async () => {
    const rig = pipelineRig({ maxQueueMs: 60_000, free: { 'spot.order': 1, 'spot.cancel': 5 } });
    rig.accept([placeOf('a')]);
    await settle();
    rig.pacer.pauseAll(1000);
    rig.accept([cancelOf('a'), placeOf('b')]);
    await rig.clock.advance(990);
    expect(rig.gateway.summary()).toEqual([[0, 'place', ['a']]]);
    expect(rig.history('b').at(-1)).toEqual(['canceled', 'not sent: trading is paused by a venue ban']);
    expect(rig.order('a').status).toBe('open');
    await rig.clock.advance(25);
    expect(rig.gateway.summary()).toEqual([
      [0, 'place', ['a']],
      [1000, 'cancel', ['a']],
    ]);
    expect(rig.order('a').status).toBe('pending_cancel');
  });
});

describe('OrderPipeline: expiry', () => {
  it('drops an intent unsent after maxQueueMs (not at it): its order ends canceled with the reason', async () => {
    const rig = pipelineRig({ maxQueueMs: 100 });
    rig.accept([placeOf('a')]);
    await rig.clock.advance(60);
    rig.accept([placeOf('b')]);
    await rig.clock.advance(40);
    // a has waited exactly maxQueueMs: still queued.
    expect(statuses(rig, 'a', 'b')).toEqual(['pending', 'pending']);
    await rig.clock.advance(25);
    expect(rig.history('a')).toEqual([
      ['pending', 'intent'],
      ['canceled', 'not sent within 100 ms (engine.maxQueueMs)'],
    ]);
    expect(rig.order('a').updatedAt).toBe(125);
    expect(rig.order('b').status).toBe('pending');
    expect(rig.pipeline.stats.expired).toBe(1);
    expect(notified(rig)).toEqual([['a', 'canceled']]);
    expect(rig.log.withMsg('intents not sent in time were dropped (engine.maxQueueMs): the venue limits are full').map((l) => [l.level, l.fields])).toEqual([['warn', { dropped: 1, maxQueueMs: 100 }]]);
    // a's hold is released; b still holds.
    expect(rig.free(0).USDT).toBe('99799.6');

    rig.pacer.giveBack('spot.order', 1);
    await settle();
    expect(rig.gateway.summary()).toEqual([[125, 'place', ['b']]]);
    expect(rig.pipeline.stats).toMatchObject({ sent: 1, expired: 1, intentToWire: [65] });
  });
});

describe('OrderPipeline: cancels', () => {
  async function openOrder(rig: PipelineRig, id = 'a'): Promise<void> {
    rig.accept([placeOf(id)]);
    await settle();
    expect(rig.order(id).status).toBe('open');
  }

  it('a cancel of an open order goes out with its venue id; accepted leaves it pending_cancel', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1, 'spot.cancel': 2 } });
    await openOrder(rig);
    rig.accept([cancelOf('a')]);
    await settle();
    const sent = rig.gateway.handed[1]!.batch.items as readonly CancelIntent[];
    expect(sent).toEqual([{ ...cancelOf('a'), venueOrderId: '1001' }]);
    expect(rig.history('a').at(-1)).toEqual(['pending_cancel', 'cancel accepted']);
    expect(notified(rig)).toEqual([
      ['a', 'open'],
      ['a', 'pending_cancel'],
    ]);

    // A second cancel while it is pending_cancel sends nothing (the venue answers -1145 to one).
    rig.accept([cancelOf('a')]);
    await settle();
    expect(rig.gateway.handed).toHaveLength(2);
    expect(rig.pacer.free.get('spot.cancel')).toBe(1);
    expect(rig.pipeline.stats).toMatchObject({ sent: 1, cancelsSent: 1 });
  });

  it('two cancels of one order before any answer: one goes out (a second would earn -1145)', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1, 'spot.cancel': 2, 'spot.batchCancel': 5 } });
    await openOrder(rig);
    rig.gateway.hold = true;
    rig.accept([cancelOf('a')]);
    rig.accept([cancelOf('a')]);
    await settle();
    const cancels = rig.gateway.handed.filter((h) => h.batch.kind === 'cancel').map((h) => h.batch.items.map((i) => i.clientOrderId));
    expect(cancels).toEqual([['a']]);
    // While the first is unanswered a third is refused too; once answered, the order's status decides.
    rig.accept([cancelOf('a')]);
    await settle();
    expect(rig.gateway.handed.filter((h) => h.batch.kind === 'cancel')).toHaveLength(1);
    rig.gateway.answerHeld();
    await settle();
    expect(rig.order('a').status).toBe('pending_cancel');
  });

  it('a cancel answered gone leaves it pending_cancel too, for the reconciler to see how it ended', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1, 'spot.cancel': 1 } });
    await openOrder(rig);
    rig.gateway.onCancel = () => ({ kind: 'gone' });
    rig.accept([cancelOf('a')]);
    await settle();
    expect(rig.history('a').at(-1)).toEqual(['pending_cancel', 'cancel answered: already ended, or unknown to the venue']);
  });

  it('a refused cancel changes nothing and is logged; a ban on it is journaled', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1, 'spot.cancel': 2 } });
    await openOrder(rig);
    rig.gateway.onCancel = () => ({ kind: 'rejected', error: new OrderRejectedError({ endpoint: 'spot.cancel' }, 'order is being processed') });
    rig.accept([cancelOf('a')]);
    await settle();
    expect(rig.history('a')).toEqual([
      ['pending', 'intent'],
      ['open', 'acknowledged'],
    ]);
    expect(rig.log.withMsg('cancel not confirmed').map((l) => l.fields)).toEqual([{ clientOrderId: 'a', outcome: 'rejected', reason: 'spot.cancel: order is being processed' }]);

    rig.gateway.onCancel = () => ({ kind: 'not_sent', error: new BannedError({ endpoint: 'spot.cancel', httpStatus: 418 }, 90_000) });
    rig.accept([cancelOf('a')]);
    await settle();
    expect(rig.order('a').status).toBe('open');
    expect(rig.journal.banUntil()).toBe(90_000);
  });

  it('a cancel of a place still queued withdraws it: nothing is sent, its order ends canceled', async () => {
    const rig = pipelineRig();
    rig.accept([placeOf('a'), placeOf('b')]);
    rig.accept([cancelOf('a')]);
    await settle();
    expect(rig.history('a')).toEqual([
      ['pending', 'intent'],
      ['canceled', 'cancelled before it was sent'],
    ]);
    expect(rig.free(0).USDT).toBe('99799.6');
    rig.pacer.giveBack('spot.order', 5);
    await settle();
    expect(rig.gateway.summary()).toEqual([[0, 'place', ['b']]]);
    expect(rig.pipeline.stats.sent).toBe(1);
  });

  it('a cancel of an order whose answer is still out waits for its venue id, then goes out', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1, 'spot.cancel': 1 } });
    rig.gateway.hold = true;
    rig.accept([placeOf('a')]);
    await settle();
    rig.accept([cancelOf('a')]);
    await settle();
    expect(rig.gateway.summary()).toEqual([[0, 'place', ['a']]]);
    expect(rig.log.withMsg('cancel waits for the venue id of its order (in flight, or its answer was lost)').map((l) => l.fields)).toEqual([{ clientOrderId: 'a', status: 'pending' }]);

    await rig.clock.advance(30);
    rig.gateway.hold = false;
    expect(rig.gateway.answerHeld()).toBe(1);
    await settle();
    expect(rig.gateway.handed.map((h) => [h.at, h.batch.items])).toEqual([
      [0, [placeOf('a')]],
      [30, [{ ...cancelOf('a'), venueOrderId: '1001' }]],
    ]);
    expect(rig.history('a').map(([s]) => s)).toEqual(['pending', 'open', 'pending_cancel']);
  });

  it('when the answer was lost, the cancel goes out once a reconcile brings the venue id', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1, 'spot.cancel': 1 } });
    rig.gateway.onPlace = () => ({ kind: 'unknown', error: new TemporaryError({ endpoint: 'spot.order' }, 'socket hang up', true) });
    rig.accept([placeOf('a')]);
    await settle();
    rig.accept([cancelOf('a')]);
    await settle();
    expect(rig.gateway.handed).toHaveLength(1);
    expect(rig.log.withMsg('cancel waits for the venue id of its order (in flight, or its answer was lost)').map((l) => l.fields)).toEqual([{ clientOrderId: 'a', status: 'unknown' }]);

    // The reconciler finds it on the venue; an unrelated change of another order sends nothing.
    rig.pipeline.orderChanged({ ...rig.order('a'), clientOrderId: cid('other') });
    await settle();
    expect(rig.gateway.handed).toHaveLength(1);
    const found = withStatus(rig.order('a'), 'open', 5, vid('777'));
    rig.journal.updateOrder(found, 'found on the venue');
    rig.pipeline.orderChanged(found);
    await settle();
    expect(rig.gateway.handed[1]!.batch.items).toEqual([{ ...cancelOf('a'), venueOrderId: '777' }]);
    expect(rig.order('a').status).toBe('pending_cancel');
  });

  it('a waiting cancel is forgotten when its order ends first', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1, 'spot.cancel': 5 } });
    rig.gateway.onPlace = () => ({ kind: 'unknown', error: new TemporaryError({ endpoint: 'spot.order' }, 'socket hang up', true) });
    rig.accept([placeOf('a')]);
    await settle();
    rig.accept([cancelOf('a')]);
    await settle();
    end(rig, 'a', 'canceled');
    await settle();
    // Even if the order later shows a venue id, the cancel wish is gone.
    rig.pipeline.orderChanged(withStatus(rig.order('a'), 'open', 1, vid('9')));
    await settle();
    expect(rig.gateway.handed).toHaveLength(1);
  });

  it('a cancel of an ended order, or of one never journaled, sends nothing', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1, 'spot.cancel': 5 } });
    await openOrder(rig);
    end(rig, 'a', 'filled');
    rig.accept([cancelOf('a'), cancelOf('ghost')]);
    await settle();
    expect(rig.gateway.handed).toHaveLength(1);
    expect(rig.log.withMsg('cancel skipped: no such order').map((l) => l.fields)).toEqual([{ clientOrderId: 'ghost' }]);
    expect(rig.order('a').status).toBe('filled');
  });
});

describe('OrderPipeline: replacements that wait for the order they replace', () => {
  const replacement = (id: string, after: string): PlaceIntent => placeOf(id, { price: d('20100'), after: cid(after) });

  it('is held while the old order lives, and sent once it has ended', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 5 } });
    rig.accept([placeOf('a')]);
    await settle();
    rig.accept([replacement('b', 'a')]);
    await settle();
    expect(rig.gateway.summary()).toEqual([[0, 'place', ['a']]]);

    // A partial fill is not an end.
    const partly = withStatus(rig.order('a'), 'partially_filled', 1);
    rig.journal.updateOrder(partly, 'fill');
    rig.pipeline.orderChanged(partly);
    await settle();
    expect(rig.gateway.handed).toHaveLength(1);

    await rig.clock.advance(20);
    end(rig, 'a', 'canceled');
    await settle();
    expect(rig.gateway.summary()).toEqual([
      [0, 'place', ['a']],
      [20, 'place', ['b']],
    ]);
    const sent = rig.gateway.handed[1]!.batch.items[0] as PlaceIntent;
    expect(sent.after).toBeUndefined();
    expect(rig.order('b')).toMatchObject({ status: 'open', venueOrderId: '1002' });
    // It queued when the old one ended: no time waiting for capacity.
    expect(rig.pipeline.stats.intentToWire).toEqual([0, 0]);
  });

  it('is dropped, never sent, when the old order filled instead', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 5 } });
    rig.accept([placeOf('a')]);
    await settle();
    rig.accept([replacement('b', 'a')]);
    end(rig, 'a', 'filled');
    await settle();
    expect(rig.gateway.summary()).toEqual([[0, 'place', ['a']]]);
    expect(rig.history('b')).toEqual([
      ['pending', 'intent'],
      ['canceled', 'not sent: the order it replaces (a) filled'],
    ]);
    expect(notified(rig)).toContainEqual(['b', 'canceled']);
    // Only a's hold is left (until a read after its answer).
    expect(rig.free(0).USDT).toBe('99799.6');
  });

  it('goes at once when the old order had already ended, and is dropped at once if it had filled', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 5 } });
    rig.accept([placeOf('a'), placeOf('x')]);
    await settle();
    end(rig, 'a', 'canceled');
    end(rig, 'x', 'filled');
    rig.accept([replacement('b', 'a'), replacement('y', 'x')]);
    await settle();
    expect(rig.gateway.summary()).toEqual([
      [0, 'place', ['a']],
      [0, 'place', ['x']],
      [0, 'place', ['b']],
    ]);
    expect(statuses(rig, 'b', 'y')).toEqual(['open', 'canceled']);
    expect(rig.history('y').at(-1)).toEqual(['canceled', 'not sent: the order it replaces (x) filled']);
  });

  it('a cancel of a held replacement withdraws it: never sent, even once the order it waited for ends', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 5, 'spot.cancel': 5 } });
    rig.accept([placeOf('a')]);
    await settle();
    rig.accept([replacement('b', 'a')]);
    await settle();
    rig.accept([cancelOf('b')]);
    await settle();
    expect(rig.history('b').at(-1)).toEqual(['canceled', 'cancelled before it was sent']);
    end(rig, 'a', 'canceled');
    await settle();
    expect(rig.gateway.summary()).toEqual([[0, 'place', ['a']]]);
    expect(rig.log.withMsg('cancel waits for the venue id of its order (in flight, or its answer was lost)')).toEqual([]);
  });
});

describe('OrderPipeline: dropAll', () => {
  it('heldOnly drops the held replacements and keeps the queue; then everything queued ends canceled with the reason', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1 } });
    rig.accept([placeOf('a')]);
    await settle();
    rig.accept([replacement('b', 'a'), placeOf('c')]);
    await settle();
    expect(statuses(rig, 'a', 'b', 'c')).toEqual(['open', 'pending', 'pending']);

    await rig.pipeline.dropAll('dropped at shutdown', { heldOnly: true });
    expect(rig.history('b').at(-1)).toEqual(['canceled', 'not sent: the daemon stopped before the order it replaces ended']);
    expect(rig.order('c').status).toBe('pending');

    await rig.pipeline.dropAll('dropped at shutdown');
    expect(rig.history('c')).toEqual([
      ['pending', 'intent'],
      ['canceled', 'dropped at shutdown'],
    ]);
    expect(rig.free(1).USDT).toBe('100000');

    // Nothing is left to send: a slot coming back, or the old order ending, sends nothing.
    rig.pacer.giveBack('spot.order', 1);
    end(rig, 'a', 'canceled');
    await settle();
    expect(rig.gateway.summary()).toEqual([[0, 'place', ['a']]]);
    expect(notified(rig)).toEqual([
      ['a', 'open'],
      ['b', 'canceled'],
      ['c', 'canceled'],
    ]);
  });

  function replacement(id: string, after: string): PlaceIntent {
    return placeOf(id, { price: d('20100'), after: cid(after) });
  }
});

describe('OrderPipeline: the kill switch at send', () => {
  it('a reduce-only switch since acceptance stops the places that would grow the position, and sends the rest', async () => {
    const rig = pipelineRig({ positions: { 'spot:BTCUSDT': '1' } });
    rig.accept([placeOf('s', { side: 'SELL', volume: d('0.5') }), placeOf('b', { volume: d('0.1') })]);
    await rig.clock.advance(10);
    // Switched while they waited for a slot.
    rig.risk.setKillSwitch('reduce_only');
    rig.pacer.giveBack('spot.batchOrders', 1);
    await settle();

    // Planned as one batch of two; only the sell leaves.
    expect(rig.gateway.summary()).toEqual([[10, 'place', ['s']]]);
    expect(rig.leavingAsked).toEqual([['b', 's']]);
    expect(rig.history('b')).toEqual([
      ['pending', 'intent'],
      ['canceled', 'not sent: kill_switch: reduce-only: BUY 0.1 BTCUSDT with open buys 0 would take the position 1 to 1.1; only orders that shrink it are allowed'],
    ]);
    expect(rig.order('s').status).toBe('open');
    expect(rig.pipeline.stats).toMatchObject({ sent: 1, accepted: 1 });
    expect(rig.log.withMsg('queued orders not sent: the kill switch changed since they were accepted').map((l) => [l.level, l.fields])).toEqual([['warn', { dropped: 1, killSwitch: 'reduce_only' }]]);
  });

  it('halted stops every queued place; cancels still go', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1, 'spot.cancel': 1 } });
    rig.accept([placeOf('a')]);
    await settle();
    rig.pacer.free.set('spot.cancel', 0);
    rig.accept([placeOf('b'), cancelOf('a')]);
    await rig.clock.advance(10);
    rig.risk.setKillSwitch('halted');
    rig.pacer.giveBack('spot.order', 1);
    rig.pacer.giveBack('spot.cancel', 1);
    await settle();
    expect(rig.gateway.summary()).toEqual([
      [0, 'place', ['a']],
      [10, 'cancel', ['a']],
    ]);
    expect(rig.history('b').at(-1)).toEqual(['canceled', 'not sent: kill_switch: trading is halted; no new orders until the kill switch is released']);
    expect(rig.order('a').status).toBe('pending_cancel');
    expect(rig.pipeline.stats).toMatchObject({ sent: 1, cancelsSent: 1 });
  });
});

describe('OrderPipeline: drain and handedOff', () => {
  it('handedOff waits until the queue is handed to the gateway; drain also waits for the answers', async () => {
    const rig = pipelineRig();
    rig.gateway.hold = true;
    rig.accept([placeOf('a')]);
    const handed = tracked(rig.pipeline.handedOff());
    const drained = tracked(rig.pipeline.drain());
    await rig.clock.advance(100);
    expect([handed.done, drained.done]).toEqual([false, false]);

    rig.pacer.giveBack('spot.order', 1);
    await settle();
    expect(rig.gateway.handed).toHaveLength(1);
    // Both look again on their next 25 ms poll.
    await rig.clock.advance(25);
    expect([handed.done, drained.done]).toEqual([true, false]);

    rig.gateway.answerHeld();
    await settle();
    expect(drained.done).toBe(true);
    expect(rig.order('a').status).toBe('open');
  });

  it('both resolve at once when nothing is queued or in flight', async () => {
    const rig = pipelineRig();
    const handed = tracked(rig.pipeline.handedOff());
    const drained = tracked(rig.pipeline.drain());
    await settle();
    expect([handed.done, drained.done]).toEqual([true, true]);
    expect(rig.clock.pending()).toBe(0);
  });
});

describe('OrderPipeline: an order leaves only once its intent is durable', () => {
  it('waits for the journal sync that covers the intent; one sync covers every intent written before it', async () => {
    const disk = new SlowDisk();
    const rig = pipelineRig({ free: { 'spot.order': 5 }, journal: disk });
    rig.accept([placeOf('a')]);
    rig.accept([placeOf('b', { price: d('20001') })]);
    await settle();
    expect(rig.gateway.summary()).toEqual([]);
    expect(disk.pending).toBe(1);
    disk.sync();
    await settle();
    expect(rig.gateway.summary()).toEqual([
      [0, 'place', ['a']],
      [0, 'place', ['b']],
    ]);
  });

  it('a place queued while a sync is in flight waits for the next one', async () => {
    const disk = new SlowDisk();
    const rig = pipelineRig({ free: { 'spot.order': 5 }, journal: disk });
    rig.accept([placeOf('a')]);
    await settle();
    rig.accept([placeOf('b', { price: d('20001') })]);
    disk.sync(); // covers both writes: b was journaled before this sync finished
    await settle();
    expect(rig.gateway.summary().map((s) => s[2])).toEqual([['a'], ['b']]);

    rig.accept([placeOf('c', { price: d('20002') })]);
    await settle();
    expect(rig.gateway.summary().map((s) => s[2])).toEqual([['a'], ['b']]);
    disk.sync();
    await settle();
    expect(rig.gateway.summary().map((s) => s[2])).toEqual([['a'], ['b'], ['c']]);
  });

  it('a disk that cannot sync sends nothing: logged, and the intent expires after maxQueueMs', async () => {
    const disk = new SlowDisk();
    const rig = pipelineRig({ free: { 'spot.order': 5 }, journal: disk, maxQueueMs: 100, dispatchRetryMs: 25 });
    rig.accept([placeOf('a')]);
    await settle();
    disk.fail(new Error('EIO'));
    await settle();
    expect(rig.log.withMsg('the journal could not be synced to disk: orders are not sent')).toHaveLength(1);
    for (let i = 0; i < 8; i++) {
      await rig.clock.advance(25);
      disk.fail(new Error('EIO'));
      await settle();
    }
    expect(rig.gateway.summary()).toEqual([]);
    expect(rig.order('a').status).toBe('canceled');
  });
});
