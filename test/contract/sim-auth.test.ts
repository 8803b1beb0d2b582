// Conformance: security types, signatures, the published test vector, the timing rule and
// Content-Type, over real HTTP with a hand-built client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { hmacHex, send, startVenue, TestClient, type Venue } from './sim-client.js';

let v: Venue;
beforeAll(async () => {
  v = await startVenue({ rateLimits: false });
});
afterAll(async () => {
  await v.server.close();
});

describe('security types', () => {
  it('NONE endpoints need no headers', async () => {
    const ping = await v.client.get('/sapi/v1/ping');
    expect([ping.status, ping.json]).toEqual([200, {}]);
    const time = await v.client.get('/sapi/v1/time');
    expect(time.json.serverTime).toBe(v.clock.now());
    expect((await v.client.get('/fapi/v1/time')).json.serverTime).toBe(v.clock.now());
  });

  it('a signed endpoint with all three valid headers answers', async () => {
    const r = await v.client.signed('GET', '/sapi/v1/account');
    expect(r.status).toBe(200);
    expect(r.json.balances).toContainEqual({ asset: 'USDT', free: '100000', locked: '0' });
  });

  it.each([
    ['key', -1002],
    ['ts', -1023],
    ['sign', -1024],
  ] as const)('a missing %s header is %s', async (omit, code) => {
    for (const [method, path] of [
      ['GET', '/sapi/v1/account'],
      ['POST', '/sapi/v1/order'],
      ['GET', '/fapi/v1/account'],
    ] as const) {
      const r = await v.client.signed(method, path, { omit: [omit], body: { symbol: 'BTCUSDT' } });
      expect(r.status).toBe(401);
      expect(r.json.code).toBe(code);
      expect(typeof r.json.msg).toBe('string');
    }
  });

  it('an unknown key is -2015, and keys are case-sensitive', async () => {
    expect((await v.client.signed('GET', '/sapi/v1/account', { key: 'nobody' })).json.code).toBe(-2015);
    expect((await v.client.signed('GET', '/sapi/v1/account', { key: v.server.apiKey.toUpperCase() })).json.code).toBe(-2015);
  });

  it('a wrong signature is -1022; hex is compared case-insensitively', async () => {
    const bad = await v.client.signed('GET', '/sapi/v1/account', { sign: 'ab'.repeat(32) });
    expect([bad.status, bad.json.code]).toEqual([401, -1022]);
    const ts = String(v.clock.now());
    const upper = hmacHex(v.server.apiSecret, `${ts}GET/sapi/v1/account`).toUpperCase();
    expect((await v.client.signed('GET', '/sapi/v1/account', { ts, sign: upper })).status).toBe(200);
  });

  it('a signature made with another secret is -1022', async () => {
    const other = new TestClient(v.server.url, v.server.apiKey, 'not-the-secret', () => v.clock.now());
    expect((await other.signed('POST', '/sapi/v1/order/test', { body: { symbol: 'BTCUSDT' } })).json.code).toBe(-1022);
  });

  it("a GET with a query must sign '?'+query: signed without it is -1022", async () => {
    const query = 'symbol=BTCUSDT';
    const ts = String(v.clock.now());
    const without = await v.client.signed('GET', '/sapi/v1/openOrders', { query, ts, signText: `${ts}GET/sapi/v1/openOrders` });
    expect([without.status, without.json.code]).toEqual([401, -1022]);
    const withIt = await v.client.signed('GET', '/sapi/v1/openOrders', { query, ts });
    expect([withIt.status, withIt.json]).toEqual([200, []]);
  });

  it('signs the raw query and body as received: encoding and key order matter', async () => {
    // Lower-case symbol, percent-encoded characters: the raw text is what is signed.
    const query = 'symbol=btcusdt&limit=5&note=a%20b%2Bc';
    expect((await v.client.signed('GET', '/sapi/v1/myTrades', { query })).status).toBe(200);
    const ts = String(v.clock.now());
    const decoded = await v.client.signed('GET', '/sapi/v1/myTrades', { query, ts, signText: `${ts}GET/sapi/v1/myTrades?symbol=btcusdt&limit=5&note=a b+c` });
    expect(decoded.json.code).toBe(-1022);
    const body = '{ "volume":"1", "symbol":"BTCUSDT","side":"BUY","type":"LIMIT","price":"9300"}';
    expect((await v.client.signed('POST', '/sapi/v1/order/test', { body })).json).toEqual({});
    const reordered = await v.client.signed('POST', '/sapi/v1/order/test', {
      body,
      ts,
      signText: `${ts}POST/sapi/v1/order/test{"symbol":"BTCUSDT","price":"9300","volume":"1","side":"BUY","type":"LIMIT"}`,
    });
    expect(reordered.json.code).toBe(-1022);
  });

  it('a POST without Content-Type application/json is -1017', async () => {
    const none = await v.client.signed('POST', '/sapi/v1/order/test', { omit: ['content-type'], body: { symbol: 'BTCUSDT' } });
    expect([none.status, none.json.code]).toEqual([400, -1017]);
    const form = await v.client.signed('POST', '/sapi/v1/order/test', { contentType: 'application/x-www-form-urlencoded', body: { symbol: 'BTCUSDT' } });
    expect(form.json.code).toBe(-1017);
    const charset = await v.client.signed('POST', '/sapi/v1/order/test', {
      contentType: 'application/json; charset=utf-8',
      body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '9300', volume: '1' },
    });
    expect(charset.status).toBe(200);
  });

  it('an unknown route is 404 with a venue error body', async () => {
    const r = await send(v.server.url, 'GET', '/sapi/v1/nothing', {});
    expect(r.status).toBe(404);
    expect(r.json.code).toBe(-1020);
  });
});

