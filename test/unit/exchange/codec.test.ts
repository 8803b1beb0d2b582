import { describe, expect, it } from 'vitest';
import { MalformedResponseError } from '../../../src/core/errors.js';
import { decodeResponse, encodeBody, encodeQuery } from '../../../src/exchange/codec.js';
import { parseJsonLossless, stringifyJson } from '../../../src/exchange/json.js';
import { d } from '../../../src/core/decimal.js';
import { venueOrderId } from '../../../src/core/ids.js';
import type { EndpointId } from '../../../src/exchange/endpoints.js';

const decode = <E extends EndpointId>(endpoint: E, text: string) => decodeResponse(endpoint, parseJsonLossless(text));

describe('codec: a create-order ack', () => {
  it('with a status we do not know keeps its id: the order is on the venue, taken as open until read', () => {
    for (const status of ['"PENDING_NEW"', '"WEIRD"', '7']) {
      const ack = decode('spot.order', `{"orderId":"150695552109032492","status":${status}}`);
      expect(ack).toMatchObject({ orderId: '150695552109032492', status: 'open', venueStatus: JSON.parse(status).toString() });
    }
  });
});

describe('codec: order ids in every live form, always strings', () => {
  it.each([
    ['number beyond 2^53 with orderIdString', '{"orderId":150695552109032492,"orderIdString":"150695552109032492","status":"0"}'],
    ['string', '{"orderId":"150695552109032492","status":"NEW"}'],
    ['one-element array', '{"orderId":["150695552109032492"],"clientOrderId":null,"status":0}'],
    ['bare big number', '{"orderId":150695552109032492}'],
  ])('create-order ack: %s', (_name, text) => {
    const ack = decode('spot.order', text);
    expect(ack.orderId).toBe('150695552109032492');
    expect(ack.status).toBe('open');
    expect(ack.clientOrderId).toBeUndefined();
  });
});

describe('codec: containers and envelopes', () => {
  const order = '{"orderId":"1","symbol":"btcusdt","price":30000.5,"origQty":"0.01","executedQty":0,"status":"NEW","type":"LIMIT","side":"BUY","time":1}';
  it('openOrders as a bare array or {list}', () => {
    expect(decode('spot.openOrders', `[${order}]`)).toEqual(decode('spot.openOrders', `{"list":[${order}]}`));
    expect(decode('spot.openOrders', `[${order}]`).items[0]).toMatchObject({ symbol: 'BTCUSDT', price: '30000.5', executedQty: '0' });
  });
  it('futures {code:"0", data:null} means an empty list', () => {
    expect(decode('futures.openOrders', '{"code":"0","msg":"success","data":null}')).toEqual({ items: [], skipped: [] });
  });
  it('batchOrders prefers idsString over lossy ids', () => {
    expect(decode('spot.batchOrders', '{"idsString":["150695552109032493"],"ids":[150695552109032493]}').ids).toEqual(['150695552109032493']);
    expect(decode('spot.batchOrders', '{"ids":[150695552109032493]}').ids).toEqual(['150695552109032493']);
  });
  it('batchCancel {} means nothing succeeded', () => {
    expect(decode('spot.batchCancel', '{}')).toEqual({ success: [], failed: [] });
  });
});

describe('codec: statuses', () => {
  it.each([
    ['NEW', 'open'],
    ['0', 'open'],
    ['INIT', 'open'],
    ['New Order', 'open'],
    ['PENDING_CANCEL', 'pending_cancel'],
    ['To be Cancelled', 'pending_cancel'],
    ['EXPIRED', 'canceled'],
    ['PARTIALLY_FILLED', 'partially_filled'],
    ['Partially Filled', 'partially_filled'],
    ['FILLED', 'filled'],
    ['CANCELED', 'canceled'],
    ['CANCELLED', 'canceled'],
    ['Partially Filled/Canceled', 'canceled'],
    ['REJECTED', 'rejected'],
  ])('%s -> %s', (venue, ours) => {
    const o = decode('spot.queryOrder', `{"orderId":"1","symbol":"BTCUSDT","origQty":"1","executedQty":"0","status":${JSON.stringify(venue)},"type":"LIMIT","side":"SELL"}`);
    expect(o.status).toBe(ours);
    expect(o.venueStatus).toBe(venue);
  });
});

