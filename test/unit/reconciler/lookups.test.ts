// Unknown orders looked up by client order id, against a venue that refuses that look-up.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { ZERO } from '../../../src/core/decimal.js';
import { OrderRejectedError } from '../../../src/core/errors.js';
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
