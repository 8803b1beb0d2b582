import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { Order } from '../../../src/core/types.js';
import { defineStrategy, z, type OrderEvent } from '../../../src/strategy/api.js';
import type { HostOutput } from '../../../src/strategy/host.js';
import { Cancelling } from '../../../src/strategy/cancelling.js';
import { harness } from '../../../src/strategy/testing.js';
import { placeOf } from '../../fixtures/engine-parts.js';

const ids = (...list: string[]) => list.map((clientOrderId) => ({ clientOrderId }));

describe('Cancelling', () => {
  it('forgets targets that are no longer open: a day of cancels leaves it near the open orders', () => {
    const c = new Cancelling();
    let max = 0;
    // Each cancelled order ends before the next is cancelled; five stay open throughout.
    const resting = ['keep-0', 'keep-1', 'keep-2', 'keep-3', 'keep-4'];
    for (const id of resting) c.add(id, ids(...resting));
    for (let i = 0; i < 100_000; i++) {
      c.add(`gone-${i}`, ids(...resting, `gone-${i}`));
      max = Math.max(max, c.size);
    }
    expect(max).toBeLessThanOrEqual(512);
    for (const id of resting) expect(c.has(id)).toBe(true);
  });

  it('never forgets a target that is still open', () => {
    const c = new Cancelling();
    const open = Array.from({ length: 2000 }, (_, i) => `open-${i}`);
    for (const id of open) c.add(id, ids(...open));
    expect(open.every((id) => c.has(id))).toBe(true);
    expect(c.size).toBe(2000);
  });
});

const order = (clientOrderId: string): Order => ({ ...placeOf(clientOrderId, { strategyId: 'test' }), executedVolume: d('0'), status: 'open', createdAt: 0, updatedAt: 0 });

describe('ctx.cancel after many ended cancels', () => {
  it('still sends one cancel for an order that stays open', async () => {
    let target = '';
    const def = defineStrategy({ apiVersion: 1, name: 'c', params: z.object({}), create: (ctx) => ({ onTick: () => void ctx.cancel(target as never) }) });
    const { host, view } = harness(def);
    const resting = order('sltest-rest');
    view.orders = [resting];
    target = 'sltest-rest';
    expect((await host.tick()).intents.map((i) => i.clientOrderId)).toEqual(['sltest-rest']);
    // A thousand other orders are cancelled and end, which prunes the targets more than once.
    for (let i = 0; i < 1000; i++) {
      target = `sltest-${i}`;
      view.orders = [resting, order(target)];
      expect((await host.tick()).intents).toHaveLength(1);
      view.orders = [resting];
    }
    target = 'sltest-rest';
    expect((await host.tick()).intents).toEqual([]);
  });
});

describe('a cancel whose outcome the strategy hears', () => {
  /** Each tick asks to cancel `target` with cancel() and cancelAll(); events are kept. */
  function canceller(mode: 'cancel' | 'replace' = 'cancel') {
    const events: OrderEvent[] = [];
    const counted: number[] = [];
    const def = defineStrategy({
      apiVersion: 2,
      name: 'c',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          if (mode === 'replace') ctx.replace('sltest-1' as ClientOrderId, { price: '101' });
          else {
            ctx.cancel('sltest-1' as ClientOrderId);
            counted.push(ctx.cancelAll());
          }
        },
        onOrderEvent: (e) => void events.push(e),
      }),
    });
    const h = harness(def);
    h.view.orders = [order('sltest-1')];
    return { ...h, events, counted };
  }
  const kinds = (out: HostOutput) => out.intents.map((i) => `${i.kind} ${i.clientOrderId}`);

  it('after a cancel failed, cancel() and cancelAll() ask again; while one is on its way they ask nothing; the strategy hears why', async () => {
    const { host, view, events, counted } = canceller();
    expect(kinds(await host.tick())).toEqual(['cancel sltest-1']);
    // Still on its way: asking again sends nothing, and cancelAll() counts nothing to cancel.
    expect(kinds(await host.tick())).toEqual([]);
    expect(counted).toEqual([0, 0]);

    await host.cancelFailed(view.orders[0]!, 'not sent: trading is paused by a venue ban');
    expect(events).toEqual([{ kind: 'cancel_failed', order: view.orders[0], reason: 'not sent: trading is paused by a venue ban' }]);
    expect(kinds(await host.tick())).toEqual(['cancel sltest-1']);
    expect(counted).toEqual([0, 0, 0]);
  });

  it('cancelAll() asks again after a failure, and counts the order', async () => {
    const events: OrderEvent[] = [];
    const counted: number[] = [];
    const def = defineStrategy({ apiVersion: 2, name: 'c', params: z.object({}), create: (ctx) => ({ onTick: () => void counted.push(ctx.cancelAll()), onOrderEvent: (e) => void events.push(e) }) });
    const { host, view } = harness(def);
    view.orders = [order('sltest-1')];
    expect(kinds(await host.tick())).toEqual(['cancel sltest-1']);
    expect(kinds(await host.tick())).toEqual([]);
    await host.cancelFailed(view.orders[0]!, 'refused: spot.cancel: order is being processed');
    expect(kinds(await host.tick())).toEqual(['cancel sltest-1']);
    expect(counted).toEqual([1, 0, 1]);
    expect(events.map((e) => e.kind)).toEqual(['cancel_failed']);
  });

  it('replace() after its cancel half failed asks again: a cancel and a place', async () => {
    const { host, view, events } = canceller('replace');
    view.orders = [{ ...order('sltest-1'), price: d('100') }];
    expect(kinds(await host.tick()).map((k) => k.split(' ')[0])).toEqual(['cancel', 'place']);
    await host.cancelFailed(view.orders[0]!, 'not sent: trading is paused by a venue ban');
    expect(kinds(await host.tick()).map((k) => k.split(' ')[0])).toEqual(['cancel', 'place']);
    expect(events.map((e) => e.kind)).toEqual(['cancel_failed']);
  });

  it('a cancel the venue took is forgotten: if the venue shows the order open again, it may be cancelled again; one pending_cancel is not', async () => {
    const { host, view } = canceller();
    expect(kinds(await host.tick())).toEqual(['cancel sltest-1']);
    const pending = { ...view.orders[0]!, status: 'pending_cancel' as const };
    await host.orderUpdate(pending);
    view.orders = [pending];
    expect(kinds(await host.tick())).toEqual([]);
    // The venue lists it open after all (the cancel did not take there).
    view.orders = [order('sltest-1')];
    await host.orderUpdate(view.orders[0]!);
    expect(kinds(await host.tick())).toEqual(['cancel sltest-1']);
  });

  it('a failed cancel it did not ask for (the stop\'s, the engine\'s) is not an event', async () => {
    const { host, view, events } = canceller();
    await host.cancelFailed(view.orders[0]!, 'dropped at shutdown');
    expect(events).toEqual([]);
  });
});
