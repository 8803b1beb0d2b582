// Decoding bad venue input at the unit level: every refusal is a MalformedResponseError naming
// the field (or, for an item of a list about the account, a skipped item naming it), nothing
// crashes, nothing becomes a silent zero or empty list.
import { describe, expect, it } from 'vitest';
import { MalformedResponseError } from '../../../src/core/errors.js';
import { decodeResponse } from '../../../src/exchange/codec.js';
import type { EndpointId } from '../../../src/exchange/endpoints.js';
import { parseJsonLossless } from '../../../src/exchange/json.js';

const decode = <E extends EndpointId>(endpoint: E, text: string) => decodeResponse(endpoint, parseJsonLossless(text));
const refusal = (f: () => unknown): MalformedResponseError => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(MalformedResponseError);
    return e as MalformedResponseError;
  }
  throw new Error('expected a MalformedResponseError');
};
/** The one item a list answer skipped, as a refusal would name it. */
const skippedOnly = (listing: { items: unknown[]; skipped: { path: string; problem: string; key?: string }[] }) => {
  expect(listing.items).toEqual([]);
  expect(listing.skipped).toHaveLength(1);
  return listing.skipped[0]!;
};
const account = (free: string) => `{"balances":[{"asset":"BTC","free":${free},"locked":"0"}]}`;

describe('lossless JSON never turns invalid JSON into valid JSON', () => {
  it.each([
    '{"a":1234567890123456789-5}',
    '{"a":01234567890123456789}',
    '{"a":1234567890123456789.}',
    '{"a":12345678901234567e}',
    '{"a":--1234567890123456789}',
  ])('%s is a SyntaxError, as JSON.parse says', (text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(() => parseJsonLossless(text)).toThrow(SyntaxError);
  });

  it('valid long numbers, plain, negative, fractional and with exponents, still come back exact', () => {
    expect(parseJsonLossless('[1234567890123456789,-1234567890123456789,0.12345678901234567,1.2345678901234567e3]')).toEqual([
      '1234567890123456789',
      '-1234567890123456789',
      '0.12345678901234567',
      '1.2345678901234567e3',
    ]);
  });
});

describe('decimals: what is read, what is refused', () => {
  it.each([
    ['"1e5"', '100000'],
    ['"1.5E-7"', '0.00000015'],
    ['1e-7', '0.0000001'],
    ['"+2"', '2'],
    ['" 3 "', '3'],
    ['"1e40"', '10000000000000000000000000000000000000000'],
    ['12345678.123456789', '12345678.123456789'],
  ])('%s -> %s', (raw, out) => {
    expect(decode('spot.account', account(raw)).items[0]!.free).toBe(out);
  });

  it.each([
    ['"-5"', /must not be negative/],
    ['-0.00000001', /must not be negative/],
    ['"abc"', /must be a decimal/],
    ['"NaN"', /must be a decimal/],
    ['"Infinity"', /must be a decimal/],
    ['"-Infinity"', /must be a decimal/],
    ['"0x10"', /must be a decimal/],
    ['"1,5"', /must be a decimal/],
    ['"1e41"', /sane size/],
    ['"1e-999999999"', /sane size/],
    ['1e-300', /sane size/], // a JSON number: read from its text, exponent and all
    ['1.5e300', /sane size/],
    [`"${'9'.repeat(81)}"`, /sane size/],
    ['1e999', /must be a decimal/], // a JSON number too big for a double reads as Infinity
    ['""', /must be a decimal/],
    ['null', /must be a decimal/],
    ['[]', /must be a decimal, got a list/],
    ['{}', /must be a decimal, got an object/],
  ])('%s is refused: the balance is skipped, named by its asset, never read as a number', (raw, says) => {
    const skipped = skippedOnly(decode('spot.account', account(raw)));
    expect(skipped).toMatchObject({ path: 'balances[0]', key: 'BTC' });
    expect(skipped.problem).toMatch(/^spot\.account: malformed response: balances\[0\]\.free /);
    expect(skipped.problem).toMatch(says);
  });

  it('signed fields keep their sign: ticker change, PnL, fees', () => {
    expect(decode('spot.ticker', '{"high":"1","low":"1","last":"1","vol":"1","buy":"1","sell":"1","rose":"-0.05","time":1}').rose).toBe('-0.05');
    const trade = decode('spot.myTrades', '[{"symbol":"BTCUSDT","id":"1","bidId":"7","price":"1","qty":"1","time":1,"isBuyer":true,"isMaker":true,"fee":"-0.001"}]').items[0]!;
    expect(trade.fee).toBe('-0.001');
    const skipped = skippedOnly(decode('spot.myTrades', '[{"symbol":"BTCUSDT","id":"1","bidId":"7","price":"-1","qty":"1","time":1,"isBuyer":true,"isMaker":true}]'));
    expect(skipped).toMatchObject({ key: '1' });
    expect(skipped.problem).toMatch(/body\[0\]\.price must not be negative/);
  });
});

