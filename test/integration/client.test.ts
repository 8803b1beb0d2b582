// The exchange client over real HTTP against the stand-in venue on 127.0.0.1 (port 0).
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import {
  AuthError,
  BannedError,
  ClockSkewError,
  OrderRejectedError,
  RateLimitedError,
  TemporaryError,
  UnknownOrderError,
} from '../../src/core/errors.js';
import { venueOrderId } from '../../src/core/ids.js';
import { VenueCode } from '../../src/exchange/codes.js';
import { HttpTransport } from '../../src/exchange/transport/http.js';
import { accountReaders, marketReaders, type CallRecord } from '../../src/executor/index.js';
import { createExchangeClient, type ExchangeClient, type ExchangeClientOptions } from '../../src/app/client.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { holdingServer } from '../fixtures/holding-server.js';
import { maxInRollingWindow, startVenueServer, type Arrival, type VenueServer, type VenueServerOptions } from '../fixtures/venue-server.js';

const KEY = 'test-key-Abc123';
const SECRET = 'test-secret-not-real-0123456789';

let server: VenueServer | undefined;
let client: ExchangeClient | undefined;
let sim: SimServer | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  await sim?.close();
  client = undefined;
  server = undefined;
  sim = undefined;
});

async function setup(venue: Partial<VenueServerOptions> = {}, opts: Partial<ExchangeClientOptions> = {}) {
  server = await startVenueServer({ apiKey: KEY, apiSecret: SECRET, ...venue });
  const calls: CallRecord[] = [];
  client = createExchangeClient({
    spotUrl: server.url,
    credentials: { apiKey: KEY, apiSecret: SECRET },
    retry: { retries: 3, baseDelayMs: 5, maxDelayMs: 20 },
    onCall: (r) => calls.push(r),
    ...opts,
  });
  return { server, client, calls, x: client.executor };
}

const route = (a: Arrival) => `${a.method} ${a.path}`;
const routes = (s: VenueServer) => s.arrivals.map(route);

