import { describe, expect, it } from 'vitest';
import { preHash, sign, signatureMatches } from '../../../src/exchange/sign.js';

// Published in the API family's documentation (exchange-api-notes.md, section 1).
const VECTOR = {
  secret: '902ae3cb34ecee2779aa4d3e1d226686',
  timestamp: '1588591856950',
  body: '{"symbol":"BTCUSDT","price":"9300","volume":"1","side":"BUY","type":"LIMIT"}',
  expected: 'c50d0a74bb9427a9a03933d0eded03af9bf50115dc5b706882a4fcf07a26b761',
};

describe('X-CH-SIGN', () => {
  it('reproduces the published test vector', () => {
    const input = { timestamp: VECTOR.timestamp, method: 'POST', path: '/sapi/v1/order/test', query: '', body: VECTOR.body };
    expect(preHash(input)).toBe(`1588591856950POST/sapi/v1/order/test${VECTOR.body}`);
    expect(sign(VECTOR.secret, input)).toBe(VECTOR.expected);
  });

  it('puts ? and the query into the text for a GET with parameters, and omits ? without', () => {
    expect(preHash({ timestamp: '1', method: 'get', path: '/sapi/v1/order', query: 'symbol=btcusdt&orderId=1', body: '' })).toBe(
      '1GET/sapi/v1/order?symbol=btcusdt&orderId=1',
    );
    expect(preHash({ timestamp: '1', method: 'GET', path: '/sapi/v1/account', query: '', body: '' })).toBe('1GET/sapi/v1/account');
  });

  it('never appends a body to a GET', () => {
    expect(preHash({ timestamp: '1', method: 'GET', path: '/p', query: '', body: '{"x":1}' })).toBe('1GET/p');
  });

  it('a GET signed without its query does not match the request with the query', () => {
    const withQuery = { timestamp: '5', method: 'GET', path: '/sapi/v1/order', query: 'orderId=1&symbol=BTCUSDT', body: '' };
    const wrong = sign('s', { ...withQuery, query: '' });
    expect(signatureMatches('s', withQuery, wrong)).toBe(false);
    expect(signatureMatches('s', withQuery, sign('s', withQuery))).toBe(true);
  });

  it('compares signatures without regard to case', () => {
    const input = { timestamp: VECTOR.timestamp, method: 'POST', path: '/sapi/v1/order/test', query: '', body: VECTOR.body };
    expect(signatureMatches(VECTOR.secret, input, VECTOR.expected.toUpperCase())).toBe(true);
    expect(signatureMatches(VECTOR.secret, input, VECTOR.expected.slice(0, -1))).toBe(false);
  });
});
