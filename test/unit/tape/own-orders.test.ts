// The recording account's own resting orders, followed through a tape's answers and taken out
// of the depth it recorded (src/tape/own-orders.ts, through the decoder in market.ts).
import { describe, expect, it } from 'vitest';
import type { Market } from '../../../src/core/types.js';
import { marketEvents, type TapeCall } from '../../../src/tape/index.js';
import { OwnOrders } from '../../../src/tape/own-orders.js';
import { call, T0 } from './helpers.js';

let seq = 0;
const at = (ms: number) => ({ at: T0 + ms, ms: 4 });

function place(ms: number, id: string, side: 'BUY' | 'SELL', price: string, volume: string, o: { symbol?: string; type?: string; status?: string; executed?: string } = {}): TapeCall {
  const symbol = o.symbol ?? 'BTCUSDT';
  const body = JSON.stringify({ symbol, side, type: o.type ?? 'LIMIT', volume, price, newClientOrderId: `c${id}` });
  const response = JSON.stringify({ symbol, orderId: id, orderIdString: id, clientOrderId: `c${id}`, price, origQty: volume, executedQty: o.executed ?? '0', status: o.status ?? 'NEW', type: o.type ?? 'LIMIT', side });
  return call(seq++, 'spot', 'POST', '/sapi/v1/order', { ...at(ms), body, response });
}

interface Listed {
  id: string;
  side: 'BUY' | 'SELL';
  price: string;
  orig: string;
  executed?: string;
  symbol?: string;
}

function openOrders(ms: number, symbol: string, orders: Listed[], o: { limit?: number; ms?: number } = {}): TapeCall {
  const items = orders.map((x) => ({ orderId: x.id, orderIdString: x.id, symbol: x.symbol ?? symbol, price: x.price, origQty: x.orig, executedQty: x.executed ?? '0', avgPrice: '0', status: x.executed && x.executed !== '0' ? 'PARTIALLY_FILLED' : 'NEW', type: 'LIMIT', side: x.side, time: T0 }));
  return call(seq++, 'spot', 'GET', '/sapi/v1/openOrders', { query: `symbol=${symbol}${o.limit ? `&limit=${o.limit}` : ''}`, at: T0 + ms, ms: o.ms ?? 4, response: JSON.stringify(items) });
}

function cancel(ms: number, id: string, symbol = 'BTCUSDT'): TapeCall {
  return call(seq++, 'spot', 'POST', '/sapi/v1/cancel', { ...at(ms), body: JSON.stringify({ symbol, orderId: id }), response: JSON.stringify({ symbol, orderId: id, orderIdString: id, status: 'PENDING_CANCEL' }) });
}

function myTrades(ms: number, symbol: string, trades: Array<{ id: string; order: string; qty: string; price: string; buyer: boolean }>): TapeCall {
  const items = trades.map((t) => ({ symbol, id: t.id, orderId: t.order, bidId: t.buyer ? t.order : '1', askId: t.buyer ? '1' : t.order, price: t.price, qty: t.qty, time: T0 + ms, isBuyer: t.buyer, isMaker: true, feeCoin: 'BTC', fee: '0' }));
  return call(seq++, 'spot', 'GET', '/sapi/v1/myTrades', { query: `symbol=${symbol}&limit=1000`, ...at(ms), response: JSON.stringify(items) });
}

/** Feeds the calls in arrival order, as the decoder does; the resting remainders by side. */
function follow(calls: TapeCall[], market: Market = 'spot', symbol = 'BTCUSDT') {
  const own = new OwnOrders();
  for (const c of [...calls].sort((a, b) => a.at + a.ms - (b.at + b.ms) || a.seq - b.seq)) own.observe(c, c.endpoint!);
  return { own, bids: Object.fromEntries(own.resting(market, symbol, 'BUY')), asks: Object.fromEntries(own.resting(market, symbol, 'SELL')) };
}