describe('every endpoint round-trips, signed as the venue checks it', () => {
  it('spot and futures, public and signed', async () => {
    const { server, x } = await setup();
    const oid = venueOrderId('150695552109032492');
    expect(await x.call('spot.ping', {})).toEqual({});
    expect((await x.call('spot.time', {})).serverTime).toBeGreaterThan(1_600_000_000_000);
    expect((await x.call('spot.symbols', {})).items[0]).toMatchObject({ symbol: 'BTCUSDT', pricePrecision: 2, limitVolumeMin: '0.00001' });
    expect((await x.call('spot.depth', { symbol: 'BTCUSDT', limit: 5 })).bids[0]).toEqual(['30000.01', '0.5']);
    expect((await x.call('spot.ticker', { symbol: 'BTCUSDT' })).rose).toBe('0.05');
    expect((await x.call('spot.trades', { symbol: 'BTCUSDT' }))[0]).toMatchObject({ price: '30000.5', side: 'BUY' });
    expect((await x.call('spot.klines', { symbol: 'BTCUSDT', interval: '1min' }))[0]).toMatchObject({ close: '30010.5' });
    const order = { symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT' as const, volume: d('0.01'), price: d('30000'), newClientOrderId: 'slgrid-1' };
    expect(await x.call('spot.order', order)).toMatchObject({ orderId: '150695552109032492', clientOrderId: 'slgrid-1', status: 'open' });
    expect(await x.call('spot.orderTest', order)).toEqual({});
    expect((await x.call('spot.batchOrders', { symbol: 'BTCUSDT', orders: [order, order] })).ids).toEqual(['150695552109032493', '150695552109032494']);
    expect(await x.call('spot.queryOrder', { symbol: 'BTCUSDT', orderId: oid })).toMatchObject({ status: 'partially_filled', executedQty: '0.004' });
    expect(await x.call('spot.cancel', { symbol: 'BTCUSDT', orderId: oid })).toMatchObject({ orderId: oid, venueStatus: 'PENDING_CANCEL' });
    expect(await x.call('spot.batchCancel', { symbol: 'BTCUSDT', orderIds: [oid] })).toEqual({
      success: ['165964665990709251', '165964665990709252'],
      failed: ['165964665990709250'],
    });
    expect((await x.call('spot.openOrders', { symbol: 'BTCUSDT' })).items[0]).toMatchObject({ orderId: oid, price: '30000' });
    expect((await x.call('spot.myTrades', { symbol: 'BTCUSDT' })).items[0]).toMatchObject({ tradeId: '200000000000000001', fee: '0.000004' });
    expect((await x.call('spot.account', {})).items).toEqual([
      { asset: 'BTC', free: '0.5', locked: '0.01' },
      { asset: 'USDT', free: '10', locked: '20' },
    ]);
    expect((await x.call('futures.time', {})).serverTime).toBeGreaterThan(0);
    expect((await x.call('futures.contracts', {})).items[0]).toMatchObject({ symbol: 'E-BTC-USDT', multiplier: '0.001' });
    expect((await x.call('futures.ticker', { contractName: 'E-BTC-USDT' })).rose).toBe('-0.01');
    expect((await x.call('futures.depth', { contractName: 'E-BTC-USDT' })).asks).toEqual([['30001', '12']]);
    const fut = { contractName: 'E-BTC-USDT', side: 'BUY' as const, type: 'LIMIT' as const, volume: d('10'), price: d('30000'), open: 'OPEN' as const, positionType: 2 as const };
    expect((await x.call('futures.order', fut)).orderId).toBe('256609229205684228');
    expect(await x.call('futures.queryOrder', { contractName: 'E-BTC-USDT', orderId: venueOrderId('256609229205684228') })).toMatchObject({ status: 'open', symbol: 'E-BTC-USDT' });
    expect((await x.call('futures.cancel', { contractName: 'E-BTC-USDT', orderId: venueOrderId('256609229205684228') })).orderId).toBe('256609229205684228');
    expect(await x.call('futures.openOrders', { contractName: 'E-BTC-USDT' })).toEqual({ items: [], skipped: [] });
    expect((await x.call('futures.myTrades', { contractName: 'E-BTC-USDT' })).items[0]).toMatchObject({ tradeId: '300000000000000001', qty: '10' });
    expect((await x.call('futures.account', {})).items[0]!.positions[0]).toMatchObject({ contractName: 'E-BTC-USDT', volume: '10' });

    // Every request was accepted by a venue that checks signatures with its own code.
    expect(server.arrivals.every((a) => a.status === 200)).toBe(true);
    expect(server.arrivals).toHaveLength(26);
    const cancel = server.arrivals.find((a) => route(a) === 'POST /sapi/v1/batchCancel')!;
    expect(cancel.body).toBe('{"symbol":"BTCUSDT","orderIds":[150695552109032492]}');
    const account = server.arrivals.find((a) => route(a) === 'GET /sapi/v1/account')!;
    expect(account.query).toBe('');
    expect(account.headers['content-type']).toBe('application/json');
    const ping = server.arrivals.find((a) => route(a) === 'GET /sapi/v1/ping')!;
    expect(ping.headers['x-ch-sign']).toBeUndefined();
  });

  it('a GET with a query signed without it is refused by the venue', async () => {
    const { server } = await setup();
    const http = new HttpTransport({ baseUrl: server.url });
    const ts = String(Date.now());
    const query = 'symbol=BTCUSDT&orderId=1';
    const badSign = createHmac('sha256', SECRET).update(`${ts}GET/sapi/v1/order`).digest('hex');
    const res = await http.send({ method: 'GET', path: '/sapi/v1/order', query, body: '', headers: { 'X-CH-APIKEY': KEY, 'X-CH-TS': ts, 'X-CH-SIGN': badSign } });
    await http.close();
    expect(JSON.parse(res.body)).toMatchObject({ code: -1022 });
  });

  it('recvWindow other than the default travels in the query or body, covered by the signature', async () => {
    const { server, x } = await setup({}, { recvWindowMs: 3000 });
    await x.call('spot.openOrders', { symbol: 'BTCUSDT' });
    await x.call('spot.cancel', { symbol: 'BTCUSDT', orderId: venueOrderId('1') });
    await x.call('spot.account', {});
    expect(server.arrivals.map((a) => [a.query, a.body, a.status])).toEqual([
      ['symbol=BTCUSDT&recvWindow=3000', '', 200],
      ['', '{"symbol":"BTCUSDT","orderId":"1","recvWindow":3000}', 200],
      ['', '', 200],
    ]);
  });
});

describe("a venue refusal's message, from the simulator", () => {
  it("leads with the venue's code before its text, and keeps both as fields", async () => {
    sim = await startSimServer({ port: 0, seed: 7 });
    client = createExchangeClient({ spotUrl: sim.url, credentials: { apiKey: sim.apiKey, apiSecret: sim.apiSecret }, retry: { retries: 0, baseDelayMs: 5, maxDelayMs: 20 } });
    // Closing contracts the account does not hold.
    const refused = await client.executor.call('futures.order', { contractName: 'E-BTC-USDT', side: 'SELL', type: 'MARKET', volume: d('1'), open: 'CLOSE', positionType: 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OrderRejectedError);
    const err = refused as OrderRejectedError;
    expect(err.message).toBe(`futures.order: venue code ${VenueCode.CLOSE_EXCEEDS_POSITION}: Exceeded the close available: 0 contracts.`);
    expect([err.venue.venueCode, err.venue.venueMsg, err.code]).toEqual([VenueCode.CLOSE_EXCEEDS_POSITION, 'Exceeded the close available: 0 contracts.', 'ORDER_REJECTED']);
  });
});

describe('futures klines, read from the simulator', () => {
  it("a contract's candles with contractName, as decimal strings oldest first, the venue's own values; the hour asked as 1h (futures has no 60min)", async () => {
    sim = await startSimServer({ port: 0, seed: 7, prehistoryMs: 3 * 3_600_000 });
    client = createExchangeClient({ spotUrl: sim.url, credentials: { apiKey: sim.apiKey, apiSecret: sim.apiSecret }, retry: { retries: 0, baseDelayMs: 5, maxDelayMs: 20 } });
    const futures = marketReaders(client.executor).futures;
    const minutes = await futures.klines('E-BTC-USDT', '1min', 5);
    expect(minutes).toHaveLength(5);
    const m = sim.exchange.markets.get('E-BTC-USDT')!;
    const own = new Map(m.klines((t) => Math.floor(t / 60_000) * 60_000, { limit: 300 }).map((c) => [c.idx, { openTime: c.idx, open: m.price(c.open), high: m.price(c.high), low: m.price(c.low), close: m.price(c.close), vol: m.qty(c.lots) }]));
    for (const [i, k] of minutes.entries()) {
      if (i > 0) expect(k.openTime).toBe(minutes[i - 1]!.openTime + 60_000);
      for (const v of [k.open, k.high, k.low, k.close, k.vol]) expect(v).toMatch(/^\d+(\.\d+)?$/);
      // The forming candle may have moved on since it was read.
      if (i < minutes.length - 1) expect(k).toEqual(own.get(k.openTime));
    }
    // The contract's own candles, not the spot symbol's.
    const spot = await marketReaders(client.executor).spot.klines('BTCUSDT', '1min', 5);
    expect(spot.map((k) => k.close)).not.toEqual(minutes.map((k) => k.close));
    const hours = await futures.klines('E-BTC-USDT', '1h', 3);
    expect(hours.length).toBeGreaterThanOrEqual(3);
    for (const k of hours) expect(k.openTime % 3_600_000).toBe(0);
    expect((await futures.klines('E-BTC-USDT', '60min', 3)).map((k) => k.openTime)).toEqual(hours.map((k) => k.openTime));
    // The simulator answers futures as the notes do: 60min is no futures interval, so the reader asked 1h.
    const asked60 = await fetch(`${sim.url}/fapi/v1/klines?contractName=E-BTC-USDT&interval=60min`);
    expect(((await asked60.json()) as { code: number }).code).toBe(-1102);
    expect(sim.exchange.arrivals().filter((a) => a.endpoint === 'futures.klines' && a.status === 200)).toHaveLength(3);
  });
});

describe('instruments as venues of the family list them', () => {
  it('the older subset of symbol fields (the notes: YY/GB, no limitVolumeMin or limitPriceMin) is read, not skipped', async () => {
    const { x } = await setup({
      respond: (a) =>
        route(a) === 'GET /sapi/v1/symbols' ? { status: 200, body: '{"symbols":[{"quantityPrecision":5,"symbol":"btcusdt","pricePrecision":2,"baseAsset":"BTC","quoteAsset":"USDT"}]}' } : undefined,
    });
    const listing = await x.call('spot.symbols', {});
    expect(listing.skipped).toEqual([]);
    expect(listing.items).toEqual([{ symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', pricePrecision: 2, quantityPrecision: 5, limitVolumeMin: undefined, limitPriceMin: undefined, marketBuyMin: undefined, marketSellMin: undefined }]);
  });
});

describe('futures contracts sluice cannot trade', () => {
  it('an inverse contract (side 0) and one not open for trading (status 0) are left out with the reason', async () => {
    const contract = (symbol: string, side: number, status: number) => ({ symbol, contractId: 1, pricePrecision: 1, side, multiplier: 0.001, multiplierCoin: 'BTC', minOrderVolume: 1, type: 'E', status });
    const { x } = await setup({
      respond: (a) => (route(a) === 'GET /fapi/v1/contracts' ? { status: 200, body: JSON.stringify([contract('E-BTC-USDT', 1, 1), contract('E-BTC-USD', 0, 1), contract('E-ETH-USDT', 1, 0)]) } : undefined),
    });
    const listing = await marketReaders(x).futures.instruments();
    expect(listing.items.map((i) => i.symbol)).toEqual(['E-BTC-USDT']);
    expect(listing.skipped.map((s) => [s.key, s.problem])).toEqual([
      ['E-BTC-USD', 'an inverse contract (side 0): sluice values futures as linear contracts only'],
      ['E-ETH-USDT', 'not tradable (status 0; the notes: 1 is tradable)'],
    ]);
  });
});

describe('fees as venues of the family name their coin', () => {
  it('a fee coin in lower case is read as the asset balances name (upper case), so fees meet their balance', async () => {
    const { x } = await setup({
      respond: (a) =>
        route(a) === 'GET /sapi/v1/myTrades'
          ? { status: 200, body: '[{"symbol":"btcusdt","id":200000000000000001,"bidId":150695552109032492,"askId":150695552109032400,"price":"30000","qty":"0.004","time":1573713225700,"isBuyer":true,"isMaker":true,"feeCoin":"btc","fee":"0.000004"}]' }
          : undefined,
    });
    const [trade] = (await x.call('spot.myTrades', { symbol: 'BTCUSDT' })).items;
    expect([trade!.symbol, trade!.feeCoin, trade!.fee]).toEqual(['BTCUSDT', 'BTC', '0.000004']);
  });
});

describe('the account readers, as venues of the family cap their pages', () => {
  it('a venue that refuses a futures trades limit above 100 (FameEX) still has its trades read; spot asks 1000', async () => {
    const limitOf = (a: Arrival) => Number(new URLSearchParams(a.query).get('limit'));
    const { server, x } = await setup({
      respond: (a) => (route(a) === 'GET /fapi/v1/myTrades' && limitOf(a) > 100 ? { status: 400, body: '{"code":-1102,"msg":"limit must be at most 100"}' } : undefined),
    });
    const readers = accountReaders(x);
    const futures = await readers.futures.trades('E-BTC-USDT', '300000000000000000');
    expect(futures.items.map((t) => t.tradeId)).toEqual(['300000000000000001']);
    const spot = await readers.spot.trades('BTCUSDT', '200000000000000000');
    expect(spot.items.map((t) => t.tradeId)).toEqual(['200000000000000001']);
    expect(server.arrivals.filter((a) => a.path.endsWith('/myTrades')).map((a) => [a.path, limitOf(a), a.status])).toEqual([
      ['/fapi/v1/myTrades', 100, 200],
      ['/sapi/v1/myTrades', 1000, 200],
    ]);
  });
});

describe('an open-orders read answered -1112 ("no open orders on the pair", the notes\' code table)', () => {
  it('is an empty, complete page on spot and futures; on a 5xx, or another code, it is a failed read', async () => {
    let status = 400;
    let noOrders = '{"code":"-1112","msg":"No open orders on the pair"}';
    const { server, x } = await setup({
      respond: (a) => (a.path.endsWith('/openOrders') ? { status, body: a.path.startsWith('/fapi') ? noOrders.replace('}', ',"succ":false}') : noOrders } : undefined),
    });
    const readers = accountReaders(x);
    expect(await readers.spot.openOrders('BTCUSDT')).toEqual({ items: [], skipped: [], complete: true });
    expect(await readers.futures.openOrders('E-BTC-USDT')).toEqual({ items: [], skipped: [], complete: true });
    expect(server.arrivals.map((a) => [a.path, a.status])).toEqual([
      ['/sapi/v1/openOrders', 400],
      ['/fapi/v1/openOrders', 400],
    ]);
    // A backend in trouble says nothing about the book: asked again (4 times in all), then the read fails.
    status = 500;
    await expect(readers.spot.openOrders('BTCUSDT')).rejects.toBeInstanceOf(TemporaryError);
    expect(server.arrivals.filter((a) => a.status === 500)).toHaveLength(4);
    status = 400;
    noOrders = '{"code":"-1121","msg":"Invalid symbol"}';
    await expect(readers.spot.openOrders('BTCUSDT')).rejects.toBeInstanceOf(OrderRejectedError);
  });
});

describe('every error class, and what the client does next', () => {
  const failOnce = (r: string, answer: { status: number; body: string; headers?: Record<string, string> } | 'reset' | 'hang') => {
    let done = false;
    return (a: Arrival) => {
      if (done || route(a) !== r) return undefined;
      done = true;
      return answer;
    };
  };

  it('-1021 resyncs the venue clock and retries once', async () => {
    const { server, x } = await setup({ respond: failOnce('GET /sapi/v1/account', { status: 400, body: '{"code":-1021,"msg":"ts"}' }) });
    expect((await x.call('spot.account', {})).items).toHaveLength(2);
    expect(routes(server)).toEqual(['GET /sapi/v1/account', 'GET /sapi/v1/time', 'GET /sapi/v1/time', 'GET /sapi/v1/time', 'GET /sapi/v1/account']);
  });

  it('a persistent -1021 is thrown as ClockSkewError after one retry, not looped', async () => {
    const { server, x } = await setup({ respond: (a) => (route(a) === 'GET /sapi/v1/account' ? { status: 400, body: '{"code":-1021,"msg":"ts"}' } : undefined) });
    await expect(x.call('spot.account', {})).rejects.toBeInstanceOf(ClockSkewError);
    expect(routes(server).filter((r) => r === 'GET /sapi/v1/account')).toHaveLength(2);
  });

  it('auth errors are fatal and never retried', async () => {
    const { server, x } = await setup({}, { credentials: { apiKey: KEY, apiSecret: 'wrong-secret' } });
    const err = await x.call('spot.account', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).venue.venueCode).toBe(-1022);
    expect(String((err as Error).message)).not.toContain('wrong-secret');
    expect(server.arrivals).toHaveLength(1);
  });

  it('a signed call without credentials fails before anything is sent', async () => {
    const { server, x } = await setup({}, { credentials: undefined });
    await expect(x.call('spot.account', {})).rejects.toThrow(/SLUICE_API_KEY/);
    expect(server.arrivals).toHaveLength(0);
  });

  it('429 pauses the endpoint for Retry-After, then the call goes through', async () => {
    const { server, x, client } = await setup({
      respond: failOnce('POST /sapi/v1/order', { status: 429, body: '{"code":-1003,"msg":"slow"}', headers: { 'retry-after': '0.2' } }),
    });
    const ack = await x.call('spot.order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('1'), price: d('1') });
    expect(ack.orderId).toBe('150695552109032492');
    const [first, second] = server.arrivals;
    expect([first!.status, second!.status]).toEqual([429, 200]);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(200);
    expect(client.pacer.pausedUntil()).toBe(0);
  });

  it('429 on every try surfaces as RateLimitedError', async () => {
    const { x } = await setup({ respond: (a) => (route(a) === 'GET /sapi/v1/account' ? { status: 429, body: '{"code":-1003}', headers: { 'retry-after': '0.01' } } : undefined) });
    await expect(x.call('spot.account', {})).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('418 stops all traffic until the ban ends: later calls fail without sending', async () => {
    const until = Date.now() + 60_000;
    const { server, x, client } = await setup({ respond: failOnce('GET /sapi/v1/account', { status: 418, body: JSON.stringify({ code: -1003, msg: 'banned', banUntil: until }) }) });
    const err = await x.call('spot.account', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BannedError);
    // The venue's end on our clock: less the measured offset, plus its error bound (a ban ends no
    // earlier than the venue said; on loopback both are 0 or 1 ms, as the measurement falls).
    const clock = client.venueClocks.spot;
    const local = until - clock.offsetMs() + clock.errorMs();
    expect((err as BannedError).untilMs).toBe(local);
    expect(client.pacer.pausedUntil()).toBe(local);
    await expect(x.call('spot.ping', {})).rejects.toBeInstanceOf(BannedError);
    await expect(x.call('spot.order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('1'), price: d('1') })).rejects.toBeInstanceOf(BannedError);
    expect(server.arrivals).toHaveLength(1);
  });

  it('reads retry through 5xx and connection resets', async () => {
    let n = 0;
    const { server, x } = await setup({
      respond: (a) => {
        if (route(a) !== 'GET /sapi/v1/openOrders') return undefined;
        n++;
        return n === 1 ? { status: 502, body: '<html>Bad Gateway</html>' } : n === 2 ? 'reset' : undefined;
      },
    });
    expect((await x.call('spot.openOrders', { symbol: 'BTCUSDT' })).items).toHaveLength(1);
    expect(server.arrivals.map((a) => a.status)).toEqual([502, -1, 200]);
  });

  it('placing an order is never retried when the outcome is unknown (504, reset, timeout)', async () => {
    for (const answer of [{ status: 504, body: '' }, 'reset', 'hang'] as const) {
      const { server, x } = await setup({ respond: failOnce('POST /sapi/v1/order', answer) }, { timeouts: { headersMs: 300 } });
      const err = await x.call('spot.order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('1'), price: d('1') }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TemporaryError);
      expect((err as TemporaryError).outcomeUnknown).toBe(true);
      expect(server.arrivals).toHaveLength(1);
      await client!.close();
      await server.close();
    }
  });

  it('placing orders is never retried after a 503 either: a 5xx does not say the venue did nothing', async () => {
    const { server, x } = await setup({ respond: failOnce('POST /sapi/v1/batchOrders', { status: 503, body: '{"code":-1016,"msg":"service unavailable"}' }) });
    const err = await x.call('spot.batchOrders', { symbol: 'BTCUSDT', orders: [{ side: 'SELL', type: 'MARKET', volume: d('1') }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemporaryError);
    expect((err as TemporaryError).outcomeUnknown).toBe(true);
    expect(server.arrivals.map((a) => a.status)).toEqual([503]);
  });

  it('placing orders is never retried after -1016 in a plain answer, or a code the notes do not name; a read is retried after -1016', async () => {
    // "Service unavailable" does not say the venue did nothing: sent again, a booked order would be placed twice.
    for (const body of ['{"code":-1016,"msg":"service unavailable"}', '{"code":"-1099","msg":"new"}']) {
      const { server, x } = await setup({ respond: failOnce('POST /sapi/v1/batchOrders', { status: 200, body }) });
      const err = await x.call('spot.batchOrders', { symbol: 'BTCUSDT', orders: [{ side: 'SELL', type: 'MARKET', volume: d('1') }] }).catch((e: unknown) => e);
      expect((err as TemporaryError).outcomeUnknown, body).toBe(true);
      expect(server.arrivals.map((a) => a.status)).toEqual([200]);
      await client!.close();
      await server.close();
    }
    const { server, x } = await setup({ respond: failOnce('GET /sapi/v1/openOrders', { status: 200, body: '{"code":-1016,"msg":"service unavailable"}' }) });
    expect((await x.call('spot.openOrders', { symbol: 'BTCUSDT', limit: 100 })).items.length).toBeGreaterThan(0);
    expect(server.arrivals.map((a) => a.status)).toEqual([200, 200]);
  });

  it('unknown order, business rejection: classified, not retried', async () => {
    const { server, x } = await setup({
      respond: (a) =>
        route(a) === 'GET /sapi/v1/order'
          ? { status: 400, body: '{"code":-2013,"msg":"Order does not exist"}' }
          : route(a) === 'POST /sapi/v1/order'
            ? { status: 400, body: '{"code":"-2017","msg":"余额不足"}' }
            : undefined,
    });
    await expect(x.call('spot.queryOrder', { symbol: 'BTCUSDT', orderId: venueOrderId('9') })).rejects.toBeInstanceOf(UnknownOrderError);
    const rejected = await x.call('spot.order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('1'), price: d('1') }).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(OrderRejectedError);
    expect((rejected as OrderRejectedError).venue.venueCode).toBe(-2017);
    expect(server.arrivals).toHaveLength(2);
  });

  it('a malformed 200 is an error naming the problem, never a silent zero', async () => {
    const { x } = await setup({
      respond: (a) =>
        route(a) === 'GET /sapi/v1/account'
          ? { status: 200, body: '<html>proxy</html>' }
          : route(a) === 'GET /sapi/v1/openOrders'
            ? { status: 200, body: '' }
            : route(a) === 'GET /sapi/v1/myTrades'
              ? { status: 200, body: '[{"symbol":"BTCUSDT","id":"1","bidId":"7","price":"x","qty":"1","time":1,"isBuyer":true,"isMaker":true}]' }
              : undefined,
    });
    await expect(x.call('spot.account', {})).rejects.toThrow(/spot.account: malformed response: body is not JSON/);
    await expect(x.call('spot.openOrders', { symbol: 'BTCUSDT' })).rejects.toThrow(/body is empty/);
    // An item of a list that cannot be read is left out, named: never a trade at price 0.
    const bad = await x.call('spot.myTrades', { symbol: 'BTCUSDT' });
    expect(bad.items).toEqual([]);
    expect(bad.skipped).toEqual([{ path: 'body[0]', key: '1', problem: expect.stringMatching(/body\[0\]\.price must be a decimal, got "x"/) as unknown as string }]);
  });
});

describe('the venue clock', () => {
  it.each([3000, -3000])('a venue clock %i ms off is measured and corrected', async (skewMs) => {
    const { server, x, client } = await setup({ skewMs });
    await client.start();
    expect(Math.abs(client.venueClocks.spot.offsetMs() - skewMs)).toBeLessThan(200);
    await x.call('spot.account', {});
    const signed = server.arrivals.at(-1)!;
    expect(signed.status).toBe(200);
    expect(Math.abs(Number(signed.headers['x-ch-ts']) - (signed.at + skewMs))).toBeLessThan(500);
  });

  it('futures on a host of its own signs with that host\'s clock, measured from its own time endpoint', async () => {
    const futuresHost = await startVenueServer({ apiKey: KEY, apiSecret: SECRET, skewMs: -3000 });
    try {
      const { server: spotHost, x, client } = await setup({ skewMs: 0 }, { futuresUrl: futuresHost.url });
      await client.start();
      expect(Math.abs(client.venueClocks.spot.offsetMs())).toBeLessThan(200);
      expect(Math.abs(client.venueClocks.futures.offsetMs() + 3000)).toBeLessThan(200);
      expect(futuresHost.arrivals.map(route).every((r) => r === 'GET /fapi/v1/time')).toBe(true);
      expect(spotHost.arrivals.map(route).every((r) => r === 'GET /sapi/v1/time')).toBe(true);
      await x.call('futures.account', {});
      await x.call('spot.account', {});
      // Each accepted at once: no -1021 on either host.
      expect(futuresHost.arrivals.filter((a) => a.path === '/fapi/v1/account').map((a) => a.status)).toEqual([200]);
      expect(spotHost.arrivals.filter((a) => a.path === '/sapi/v1/account').map((a) => a.status)).toEqual([200]);
      const signed = futuresHost.arrivals.at(-1)!;
      expect(Math.abs(Number(signed.headers['x-ch-ts']) - (signed.at - 3000))).toBeLessThan(500);
    } finally {
      await futuresHost.close();
    }
  });

  it('one host for both markets: one clock, measured once', async () => {
    const { server, client } = await setup({ skewMs: 2000 }, { futuresUrl: undefined });
    await client.start();
    expect(client.venueClocks.futures).toBe(client.venueClocks.spot);
    expect(routes(server).filter((r) => r.endsWith('/time'))).toEqual(['GET /sapi/v1/time', 'GET /sapi/v1/time', 'GET /sapi/v1/time']);
  });

  it('a venue without a time endpoint (not in the contract) is signed for with the local clock, told once; a refusal with a code still fails the start', async () => {
    const told: string[] = [];
    const { server, x, client } = await setup(
      { respond: (a) => (a.path === '/sapi/v1/time' ? { status: 404, body: '{"timestamp":"2026-01-01","status":404,"error":"Not Found","path":"/sapi/v1/time"}' } : undefined) },
      { onNoTimeEndpoint: (endpoint) => told.push(endpoint) },
    );
    await client.start();
    expect(Math.abs(client.venueClocks.spot.offsetMs())).toBeLessThan(200);
    expect(told).toEqual(['spot.time']);
    await x.call('spot.account', {});
    expect(server.arrivals.filter((a) => a.path === '/sapi/v1/account').map((a) => a.status)).toEqual([200]);
    await client.close();
    await server.close();
    const refused = await setup({ respond: (a) => (a.path === '/sapi/v1/time' ? { status: 404, body: '{"code":-1121,"msg":"?"}' } : undefined) });
    await expect(refused.client.start()).rejects.toBeInstanceOf(OrderRejectedError);
  });

  it('without a sync, the first -1021 triggers one and the call still succeeds', async () => {
    // A venue clock behind ours fails the timing rule (ours is more than 1 s ahead of it).
    const { server, x } = await setup({ skewMs: -3000 });
    await x.call('spot.account', {});
    expect(server.arrivals.map((a) => a.status)).toEqual([400, 200, 200, 200, 200]);
  });
});

describe('pacing against the venue', () => {
  it('a burst of 500 orders never puts more than 100 in any rolling 2 s window; orders queued over 5 s are still accepted', async () => {
    const { server, x, calls } = await setup({ limits: { 'POST /sapi/v1/order': 100 } });
    const order = { symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT' as const, volume: d('0.01'), price: d('30000') };
    const results = await Promise.all(Array.from({ length: 500 }, () => x.call('spot.order', order)));
    expect(results).toHaveLength(500);
    const orders = server.arrivals.filter((a) => route(a) === 'POST /sapi/v1/order');
    expect(orders).toHaveLength(500);
    expect(orders.filter((a) => a.status !== 200)).toEqual([]);
    expect(maxInRollingWindow(orders.map((a) => a.at), 2000)).toBeLessThanOrEqual(100);
    const longestQueue = Math.max(...calls.map((c) => (c.sentAt ?? 0) - c.requestedAt));
    expect(longestQueue).toBeGreaterThan(5000);
  });

  it('venue connections reach the HTTP pool: that many requests in flight, the rest wait their turn', async () => {
    const venue = await holdingServer(3);
    try {
      client = createExchangeClient({ spotUrl: venue.url, connections: 3 });
      const answers = await Promise.all(Array.from({ length: 9 }, () => client!.executor.call('spot.ping', {})));
      expect(answers).toEqual(Array(9).fill({}));
      expect([venue.arrived(), venue.sockets.size]).toEqual([9, 3]);
    } finally {
      await client?.close();
      client = undefined;
      await venue.close();
    }
  });
});
