// OrderPipeline: a cancel that ends without effect (refused, not confirmed, its send failed,
// expired unsent, dropped at the stop) is reported, so whoever asked may ask again; one still
// in flight is never sent twice; a replacement held for an order whose cancel failed is dropped. The real journal, risk and holds on a manual
// clock, a fake gateway for the venue.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { BannedError, OrderRejectedError, TemporaryError } from '../../../src/core/errors.js';
import type { PlaceIntent } from '../../../src/core/types.js';
import { withStatus } from '../../../src/engine/orders.js';
import { cancelOf, cid, pipelineRig, placeOf, settle, type PipelineRig } from '../../fixtures/engine-parts.js';

const cancelsHanded = (rig: PipelineRig) => rig.gateway.handed.filter((h) => h.batch.kind === 'cancel').map((h) => [h.at, h.batch.items.map((i) => i.clientOrderId)]);
const replacement = (id: string, after: string): PlaceIntent => placeOf(id, { price: d('20100'), after: cid(after) });

async function openOrder(rig: PipelineRig, id = 'a'): Promise<void> {
  rig.accept([placeOf(id)]);
  await settle();
  expect(rig.order(id).status).toBe('open');
}

/** Ends our order `id` the way the reconciler would report it. */
function end(rig: PipelineRig, id: string, status: 'canceled' | 'filled'): void {
  const ended = withStatus(rig.order(id), status, rig.clock.now());
  rig.journal.updateOrder(ended, `${status} on the venue`);
  rig.pipeline.orderChanged(ended);
}

describe('OrderPipeline: a cancel that ends without effect', () => {
  it('refused, not confirmed or failed to send: reported with why while the order is open, and it may be cancelled again; one in flight is not sent twice', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 2, 'spot.cancel': 10 } });
    await openOrder(rig, 'a');
    await openOrder(rig, 'x');
    rig.gateway.hold = true;
    rig.gateway.onCancel = () => ({ kind: 'rejected', error: new OrderRejectedError({ endpoint: 'spot.cancel' }, 'order is being processed') });
    rig.accept([cancelOf('a'), cancelOf('x')]);
    rig.accept([cancelOf('a')]);
    await settle();
    expect(cancelsHanded(rig)).toEqual([[0, ['a']], [0, ['x']]]);
    // x filled while its cancel was out: it needs no other, and nobody hears of the refusal.
    end(rig, 'x', 'filled');
    rig.gateway.hold = false;
    rig.gateway.answerHeld();
    await settle();
    rig.gateway.onCancel = () => ({ kind: 'not_sent', error: new BannedError({ endpoint: 'spot.cancel', httpStatus: 418 }, 90_000) });
    rig.accept([cancelOf('a')]);
    await settle();
    rig.gateway.onCancel = () => ({ kind: 'unknown', error: new TemporaryError({ endpoint: 'spot.cancel' }, 'socket hang up', true) });
    rig.accept([cancelOf('a')]);
    await settle();
    rig.gateway.onCancel = () => {
      throw new Error('gateway bug');
    };
    rig.accept([cancelOf('a')]);
    await settle();
    expect(rig.cancelFailures).toEqual([
      ['a', 'refused: spot.cancel: order is being processed'],
      ['a', 'not confirmed: spot.cancel: banned until 1970-01-01T00:01:30.000Z'],
      ['a', 'not confirmed: spot.cancel: socket hang up'],
      ['a', 'not confirmed: gateway bug'],
    ]);
    expect(rig.order('a').status).toBe('open');

    // Each failure let the next cancel go; this one is taken, and not reported.
    rig.gateway.onCancel = () => ({ kind: 'accepted' });
    rig.accept([cancelOf('a')]);
    await settle();
    expect(cancelsHanded(rig).filter(([, ids]) => (ids as string[])[0] === 'a')).toHaveLength(5);
    expect(rig.order('a').status).toBe('pending_cancel');
    expect(rig.cancelFailures).toHaveLength(4);
  });

  it('one that expires unsent (engine.maxQueueMs) is reported, and the order may be cancelled again', async () => {
    const rig = pipelineRig({ maxQueueMs: 100, free: { 'spot.order': 1 } });
    await openOrder(rig);
    rig.accept([cancelOf('a')]);
    await rig.clock.advance(125);
    expect(rig.cancelFailures).toEqual([['a', 'not sent within 100 ms (engine.maxQueueMs)']]);
    rig.accept([cancelOf('a')]);
    rig.pacer.giveBack('spot.cancel', 1);
    await settle();
    expect(cancelsHanded(rig)).toEqual([[125, ['a']]]);
    expect(rig.order('a').status).toBe('pending_cancel');
  });

  it('one dropped at the stop is reported', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 1 } });
    await openOrder(rig);
    rig.accept([cancelOf('a')]);
    await settle();
    await rig.pipeline.dropAll('dropped at shutdown');
    expect(rig.cancelFailures).toEqual([['a', 'dropped at shutdown']]);
  });

  it('a replacement held for the order it replaces is dropped when that order\'s cancel fails; a second replace then holds only its own', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 5, 'spot.cancel': 5 } });
    await openOrder(rig);
    rig.gateway.onCancel = () => ({ kind: 'rejected', error: new OrderRejectedError({ endpoint: 'spot.cancel' }, 'order is being processed') });
    rig.accept([cancelOf('a'), replacement('b', 'a')]);
    await settle();
    expect(rig.history('b').at(-1)).toEqual(['canceled', 'not sent: the cancel of the order it replaces (a) failed: refused: spot.cancel: order is being processed']);
    expect(rig.cancelFailures).toEqual([['a', 'refused: spot.cancel: order is being processed']]);

    rig.gateway.onCancel = () => ({ kind: 'accepted' });
    rig.accept([cancelOf('a'), replacement('c', 'a')]);
    await settle();
    end(rig, 'a', 'canceled');
    await settle();
    expect(rig.gateway.summary().filter(([, kind]) => kind === 'place')).toEqual([
      [0, 'place', ['a']],
      [0, 'place', ['c']],
    ]);
  });
});
