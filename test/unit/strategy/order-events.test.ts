import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { Order, OrderStatus } from '../../../src/core/types.js';
import { OrderEvents } from '../../../src/strategy/order-events.js';
import { pendingOrder, placeIntent } from '../../contract/journal.contract.js';

const order = (id: string, status: OrderStatus, executed = '0'): Order => ({ ...pendingOrder(placeIntent('s', id), 1), status, executedVolume: d(executed) });
const kinds = (events: OrderEvents, updates: Order[]) => updates.map((o) => events.next(o, undefined)?.kind);

describe('OrderEvents', () => {
  it('says each change once: accepted, partial fills as they grow, filled; nothing for repeats, before or after the end', () => {
    const e = new OrderEvents();
    expect(kinds(e, [order('a', 'pending'), order('a', 'open'), order('a', 'open'), order('a', 'partially_filled', '0.1'), order('a', 'partially_filled', '0.1'), order('a', 'partially_filled', '0.2'), order('a', 'filled', '1'), order('a', 'filled', '1'), order('a', 'canceled', '1')])).toEqual([
      undefined,
      'accepted',
      undefined,
      'partially_filled',
      undefined,
      'partially_filled',
      'filled',
      undefined,
      undefined,
    ]);
  });

  it('follows an open order however many others end meanwhile, and forgets ended ones beyond its bound', () => {
    const e = new OrderEvents();
    expect(kinds(e, [order('resting', 'open'), order('first-done', 'filled', '1')])).toEqual(['accepted', 'filled']);
    for (let i = 0; i < 20_000; i++) e.next(order(`o${i}`, 'canceled'), undefined);
    // Still followed: its repeat is no new acceptance.
    expect(kinds(e, [order('resting', 'open')])).toEqual([undefined]);
    // Ended 20,000 orders ago: forgotten, so its late repeat reads as new (bounded memory).
    expect(kinds(e, [order('first-done', 'filled', '1')])).toEqual(['filled']);
  });
});
