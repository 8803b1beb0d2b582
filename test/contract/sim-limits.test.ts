// Conformance: per-endpoint, per-key rolling 2 s windows with the contract's numbers; 429 with
// -1003 and Retry-After; bans (418) after continued violations, with their end in the body.
import { afterEach, describe, expect, it } from 'vitest';
import { startVenue, type Venue } from './sim-client.js';

let v: Venue | undefined;
afterEach(async () => {
  await v?.server.close();
  v = undefined;
});

describe('rate limits', () => {
  it.each([
    ['GET', '/sapi/v1/account', 20, undefined],
    ['GET', '/sapi/v1/openOrders', 20, 'symbol=BTCUSDT'],
    ['POST', '/sapi/v1/order/test', 100, undefined],
    ['POST', '/sapi/v1/batchCancel', 50, undefined],
  ] as const)('%s %s allows %s per 2 s; the next is 429 -1003 with Retry-After', async (method, path, limit, query) => {
    v = await startVenue();
    const body = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '9300', volume: '1' };
    for (let i = 0; i < limit; i++) {
      const r = await v.client.signed(method, path, { query, body: path.includes('batchCancel') ? { symbol: 'BTCUSDT', orderIds: ['1'] } : body });
      expect(r.status).toBe(200);
    }
    const over = await v.client.signed(method, path, { query, body });
    expect(over.status).toBe(429);
    expect(over.json.code).toBe(-1003);
    expect(over.headers['retry-after']).toBe('2');
  });

  it('the window rolls: a slot frees exactly 2 s after it was taken; 429s take no slot', async () => {
    v = await startVenue();
    for (let i = 0; i < 10; i++) expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(200);
    await v.clock.advance(1500);
    for (let i = 0; i < 10; i++) expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(200);
    // 20 in the window: the 21st is refused until the first ten expire at +2000.
    const r = await v.client.signed('GET', '/sapi/v1/account');
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('1');
    await v.clock.advance(499);
    expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(429);
    await v.clock.advance(1);
    for (let i = 0; i < 10; i++) expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(200);
    expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(429);
  });

  it('each endpoint has its own window; public endpoints count per address', async () => {
    v = await startVenue();
    for (let i = 0; i < 20; i++) await v.client.signed('GET', '/sapi/v1/account');
    expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(429);
    expect((await v.client.signed('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' })).status).toBe(200);
    for (let i = 0; i < 20; i++) expect((await v.client.get('/sapi/v1/depth', 'symbol=BTCUSDT')).status).toBe(200);
    expect((await v.client.get('/sapi/v1/depth', 'symbol=BTCUSDT')).status).toBe(429);
    const arrivals = v.server.exchange.arrivals();
    expect(arrivals.filter((a) => a.status === 429).map((a) => a.endpoint)).toEqual(['spot.account', 'spot.depth']);
  });

  it('limits can be overridden per endpoint id', async () => {
    v = await startVenue({ limits: { 'spot.account': 3 } });
    for (let i = 0; i < 3; i++) expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(200);
    expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(429);
  });
});

describe('bans', () => {
  it('continued violations after 429s earn a 418 with banUntil and Retry-After; everything is 418 until it ends', async () => {
    v = await startVenue({ banMs: 60_000, banAfterViolations: 3 });
    for (let i = 0; i < 20; i++) await v.client.signed('GET', '/sapi/v1/account');
    for (let i = 0; i < 3; i++) expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(429);
    const ban = await v.client.signed('GET', '/sapi/v1/account');
    const until = v.clock.now() + 60_000;
    expect(ban.status).toBe(418);
    expect(ban.json).toMatchObject({ code: -1003, banUntil: until });
    expect(ban.headers['retry-after']).toBe('60');
    // Everything: other signed endpoints, and public ones from the same address.
    await v.clock.advance(30_000);
    const other = await v.client.signed('POST', '/sapi/v1/order/test', { body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '9300', volume: '1' } });
    expect([other.status, other.json.banUntil, other.headers['retry-after']]).toEqual([418, until, '30']);
    expect((await v.client.get('/sapi/v1/ping')).status).toBe(418);
    await v.clock.advance(29_999);
    expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(418);
    await v.clock.advance(1);
    expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(200);
    expect((await v.client.get('/sapi/v1/ping')).status).toBe(200);
  });

  it('the default ban lasts 2 minutes', async () => {
    v = await startVenue();
    for (let i = 0; i < 20; i++) await v.client.signed('GET', '/sapi/v1/account');
    for (let i = 0; i < 10; i++) expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(429);
    const ban = await v.client.signed('GET', '/sapi/v1/account');
    expect([ban.status, ban.json.banUntil, ban.headers['retry-after']]).toEqual([418, v.clock.now() + 120_000, '120']);
  });

  it('violations spread beyond the violation window do not ban', async () => {
    v = await startVenue({ banAfterViolations: 2, violationWindowMs: 10_000 });
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 20; i++) expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(200);
      expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(429);
      await v.clock.advance(10_000);
    }
  });
});
