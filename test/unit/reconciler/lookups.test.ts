// Unknown orders looked up by client order id: against a venue that refuses that look-up, and
// where the order found is bound by looks to another lost answer already.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { ZERO } from '../../../src/core/decimal.js';
import { OrderRejectedError, UnknownOrderError } from '../../../src/core/errors.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { AccountReader } from '../../../src/core/ports.js';
import { OrderLookups } from '../../../src/reconciler/lookups.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { pendingOrder, placeIntent } from '../../contract/journal.contract.js';
import { MemoryLog } from '../../fixtures/engine-parts.js';

function rig(refusal: OrderRejectedError) {
  const journal = new MemoryJournal();
  for (const id of ['slt-1', 'slt-2']) {
    const intent = placeIntent('t', id);
    journal.recordIntent(intent, { ...pendingOrder(intent, 0), status: 'unknown' });
  }
  let asked = 0;
  const reader = {
    orderByClientId: async () => {
      asked++;
      throw refusal;
    },
  } as unknown as AccountReader;
  const log = new MemoryLog();
  const lookups = new OrderLookups({ readers: { spot: reader, futures: reader }, journal, clock: new ManualClock(0), log, onOrder: async () => undefined, filled: () => ZERO });
  return { lookups, journal, log, asked: () => asked };
}

describe('unknown orders looked up by client order id', () => {
  it.each([
    ['a parameter error', new OrderRejectedError({ endpoint: 'spot.queryOrder', httpStatus: 400, venueCode: -1102 }, 'Mandatory parameter orderId was not sent')],
    ['a 400 without a venue code (a gateway page for the missing orderId)', new OrderRejectedError({ endpoint: 'spot.queryOrder', httpStatus: 400 }, 'HTTP 400 without a venue error code')],
  ])('stop at %s, remembered: the orders are left to the open orders and trades', async (_what, refusal) => {
    const { lookups, journal, log, asked } = rig(refusal);
    await lookups.unknowns('spot', 'BTCUSDT', 5);
    await lookups.unknowns('spot', 'BTCUSDT', 5);
    expect(asked()).toBe(1);
    expect(journal.cursor('venue:spot:clientIdLookup')).toBe('no');
    expect(log.withMsg('the venue does not look orders up by client order id; lost answers are settled from its open orders and trades')).toHaveLength(1);
    expect(journal.order('slt-1')!.status).toBe('unknown');
  });

  it('a business refusal with a code is not taken for one: asked again next pass', async () => {
    const { lookups, journal, asked } = rig(new OrderRejectedError({ endpoint: 'spot.queryOrder', httpStatus: 400, venueCode: -1121 }, 'Invalid symbol.'));
    await lookups.unknowns('spot', 'BTCUSDT', 5);
    await lookups.unknowns('spot', 'BTCUSDT', 5);
    expect(asked()).toBe(4);
    expect(journal.cursor('venue:spot:clientIdLookup')).toBeUndefined();
  });
});

describe('an unknown order found by its client order id', () => {
  function found(boundToOther: boolean) {
    const journal = new MemoryJournal();
    for (const id of ['slt-1', 'slt-2']) {
      const intent = placeIntent('t', id);
      journal.recordIntent(intent, { ...pendingOrder(intent, 0), status: 'unknown' });
    }
    const venueId = '900000000000000001' as VenueOrderId;
    // slt-1 took slt-2's venue order by looks (identical lost answers).
    if (boundToOther) journal.updateOrder({ ...journal.order('slt-1')!, status: 'open', venueOrderId: venueId }, 'found on the venue: by its side, price, volume and time (open)');
    const o = journal.order('slt-2')!;
    const asked: string[] = [];
    const reader = {
      orderByClientId: async (_symbol: string, clientOrderId: string) => {
        asked.push(clientOrderId);
        if (clientOrderId !== 'slt-2') throw new UnknownOrderError({ endpoint: 'spot.queryOrder', httpStatus: 400, venueCode: -2013 }, 'Order does not exist.');
        return { orderId: venueId, clientOrderId: 'slt-2', symbol: o.symbol, side: o.side, type: o.type, price: o.price, origQty: o.volume, executedQty: ZERO, status: 'open', venueStatus: 'NEW', time: 5 };
      },
    } as unknown as AccountReader;
    const lookups = new OrderLookups({ readers: { spot: reader, futures: reader }, journal, clock: new ManualClock(10), log: new MemoryLog(), onOrder: async () => undefined, filled: () => ZERO });
    return { lookups, journal, venueId, asked: () => asked };
  }

  it('is bound to that venue order', async () => {
    const { lookups, journal, venueId } = found(false);
    await lookups.unknowns('spot', 'BTCUSDT', 5);
    expect(journal.order('slt-2')).toMatchObject({ status: 'open', venueOrderId: venueId });
  });

  it('is left to its looks when an identical lost answer holds that venue order: never two orders on one venue id', async () => {
    const { lookups, journal, venueId, asked } = found(true);
    await lookups.unknowns('spot', 'BTCUSDT', 5);
    await lookups.unknowns('spot', 'BTCUSDT', 5);
    expect(asked()).toEqual(['slt-2']); // once: not asked again
    expect(journal.ordersByVenueId(venueId).map((o) => o.clientOrderId)).toEqual(['slt-1']);
    expect(journal.order('slt-2')).toMatchObject({ status: 'unknown' });
    expect(journal.order('slt-2')!.venueOrderId).toBeUndefined();
  });
});

describe('the names the venue gives venue orders', () => {
  it('outlive a venue order that left the reads while the lost answer it names still awaits, and no longer', async () => {
    const journal = new MemoryJournal();
    const names: Record<string, string> = { '11': 'slt-1', '12': 'slt-2', '13': 'web-ui-7' };
    const reader = { order: async (_symbol: string, id: string) => ({ clientOrderId: names[id] }) } as unknown as AccountReader;
    const lookups = new OrderLookups({ readers: { spot: reader, futures: reader }, journal, clock: new ManualClock(0), log: new MemoryLog(), onOrder: async () => undefined, filled: () => ZERO });
    await lookups.identify('spot', 'BTCUSDT', ['11', '12', '13'] as VenueOrderId[], 8);
    expect([...lookups.named('spot', 'BTCUSDT')]).toEqual([['slt-1', '11'], ['slt-2', '12'], ['web-ui-7', '13']]);
    // None of the three is in the reads any more; only slt-1 still awaits its answer.
    lookups.keepNames('spot', 'BTCUSDT', new Set(), new Set(['slt-1']));
    expect([...lookups.named('spot', 'BTCUSDT')]).toEqual([['slt-1', '11']]);
    expect(lookups.nameOf('spot', 'BTCUSDT', '12')).toBeUndefined();
    expect(lookups.named('futures', 'BTCUSDT').size).toBe(0);
    lookups.keepNames('spot', 'BTCUSDT', new Set(), new Set());
    expect(lookups.named('spot', 'BTCUSDT').size).toBe(0);
  });
});