describe('the published signature vector', () => {
  it('the simulator accepts the documented request, headers and signature', async () => {
    const secret = '902ae3cb34ecee2779aa4d3e1d226686';
    const apiKey = 'vmPUZE6mv9SD5V5e14y7Ju91duEh8A';
    const ts = 1588591856950;
    const body = '{"symbol":"BTCUSDT","price":"9300","volume":"1","side":"BUY","type":"LIMIT"}';
    const expected = 'c50d0a74bb9427a9a03933d0eded03af9bf50115dc5b706882a4fcf07a26b761';
    expect(hmacHex(secret, `${ts}POST/sapi/v1/order/test${body}`)).toBe(expected);
    const venue = await startVenue({ apiKey, apiSecret: secret, clock: new ManualClock(ts) });
    try {
      const r = await send(
        venue.server.url,
        'POST',
        '/sapi/v1/order/test',
        { 'X-CH-APIKEY': apiKey, 'X-CH-TS': String(ts), 'X-CH-SIGN': expected, 'Content-Type': 'application/json' },
        body,
      );
      expect([r.status, r.json]).toEqual([200, {}]);
      // One character off in the body and the same signature no longer holds.
      const tampered = await send(
        venue.server.url,
        'POST',
        '/sapi/v1/order/test',
        { 'X-CH-APIKEY': apiKey, 'X-CH-TS': String(ts), 'X-CH-SIGN': expected, 'Content-Type': 'application/json' },
        body.replace('9300', '9301'),
      );
      expect(tampered.json.code).toBe(-1022);
    } finally {
      await venue.server.close();
    }
  });
});

describe('timing: timestamp < serverTime + 1000 and serverTime - timestamp <= recvWindow', () => {
  const at = (dt: number) => v.clock.now() + dt;

  it.each([
    [999, 200],
    [1000, -1021],
    [5000, -1021],
    [0, 200],
    [-5000, 200],
    [-5001, -1021],
  ])('X-CH-TS at serverTime %s ms: %s', async (dt, expected) => {
    const r = await v.client.signed('GET', '/sapi/v1/account', { ts: at(dt) });
    if (expected === 200) expect(r.status).toBe(200);
    else expect([r.status, r.json.code]).toEqual([400, expected]);
  });

  it('recvWindow in the query of a GET widens or narrows the window', async () => {
    const q = (w: number) => `symbol=BTCUSDT&recvWindow=${w}`;
    expect((await v.client.signed('GET', '/sapi/v1/openOrders', { query: q(10000), ts: at(-9000) })).status).toBe(200);
    expect((await v.client.signed('GET', '/sapi/v1/openOrders', { query: q(10000), ts: at(-10001) })).json.code).toBe(-1021);
    expect((await v.client.signed('GET', '/sapi/v1/openOrders', { query: q(100), ts: at(-101) })).json.code).toBe(-1021);
    expect((await v.client.signed('GET', '/sapi/v1/openOrders', { query: q(100), ts: at(-100) })).status).toBe(200);
  });

  it('recvWindow (or recvwindow) in the body of a POST', async () => {
    const order = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '9300', volume: '1' };
    expect((await v.client.signed('POST', '/sapi/v1/order/test', { body: { ...order, recvWindow: 20000 }, ts: at(-15000) })).status).toBe(200);
    expect((await v.client.signed('POST', '/sapi/v1/order/test', { body: { ...order, recvwindow: 20000 }, ts: at(-15000) })).status).toBe(200);
    expect((await v.client.signed('POST', '/sapi/v1/order/test', { body: { ...order, recvWindow: 20000 }, ts: at(-20001) })).json.code).toBe(-1021);
    // The lead limit does not grow with recvWindow.
    expect((await v.client.signed('POST', '/sapi/v1/order/test', { body: { ...order, recvWindow: 20000 }, ts: at(1000) })).json.code).toBe(-1021);
  });

  it('a malformed recvWindow or timestamp is rejected with its code', async () => {
    expect((await v.client.signed('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT&recvWindow=abc' })).json.code).toBe(-1102);
    expect((await v.client.signed('GET', '/sapi/v1/account', { ts: 'yesterday' })).json.code).toBe(-1021);
  });
});
