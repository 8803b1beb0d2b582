// Unknown orders looked up by client order id: against a venue that refuses that look-up, and
// where the order found is bound by looks to another lost answer already.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { ZERO } from '../../../src/core/decimal.js';
import { OrderRejectedError, UnknownOrderError } from '../../../src/core/errors.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { AccountReader } from '../../../src/core/ports.js';
import type { ClientIdCarrier } from '../../../src/core/types.js';
import { OrderLookups } from '../../../src/reconciler/lookups.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { pendingOrder, placeIntent } from '../../contract/journal.contract.js';
import { MemoryLog } from '../../fixtures/engine-parts.js';

/**
 * recvWindow 5 s and a clock error of 20 ms: a lost answer's order may be booked up to 6,020 ms
 * after it, and shown by the venue's lookups a drift.graceMs (10 s) after that.
 */
const WINDOW = { recvWindowMs: 5000, venueClock: () => ({ offsetMs: 0, errorMs: 20 }), graceMs: 10_000 };
const LATER = 16_020;

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
  const lookups = new OrderLookups({ readers: { spot: reader, futures: reader }, journal, clock: new ManualClock(LATER), log, onOrder: async () => undefined, filled: () => ZERO, carrierOf: () => undefined, ...WINDOW });
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
    const lookups = new OrderLookups({ readers: { spot: reader, futures: reader }, journal, clock: new ManualClock(LATER + 10), log: new MemoryLog(), onOrder: async () => undefined, filled: () => ZERO, carrierOf: () => undefined, ...WINDOW });
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
    const lookups = new OrderLookups({ readers: { spot: reader, futures: reader }, journal, clock: new ManualClock(LATER), log: new MemoryLog(), onOrder: async () => undefined, filled: () => ZERO, carrierOf: () => undefined, ...WINDOW });
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