describe('following the account’s resting orders', () => {
  it('a place answer adds a LIMIT order at the request’s price and volume; a MARKET, or one final in its answer, adds nothing', () => {
    const r = follow([place(0, '1', 'BUY', '29999.00', '0.5'), place(10, '2', 'SELL', '30001', '0.2'), place(20, '3', 'BUY', '29999', '0.25'), place(30, '4', 'BUY', '29000', '1', { type: 'MARKET' }), place(40, '5', 'BUY', '29990', '1', { status: 'FILLED', executed: '1' })]);
    expect(r.bids).toEqual({ '29999': '0.75' });
    expect(r.asks).toEqual({ '30001': '0.2' });
  });

  it('an openOrders answer replaces the set: remainders of what it lists, orders it does not list gone', () => {
    const r = follow([place(0, '1', 'BUY', '29999', '0.5'), place(10, '2', 'BUY', '29998', '0.5'), openOrders(100, 'BTCUSDT', [{ id: '2', side: 'BUY', price: '29998', orig: '0.5', executed: '0.2' }, { id: '9', side: 'SELL', price: '30005', orig: '1' }])]);
    expect(r.bids).toEqual({ '29998': '0.3' });
    expect(r.asks).toEqual({ '30005': '1' });
  });

  it('a cancel answer removes the order', () => {
    expect(follow([place(0, '1', 'BUY', '29999', '0.5'), place(10, '2', 'BUY', '29998', '0.5'), cancel(50, '1')]).bids).toEqual({ '29998': '0.5' });
  });

  it('trades reduce their order, each counted once however many polls list it; a filled order is gone', () => {
    const r = follow([
      place(0, '1', 'BUY', '29999', '0.5'),
      place(5, '2', 'SELL', '30001', '0.3'),
      myTrades(100, 'BTCUSDT', [{ id: '901', order: '1', qty: '0.1', price: '29999', buyer: true }]),
      myTrades(200, 'BTCUSDT', [{ id: '901', order: '1', qty: '0.1', price: '29999', buyer: true }, { id: '902', order: '1', qty: '0.15', price: '29999', buyer: true }, { id: '903', order: '2', qty: '0.3', price: '30001', buyer: false }]),
    ]);
    expect(r.bids).toEqual({ '29999': '0.25' });
    expect(r.asks).toEqual({});
  });

  it('a trade the last listing already counted in executedQty is not subtracted again', () => {
    const r = follow([place(0, '1', 'BUY', '29999', '0.5'), openOrders(100, 'BTCUSDT', [{ id: '1', side: 'BUY', price: '29999', orig: '0.5', executed: '0.1' }]), myTrades(200, 'BTCUSDT', [{ id: '901', order: '1', qty: '0.1', price: '29999', buyer: true }])]);
    expect(r.bids).toEqual({ '29999': '0.4' });
  });

  it('two symbols are followed apart: a listing of one leaves the other as it was', () => {
    const calls = [place(0, '1', 'BUY', '29999', '0.5'), place(10, '2', 'BUY', '1999', '3', { symbol: 'ETHUSDT' }), openOrders(100, 'BTCUSDT', [])];
    expect(follow(calls).bids).toEqual({});
    expect(follow(calls, 'spot', 'ETHUSDT').bids).toEqual({ '1999': '3' });
  });

  it('an order placed while a listing was under way is kept although not listed; one cancelled meanwhile is not brought back', () => {
    // The read left at 100 and came back at 150: the place answer of 2 came at 124, the cancel of 1 at 134.
    const r = follow([place(0, '1', 'BUY', '29999', '0.5'), place(120, '2', 'BUY', '29998', '0.4'), cancel(130, '1'), openOrders(100, 'BTCUSDT', [{ id: '1', side: 'BUY', price: '29999', orig: '0.5' }], { ms: 50 })]);
    expect(r.bids).toEqual({ '29998': '0.4' });
  });

  it('a listing as long as its page may not be all: it drops nothing it does not list', () => {
    const r = follow([place(0, '1', 'BUY', '29999', '0.5'), openOrders(100, 'BTCUSDT', [{ id: '2', side: 'BUY', price: '29998', orig: '1' }], { limit: 1 })]);
    expect(r.bids).toEqual({ '29999': '0.5', '29998': '1' });
  });

  it('batch places and batch cancels (both lists: failed is already final or unknown)', () => {
    const body = JSON.stringify({ symbol: 'BTCUSDT', orders: [{ price: '29999', volume: '0.1', side: 'BUY', batchType: 'LIMIT' }, { price: '29998', volume: '0.2', side: 'BUY', batchType: 'LIMIT' }, { price: '30001', volume: '0.3', side: 'SELL', batchType: 'LIMIT' }] });
    const placed = call(seq++, 'spot', 'POST', '/sapi/v1/batchOrders', { ...at(0), body, response: '{"idsString":["11","12","13"],"ids":[11,12,13]}' });
    const canceled = call(seq++, 'spot', 'POST', '/sapi/v1/batchCancel', { ...at(50), body: '{"symbol":"BTCUSDT","orderIds":[11,13]}', response: '{"success":[11],"failed":[13]}' });
    expect(follow([placed])).toMatchObject({ bids: { '29999': '0.1', '29998': '0.2' }, asks: { '30001': '0.3' } });
    expect(follow([placed, canceled])).toMatchObject({ bids: { '29998': '0.2' }, asks: {} });
  });

  it('futures: orders by contract, IOC orders never rest', () => {
    const order = (id: string, price: string, tif?: string) =>
      call(seq++, 'futures', 'POST', '/fapi/v1/order', { ...at(0), body: JSON.stringify({ contractName: 'E-BTC-USDT', volume: '5', price, type: 'LIMIT', side: 'SELL', open: 'OPEN', positionType: 1, ...(tif ? { timeInForce: tif } : {}) }), response: `{"orderId":"${id}"}` });
    const r = follow([order('7', '30010'), order('8', '30020', 'IOC')], 'futures', 'E-BTC-USDT');
    expect(r.asks).toEqual({ '30010': '5' });
  });

  it('subtracts from a depth’s levels: other traders’ size left, a level of ours alone removed, never negative, the very array when nothing rests', () => {
    const { own } = follow([place(0, '1', 'BUY', '29999', '0.5'), place(5, '2', 'BUY', '29998', '1'), place(10, '3', 'BUY', '29997', '2')]);
    const bids = [['29999', '1.5'], ['29998', '1'], ['29997', '0.5'], ['29996', '3']] as const;
    expect(own.strip('spot', 'BTCUSDT', 'BUY', bids)).toEqual([['29999', '1'], ['29996', '3']]);
    const asks = [['30001', '1']] as const;
    expect(own.strip('spot', 'BTCUSDT', 'SELL', asks)).toBe(asks);
    expect(own.strip('spot', 'ETHUSDT', 'BUY', bids)).toBe(bids);
  });
});

describe('the decoder takes the account’s orders out of each depth, as of the moment it arrived', () => {
  const depth = (ms: number) => call(seq++, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT&limit=20', ...at(ms), response: '{"time":1,"bids":[["29999","1.5"],["29998","1"]],"asks":[["30001","0.2"],["30002","1"]]}' });

  it('before the place answer the depth is as recorded; after it, without the order; after the cancel, as recorded again', () => {
    const events = marketEvents([depth(0), place(100, '1', 'BUY', '29999', '0.5'), place(110, '2', 'SELL', '30001', '0.2'), depth(200), cancel(300, '1'), depth(400)]);
    const books = events.map((e) => (e.event.type === 'book' ? [e.event.bids, e.event.asks] : undefined));
    expect(books).toEqual([
      [[['29999', '1.5'], ['29998', '1']], [['30001', '0.2'], ['30002', '1']]],
      [[['29999', '1'], ['29998', '1']], [['30002', '1']]],
      [[['29999', '1.5'], ['29998', '1']], [['30002', '1']]],
    ]);
  });
});