describe('null is not an empty list, except where the venue documents it', () => {
  it.each<[EndpointId, string, string]>([
    ['spot.account', '{"balances":null}', 'balances'],
    ['spot.openOrders', 'null', 'body'],
    ['spot.myTrades', 'null', 'body'],
    ['spot.depth', '{"bids":null,"asks":[]}', 'bids'],
    ['futures.contracts', 'null', 'body'],
    ['futures.account', '{"account":null}', 'account'],
  ])('%s %s', (endpoint, text, field) => {
    expect(refusal(() => decode(endpoint, text)).field).toBe(field);
  });

  it('futures openOrders and myTrades data:null and null positionVos are empty', () => {
    expect(decode('futures.openOrders', '{"code":"0","msg":"success","data":null}')).toEqual({ items: [], skipped: [] });
    expect(decode('futures.myTrades', '{"code":"0","msg":"success","data":null}')).toEqual({ items: [], skipped: [] });
    expect(decode('futures.account', '{"account":[{"marginCoin":"USDT","accountNormal":"1","accountLock":"0","positionVos":null}]}').items[0]!.positions).toEqual([]);
  });
});

describe('integers written with a fractional zero', () => {
  it('read as the integer; a real fraction is refused', () => {
    expect(decode('spot.time', '{"serverTime":1705039779880.000}')).toEqual({ serverTime: 1705039779880 });
    expect(decode('spot.time', '{"serverTime":"1705039779880.0"}')).toEqual({ serverTime: 1705039779880 });
    expect(refusal(() => decode('spot.time', '{"serverTime":1705039779880.5}')).field).toBe('body.serverTime');
  });
});

describe('batch ids', () => {
  it('ids and idsString must agree; both forms read exactly', () => {
    expect(decode('spot.batchOrders', '{"idsString":["9007199254740993"],"ids":[9007199254740993]}').ids).toEqual(['9007199254740993']);
    expect(refusal(() => decode('spot.batchOrders', '{"idsString":["9007199254740993"],"ids":[9007199254740995]}')).field).toBe('ids');
    expect(refusal(() => decode('spot.batchOrders', '{"idsString":["1","2"],"ids":[1]}')).message).toMatch(/ids disagrees with idsString \(1 vs 2 ids\)/);
  });

  it('the same id twice cannot be matched to two orders', () => {
    expect(refusal(() => decode('spot.batchOrders', '{"ids":[5,5]}')).field).toBe('ids');
    expect(refusal(() => decode('spot.batchOrders', '{"ids":[5,null,5]}')).field).toBe('ids');
  });

  it('an item that is no id stands alone: the others are read; both forms must agree on which', () => {
    const { ids } = decode('spot.batchOrders', '{"ids":[5,null,{"code":-1136,"msg":"too small"},"7"]}');
    expect(ids.map((id) => (typeof id === 'string' ? id : id.unreadable.message))).toEqual([
      '5',
      'spot.batchOrders: malformed response: ids[1] must be an id of digits, got null',
      'spot.batchOrders: malformed response: ids[2] must be an id of digits, got an object',
      '7',
    ]);
    expect(decode('spot.batchOrders', '{"idsString":["5",null],"ids":[5,null]}').ids.map((id) => typeof id)).toEqual(['string', 'object']);
    expect(refusal(() => decode('spot.batchOrders', '{"idsString":["5",null],"ids":[5,6]}')).field).toBe('ids');
    expect(refusal(() => decode('spot.batchOrders', '{"idsString":["5","6"],"ids":[5,null]}')).field).toBe('ids');
  });
});

describe('depth levels name their part', () => {
  it.each([
    ['{"bids":[[{"p":1},"1"]],"asks":[]}', 'bids[0].price'],
    ['{"bids":[],"asks":[["1",[1]]]}', 'asks[0].quantity'],
    ['{"bids":[["1"]],"asks":[]}', 'bids[0]'],
    ['{"bids":[],"asks":[{"price":"1"}]}', 'asks[0]'],
  ])('%s -> %s', (text, field) => {
    expect(refusal(() => decode('spot.depth', text)).field).toBe(field);
  });
});
