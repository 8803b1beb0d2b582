import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../../../src/core/ids.js';
import type { Order } from '../../../src/core/types.js';
import { compareIds, diffVenue, type VenueFill, type VenueOpenOrder } from '../../../src/reconciler/diff.js';

const vid = (s: string) => s as VenueOrderId;
const order = (id: string, over: Partial<Order> = {}): Order => ({
  clientOrderId: id as ClientOrderId,
  strategyId: 's',
  market: 'spot',
  symbol: 'BTCUSDT',
  side: 'BUY',
  type: 'LIMIT',
  volume: d('1'),
  price: d('100'),
  executedVolume: d('0'),
  status: 'open',
  createdAt: 0,
  updatedAt: 0,
  ...over,
});
const open = (orderId: string, over: Partial<VenueOpenOrder> = {}): VenueOpenOrder => ({ orderId: vid(orderId), symbol: 'BTCUSDT', executedQty: d('0'), status: 'open', ...over });
const trade = (tradeId: string, bidId: string, over: Partial<VenueFill> = {}): VenueFill => ({
  tradeId,
  symbol: 'BTCUSDT',
  bidId: vid(bidId),
  askId: vid('999'),
  price: d('100'),
  qty: d('0.4'),
  time: 5,
  isBuyer: true,
  isMaker: true,
  fee: d('0.0004'),
  feeCoin: 'BTC',
  ...over,
});
const base = { market: 'spot' as const, symbol: 'BTCUSDT', now: 42 };

describe('diffVenue', () => {
  it('turns our trades into fills by our side of the trade, and leaves others as foreign', () => {
    const r = diffVenue({ ...base, ours: [order('a', { venueOrderId: vid('10') })], venueOpen: [open('10')], trades: [trade('7', '10'), trade('8', '11')] });
    expect(r.fills).toEqual([
      { tradeId: '7', market: 'spot', symbol: 'BTCUSDT', venueOrderId: '10', side: 'BUY', price: '100', volume: '0.4', fee: '0.0004', feeAsset: 'BTC', isMaker: true, time: 5 },
    ]);
    expect(r.foreignTrades.map((t) => t.tradeId)).toEqual(['8']);
    expect(r.cursor).toBe('8');
  });

  it('a seller is matched by the ask id', () => {
    const r = diffVenue({ ...base, ours: [order('a', { venueOrderId: vid('999'), side: 'SELL' })], venueOpen: [], trades: [trade('7', '10', { isBuyer: false })] });
    expect(r.fills.map((f) => [f.venueOrderId, f.side])).toEqual([['999', 'SELL']]);
  });

  it('updates status and executed volume from the open list; never lowers executed volume', () => {
    const r = diffVenue({
      ...base,
      ours: [order('a', { venueOrderId: vid('10') }), order('b', { venueOrderId: vid('11'), executedVolume: d('0.5'), status: 'partially_filled' })],
      venueOpen: [open('10', { executedQty: d('0.25') }), open('11', { executedQty: d('0.1') })],
      trades: [],
    });
    expect(r.changes.map((c) => [c.order.clientOrderId, c.order.status, c.order.executedVolume])).toEqual([['a', 'partially_filled', '0.25']]);
  });

  it('finds an unknown order by its client id and learns its venue id', () => {
    const r = diffVenue({ ...base, ours: [order('slx-1', { status: 'unknown' })], venueOpen: [open('55', { clientOrderId: 'slx-1' })], trades: [] });
    expect(r.changes).toHaveLength(1);
    expect(r.changes[0]!.order).toMatchObject({ clientOrderId: 'slx-1', venueOrderId: '55', status: 'open' });
    expect(r.changes[0]!.reason).toBe('found open on the venue');
    expect(r.unresolved).toEqual([]);
  });

  it('lists orders that left the open list, unknown ones to look up, and foreign open orders', () => {
    const r = diffVenue({
      ...base,
      ours: [order('gone', { venueOrderId: vid('10') }), order('lost', { status: 'unknown' }), order('wait', { status: 'pending' }), order('done', { status: 'filled', venueOrderId: vid('12') })],
      venueOpen: [open('77')],
      trades: [],
    });
    expect(r.closedOnVenue.map((o) => o.clientOrderId)).toEqual(['gone']);
    expect(r.unresolved.map((o) => o.clientOrderId)).toEqual(['lost']);
    expect(r.foreignOrders.map((o) => o.orderId)).toEqual(['77']);
  });

  it('holds the trade cursor before an unmatched trade while an unknown order may own it', () => {
    const r = diffVenue({
      ...base,
      ours: [order('a', { venueOrderId: vid('10') }), order('lost', { status: 'unknown' })],
      venueOpen: [],
      trades: [trade('9', '10'), trade('100000000000000000010', '66'), trade('100000000000000000011', '10')],
    });
    expect(r.fills.map((f) => f.tradeId)).toEqual(['9', '100000000000000000011']);
    expect(r.cursor).toBe('9');
  });

  it('compares long ids as numbers', () => {
    expect(compareIds('9', '10')).toBeLessThan(0);
    expect(compareIds('150695552109032493', '150695552109032492')).toBeGreaterThan(0);
    expect(compareIds('5', '5')).toBe(0);
  });
});

describe('diffVenue with a lookup of final orders', () => {
  it('claims trades of an order acknowledged as FILLED before its trades were seen', () => {
    const done = order('done', { venueOrderId: vid('12'), status: 'filled' });
    const r = diffVenue({ ...base, ours: [], venueOpen: [], trades: [trade('7', '12')], lookup: (id) => (id === '12' ? done : undefined) });
    expect(r.fills.map((f) => f.venueOrderId)).toEqual(['12']);
    expect(r.foreignTrades).toEqual([]);
  });
});