describe('"no such order" by client order id proves an order absent only for the way its id went', () => {
  // A venue may keep the client order ids of order requests and drop those of batch items (the
  // notes' item shows none): one order found proves only the way it was sent.
  function rig(market: 'spot' | 'futures', carriers: Record<string, ClientIdCarrier | undefined>, proven: Record<string, 'yes' | 'no'>, found: Record<string, VenueOrderId> = {}) {
    const journal = new MemoryJournal();
    for (const id of Object.keys(carriers)) {
      const intent = { ...placeIntent('t', id), market, symbol: market === 'spot' ? 'BTCUSDT' : 'E-BTC-USDT' };
      journal.recordIntent(intent, { ...pendingOrder(intent, 0), status: 'unknown' });
    }
    for (const [key, v] of Object.entries(proven)) journal.setCursor(key, v);
    const asked: string[] = [];
    const reader = {
      orderByClientId: async (symbol: string, clientOrderId: string) => {
        asked.push(clientOrderId);
        const venueId = found[clientOrderId];
        if (venueId === undefined) throw new UnknownOrderError({ endpoint: 'spot.queryOrder', httpStatus: 400, venueCode: -2013 }, 'Order does not exist.');
        const o = journal.order(clientOrderId)!;
        return { orderId: venueId, clientOrderId, symbol, side: o.side, type: o.type, price: o.price, origQty: o.volume, executedQty: ZERO, status: 'open', venueStatus: 'NEW', time: 5 };
      },
    } as unknown as AccountReader;
    const lookups = new OrderLookups({ readers: { spot: reader, futures: reader }, journal, clock: new ManualClock(LATER + 10), log: new MemoryLog(), onOrder: async () => undefined, filled: () => ZERO, carrierOf: (id) => carriers[id], ...WINDOW });
    const symbol = market === 'spot' ? 'BTCUSDT' : 'E-BTC-USDT';
    return { journal, asked, lookups, pass: () => lookups.unknowns(market, symbol, 8), status: (id: string) => journal.order(id)!.status };
  }
  const ORDERS_PROVEN = { 'venue:spot:clientIdLookup': 'yes' } as const;

  it('a batch item, where only order requests are proven: left unknown (its open orders and trades settle it), not asked again', async () => {
    const { pass, status, asked, journal } = rig('spot', { 'slt-1': 'batch', 'slt-2': 'order' }, ORDERS_PROVEN);
    await pass();
    await pass();
    expect([status('slt-1'), status('slt-2')]).toEqual(['unknown', 'rejected']);
    expect(asked).toEqual(['slt-1', 'slt-2']);
    expect(journal.cursor('venue:spot:batchClientIdLookup')).toBeUndefined();
  });

  it('a batch item once batch items are proven: never placed', async () => {
    const { pass, status } = rig('spot', { 'slt-1': 'batch' }, { ...ORDERS_PROVEN, 'venue:spot:batchClientIdLookup': 'yes' });
    await pass();
    expect(status('slt-1')).toBe('rejected');
  });

  it('a batch sent without client order ids: never asked', async () => {
    const { pass, status, asked } = rig('spot', { 'slt-1': 'none' }, { ...ORDERS_PROVEN, 'venue:spot:batchClientIdLookup': 'yes' });
    await pass();
    expect([status('slt-1'), asked]).toEqual(['unknown', []]);
  });

  it('an order a run before this one sent (how, not known): spot needs both ways proven, futures (no batches) order requests only', async () => {
    const spot = rig('spot', { 'slt-1': undefined }, ORDERS_PROVEN);
    await spot.pass();
    expect(spot.status('slt-1')).toBe('unknown');
    const both = rig('spot', { 'slt-1': undefined }, { ...ORDERS_PROVEN, 'venue:spot:batchClientIdLookup': 'yes' });
    await both.pass();
    expect(both.status('slt-1')).toBe('rejected');
    const futures = rig('futures', { 'slt-1': undefined }, { 'venue:futures:clientIdLookup': 'yes' });
    await futures.pass();
    expect(futures.status('slt-1')).toBe('rejected');
  });

  it('a batch item found by its client order id proves batch items; one of a run before proves neither way', async () => {
    const batch = rig('spot', { 'slt-1': 'batch' }, {}, { 'slt-1': '900000000000000001' as VenueOrderId });
    await batch.pass();
    expect([batch.status('slt-1'), batch.journal.cursor('venue:spot:batchClientIdLookup'), batch.journal.cursor('venue:spot:clientIdLookup')]).toEqual(['open', 'yes', undefined]);
    const before = rig('spot', { 'slt-1': undefined }, {}, { 'slt-1': '900000000000000001' as VenueOrderId });
    await before.pass();
    expect([before.status('slt-1'), before.journal.cursor('venue:spot:batchClientIdLookup'), before.journal.cursor('venue:spot:clientIdLookup')]).toEqual(['open', undefined, undefined]);
  });

  it('a batch item denied and then found on the venue after all: a denial proves nothing for batch items from then on, for order requests still does', async () => {
    const { pass, lookups, journal } = rig('spot', { 'slt-1': 'batch' }, ORDERS_PROVEN);
    await pass();
    lookups.found('spot', 'slt-1');
    expect([journal.cursor('venue:spot:batchClientIdLookup'), journal.cursor('venue:spot:clientIdLookup')]).toEqual(['no', 'yes']);
  });
});