describe('codec: strict where it matters', () => {
  function problem(fn: () => unknown): MalformedResponseError {
    try {
      fn();
    } catch (e) {
      if (e instanceof MalformedResponseError) return e;
      throw e;
    }
    throw new Error('expected a MalformedResponseError');
  }
  it('names the field of a missing balance, and skips that balance only', () => {
    const { items, skipped } = decode('spot.account', '{"balances":[{"asset":"BTC","free":"1"},{"asset":"USDT","free":"5","locked":"0"}]}');
    expect(items).toEqual([{ asset: 'USDT', free: '5', locked: '0' }]);
    expect(skipped).toEqual([{ path: 'balances[0]', key: 'BTC', problem: 'spot.account: malformed response: balances[0].locked must be a decimal, got nothing' }]);
  });
  it('refuses a text where a number must be, never reading it as zero', () => {
    expect(decode('spot.account', '{"balances":[{"asset":"BTC","free":"abc","locked":"0"}]}').skipped[0]!.problem).toMatch(/balances\[0\]\.free must be a decimal/);
  });
  it('refuses an unknown status in an order read, and an ack id that is not digits', () => {
    expect(problem(() => decode('spot.queryOrder', '{"orderId":"1","symbol":"btcusdt","price":"1","origQty":"1","executedQty":"0","status":"WEIRD","type":"LIMIT","side":"BUY"}')).field).toBe('body.status');
    expect(problem(() => decode('spot.order', '{"orderId":"abc"}')).field).toBe('body.orderId');
    expect(problem(() => decode('spot.order', '{"orderId":1.5e300}')).field).toBe('body.orderId');
  });
  it('refuses a list where an object must be', () => {
    expect(problem(() => decode('spot.time', '[]')).field).toBe('body');
  });
});

describe('codec: market data and accounts', () => {
  it('depth levels as strings or numbers, best first', () => {
    const depth = decode('spot.depth', '{"time":5,"bids":[["30000.01","0.5"],[29999.5,1.25]],"asks":[["30001.00","0.75"]]}');
    expect(depth.bids).toEqual([['30000.01', '0.5'], ['29999.5', '1.25']]);
    expect(depth.asks).toEqual([['30001', '0.75']]);
  });
  it('klines in seconds are scaled to ms', () => {
    expect(decode('spot.klines', '[{"idx":1705039740,"open":1,"close":2,"high":3,"low":0.5,"vol":9}]')[0]!.openTime).toBe(1705039740000);
  });
  it('futures account flattens positions with their contract', () => {
    const {
      items: [acct],
    } = decode(
      'futures.account',
      '{"account":[{"marginCoin":"USDT","accountNormal":999.56,"accountLock":"23.5","unrealizedAmount":null,"positionVos":[{"contractName":"E-BTC-USDT","positions":[{"positionType":2,"side":"BUY","volume":10,"openPrice":30000,"avgPrice":30000.5,"holdAmount":30,"realizedAmount":null,"unRealizedAmount":6.5}]}]}]}',
    );
    // A null stays absent, never a zero.
    expect(acct).toMatchObject({ marginCoin: 'USDT', available: '999.56', locked: '23.5' });
    expect(acct!.unrealizedPnl).toBeUndefined();
    expect(acct!.positions).toEqual([{ contractName: 'E-BTC-USDT', side: 'BUY', positionType: 2, volume: '10', openPrice: '30000', avgPrice: '30000.5', unrealizedPnl: '6.5', margin: '30' }]);
  });
  it('myTrades keeps trade ids exact', () => {
    const {
      items: [t],
    } = decode('spot.myTrades', '[{"symbol":"BTCUSDT","id":200000000000000001,"bidId":"5","price":"1","qty":"2","time":3,"isBuyer":true,"isMaker":false,"fee":"0.1","feeCoin":"USDT"}]');
    expect(t).toMatchObject({ tradeId: '200000000000000001', isBuyer: true, isMaker: false, fee: '0.1' });
  });
});

describe('codec: requests', () => {
  it('batchOrders uses batchType and keeps client ids', () => {
    const body = stringifyJson(
      encodeBody('spot.batchOrders', { symbol: 'BTCUSDT', orders: [{ side: 'BUY', type: 'LIMIT', volume: d('0.01'), price: d('30000'), newClientOrderId: 'slx-1' }] }),
    );
    expect(body).toBe('{"symbol":"BTCUSDT","orders":[{"price":"30000","volume":"0.01","side":"BUY","batchType":"LIMIT","newClientOrderId":"slx-1"}]}');
  });
  it('batchCancel sends ids as exact JSON numbers', () => {
    const body = stringifyJson(encodeBody('spot.batchCancel', { symbol: 'BTCUSDT', orderIds: [venueOrderId('165964665990709251')] }));
    expect(body).toBe('{"symbol":"BTCUSDT","orderIds":[165964665990709251]}');
  });
  it('query strings keep order and escape values', () => {
    expect(encodeQuery({ symbol: 'BTCUSDT', orderId: '1', skip: undefined, odd: 'a&b' })).toBe('symbol=BTCUSDT&orderId=1&odd=a%26b');
  });
});
