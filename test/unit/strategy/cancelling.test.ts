import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { Order } from '../../../src/core/types.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
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