describe('an unknown order too young to be looked up', () => {
  it('is asked about only once the venue can no longer book its request (recvWindow, the clock error, a margin after its answer was lost) and show it (drift.graceMs): an early "no such order" would give up an order the venue was about to book or show', async () => {
    const journal = new MemoryJournal();
    const intent = placeIntent('t', 'slt-1');
    journal.recordIntent(intent, { ...pendingOrder(intent, 0), status: 'unknown', updatedAt: 10_000 });
    journal.setCursor('venue:spot:clientIdLookup', 'yes');
    let asked = 0;
    const reader = {
      orderByClientId: async () => {
        asked++;
        throw new UnknownOrderError({ endpoint: 'spot.queryOrder', httpStatus: 400, venueCode: -2013 }, 'Order does not exist.');
      },
    } as unknown as AccountReader;
    const clock = new ManualClock(10_050);
    const lookups = new OrderLookups({ readers: { spot: reader, futures: reader }, journal, clock, log: new MemoryLog(), onOrder: async () => undefined, filled: () => ZERO, carrierOf: () => 'order', ...WINDOW });
    await lookups.unknowns('spot', 'BTCUSDT', 5);
    await clock.advanceTo(26_019);
    await lookups.unknowns('spot', 'BTCUSDT', 5);
    expect([asked, journal.order('slt-1')!.status]).toEqual([0, 'unknown']);
    await clock.advanceTo(26_020);
    await lookups.unknowns('spot', 'BTCUSDT', 5);
    expect([asked, journal.order('slt-1')!.status]).toEqual([1, 'rejected']);
  });
});

describe('"no such order" for an order the venue answered for lately', () => {
  function rig(answer: () => unknown) {
    const journal = new MemoryJournal();
    const intent = placeIntent('t', 'slt-1');
    journal.recordIntent(intent, pendingOrder(intent, 0));
    // Acknowledged at 10 s.
    journal.updateOrder({ ...journal.order('slt-1')!, status: 'open', venueOrderId: '900000000000000001' as VenueOrderId, updatedAt: 10_000 }, 'acknowledged');
    const reader = {
      order: async () => answer(),
    } as unknown as AccountReader;
    const clock = new ManualClock(10_050);
    const log = new MemoryLog();
    const lookups = new OrderLookups({ readers: { spot: reader, futures: reader }, journal, clock, log, onOrder: async () => undefined, filled: () => ZERO, carrierOf: () => undefined, ...WINDOW });
    return { lookups, journal, clock, log };
  }
  const noSuchOrder = () => {
    throw new UnknownOrderError({ endpoint: 'spot.queryOrder', httpStatus: 400, venueCode: -2013 }, 'Order does not exist.');
  };

  it('ends it only drift.graceMs after: the venue may not show it in its lookups yet', async () => {
    const { lookups, journal, clock, log } = rig(noSuchOrder);
    await lookups.query(journal.order('slt-1')!);
    expect(journal.order('slt-1')!.status).toBe('open');
    expect(log.withMsg('the venue does not know an order it answered for lately; will ask again')).toHaveLength(1);
    await clock.advanceTo(19_999);
    await lookups.query(journal.order('slt-1')!);
    expect(journal.order('slt-1')!.status).toBe('open');
    await clock.advanceTo(20_000);
    await lookups.query(journal.order('slt-1')!);
    expect(journal.order('slt-1')!.status).toBe('canceled');
    expect(journal.history('slt-1').at(-1)!.reason).toBe('the venue no longer knows it (-2013): ended');
  });

  it('an order query answering -2013 is no evidence that the venue names no client order ids', async () => {
    const { lookups } = rig(noSuchOrder);
    const ids = Array.from({ length: 12 }, (_, i) => `90000000000000010${i}` as VenueOrderId);
    await lookups.identify('spot', 'BTCUSDT', ids, 12);
    expect(lookups.namesIds('spot')).toBeUndefined();
    expect(ids.map((id) => lookups.nameOf('spot', 'BTCUSDT', id))).toEqual(ids.map(() => null));
    // Answers naming none are.
    const unnamed = rig(() => ({ orderId: '1', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '1', origQty: '1', executedQty: '0', status: 'open', venueStatus: 'NEW', time: 5 }));
    await unnamed.lookups.identify('spot', 'BTCUSDT', ids, 12);
    expect(unnamed.lookups.namesIds('spot')).toBe('no');
  });
});
