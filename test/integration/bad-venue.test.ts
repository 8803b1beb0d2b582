// Bad venue input over real HTTP (stand-in venue on 127.0.0.1, port 0): every malformed answer
// becomes a classified error that names the endpoint and the field, never a crash and never a
// silent zero; a malformed answer to a placement is outcome-unknown and is never re-sent.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { AuthError, MalformedResponseError, SluiceError, TemporaryError, type VenueError } from '../../src/core/errors.js';
import { clientOrderId, venueOrderId } from '../../src/core/ids.js';
import type { Batch, CancelIntent, Market, PlaceIntent } from '../../src/core/types.js';
import { HttpTransport } from '../../src/exchange/transport/http.js';
import { OrderGateway, type Executor, type PlaceResult } from '../../src/executor/index.js';
import { createExchangeClient, type ExchangeClient } from '../../src/app/client.js';
import { startVenueServer, type Answer, type Arrival, type RawAnswer, type VenueServer } from '../fixtures/venue-server.js';
import { MemoryLog } from '../fixtures/engine-parts.js';

const KEY = 'bad-venue-key-Q7x9Zt';
const SECRET = 'bad-venue-secret-0123456789abcdef';
const MAX_BODY = 64 * 1024;
const RETRIES = 3;

let server: VenueServer | undefined;
let client: ExchangeClient | undefined;
let http: HttpTransport | undefined;
afterEach(async () => {
  await client?.close();
  await http?.close();
  await server?.close();
  client = undefined;
  http = undefined;
  server = undefined;
});

type Respond = (a: Arrival) => Answer | RawAnswer | undefined;

async function setup(respond: Respond, totalTimeoutMs?: number) {
  server = await startVenueServer({ apiKey: KEY, apiSecret: SECRET, respond });
  // Our own transport so the body cap and the body timeout are small enough to test quickly.
  http = new HttpTransport({ baseUrl: server.url, maxResponseBytes: MAX_BODY, bodyTimeoutMs: 300, headersTimeoutMs: 5_000, totalTimeoutMs });
  const t = http;
  client = createExchangeClient({
    transport: () => t,
    credentials: { apiKey: KEY, apiSecret: SECRET },
    retry: { retries: RETRIES, baseDelayMs: 1, maxDelayMs: 2 },
  });
  return { server, x: client.executor, gateway: new OrderGateway(client.executor) };
}

const routeOf = (a: Arrival) => `${a.method} ${a.path}`;
/** Answers `answer` to every arrival on `route`; other routes get the canned answer. */
const on = (route: string, answer: Answer | RawAnswer | ((a: Arrival) => Answer | RawAnswer)): Respond => (a) =>
  routeOf(a) === route ? (typeof answer === 'function' ? answer(a) : answer) : undefined;
const json = (body: unknown, status = 200): Answer => ({ status, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The message says which endpoint and which field, reads as a sentence, and holds no secret. */
function expectReadable(err: unknown, endpoint: string, field?: string): void {
  expect(err).toBeInstanceOf(SluiceError);
  const msg = (err as Error).message;
  expect(msg.startsWith(`${endpoint}: `)).toBe(true);
  if (field) expect(msg).toContain(` ${field} `);
  expect(msg).not.toContain(KEY);
  expect(msg).not.toContain(SECRET);
  expect((err as Error).stack ?? '').not.toContain(KEY);
  // No leaked JS artefacts (a venue's own "NaN" is quoted, so it is allowed).
  expect(msg).not.toMatch(/\[object Object\]|undefined|(?<!")NaN(?!")/);
  expect(msg.length).toBeLessThan(300);
  const venue = (err as VenueError).venue;
  expect(venue.endpoint).toBe(endpoint);
  expect(JSON.stringify(venue)).not.toContain(KEY);
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  const err = await p.then(
    (v) => ({ resolvedWith: v }),
    (e: unknown) => e,
  );
  if (!(err instanceof Error)) throw new Error(`expected a failure, got ${JSON.stringify(err)}`);
  return err;
}

// ---------- raw answers: HTML pages, endless, cut-off and stalled bodies ----------

const HTML = '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>';
const htmlPage = (status: number): Answer => ({ status, body: HTML, headers: { 'content-type': 'text/html' } });

/** Proof that the server-side stream was cut by the client, with the bytes it managed to write. */
interface StreamStats {
  written: number;
  closed: Promise<{ written: number; finished: boolean }>;
}

/** A body that never ends: the client must stop at its cap and hang up. */
function endless(status: number, stats: StreamStats[], declaredLength?: number): RawAnswer {
  return {
    status,
    write: (res: ServerResponse) => {
      const chunk = Buffer.from('{"asset":"BTC","free":"1","locked":"0"},'.repeat(1600));
      const s = { written: 0 } as StreamStats;
      s.closed = new Promise((resolve) => res.on('close', () => resolve({ written: s.written, finished: res.writableFinished })));
      stats.push(s);
      res.writeHead(status, { 'content-type': 'application/json', ...(declaredLength ? { 'content-length': String(declaredLength) } : {}) });
      res.write('{"balances":[');
      const pump = () => {
        // A guard so a client that never stops reading fails the test instead of eating memory.
        while (!res.destroyed && s.written < 256 * 1024 * 1024) {
          s.written += chunk.length;
          if (!res.write(chunk)) return;
        }
      };
      res.on('drain', pump);
      pump();
    },
  };
}

/** Headers and part of the body, then the connection is closed under it. */
function cutOff(body: string, chunked: boolean): RawAnswer {
  return {
    status: 200,
    write: (res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(body.length) }) });
      res.write(body.slice(0, Math.floor(body.length / 3)), () => res.socket?.destroy());
    },
  };
}

/**
 * An HTTP/1.0-style answer whose body ends where the connection closes: nothing on the wire
 * says it was cut short, so only the JSON parser can tell.
 */
function closeDelimited(body: string): RawAnswer {
  return {
    status: 200,
    write: (res) => {
      res.socket!.end(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body.slice(0, Math.floor(body.length / 2))}`);
    },
  };
}

/** Headers and part of the body, then silence: the body timeout decides. */
function stalled(body: string): RawAnswer {
  return {
    status: 200,
    write: (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      res.write(body.slice(0, 10));
    },
  };
}

/** Headers, then the body a byte every 50 ms: each gap is within the body timeout, the whole is not. */
function trickled(body: string, stats: StreamStats[]): RawAnswer {
  return {
    status: 200,
    write: (res) => {
      const s = { written: 0 } as StreamStats;
      s.closed = new Promise((resolve) => res.on('close', () => resolve({ written: s.written, finished: res.writableFinished })));
      stats.push(s);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      const drip = setInterval(() => {
        if (res.destroyed || s.written === body.length) return clearInterval(drip);
        res.write(body[s.written++]!);
      }, 50);
      res.on('close', () => clearInterval(drip));
    },
  };
}

// ---------- the endpoints under test ----------

const symbol = 'BTCUSDT';
const intent = (n: number, market: Market = 'spot'): PlaceIntent => ({
  kind: 'place',
  intentId: `i${n}`,
  strategyId: 'bad',
  market,
  symbol: market === 'spot' ? symbol : 'E-BTC-USDT',
  side: 'BUY',
  type: 'LIMIT',
  volume: d('0.01'),
  price: d('30000'),
  clientOrderId: clientOrderId('bad', n),
});
const batchOf = (items: PlaceIntent[]): Batch<PlaceIntent> => ({ market: items[0]!.market, symbol: items[0]!.symbol, kind: 'place', items });

interface Target {
  endpoint: string;
  route: string;
  /** A valid answer, to cut short or stall. */
  good: string;
}
interface ReadTarget extends Target {
  call: (x: Executor) => Promise<unknown>;
}
interface PlaceTarget extends Target {
  intents: PlaceIntent[];
}

const READS: ReadTarget[] = [
  { endpoint: 'spot.account', route: 'GET /sapi/v1/account', good: '{"balances":[{"asset":"BTC","free":"0.5","locked":"0.01"}]}', call: (x) => x.call('spot.account', {}) },
  { endpoint: 'spot.depth', route: 'GET /sapi/v1/depth', good: '{"time":1705039779880,"bids":[["30000.01","0.5"]],"asks":[["30001","0.75"]]}', call: (x) => x.call('spot.depth', { symbol }) },
  {
    endpoint: 'spot.openOrders',
    route: 'GET /sapi/v1/openOrders',
    good: '[{"orderId":"1","symbol":"btcusdt","price":"30000","origQty":"0.01","executedQty":"0","status":"NEW","type":"LIMIT","side":"BUY","time":1}]',
    call: (x) => x.call('spot.openOrders', { symbol }),
  },
  { endpoint: 'futures.account', route: 'GET /fapi/v1/account', good: '{"account":[{"marginCoin":"USDT","accountNormal":"10","accountLock":"0"}]}', call: (x) => x.call('futures.account', {}) },
];

const PLACES: PlaceTarget[] = [
  { endpoint: 'spot.order', route: 'POST /sapi/v1/order', good: '{"orderIdString":"150695552109032492","orderId":150695552109032492,"status":"0"}', intents: [intent(1)] },
  { endpoint: 'spot.batchOrders', route: 'POST /sapi/v1/batchOrders', good: '{"idsString":["150695552109032493","150695552109032494"]}', intents: [intent(1), intent(2)] },
  { endpoint: 'futures.order', route: 'POST /fapi/v1/order', good: '{"orderId":"256609229205684228"}', intents: [intent(1, 'futures')] },
];

interface Case {
  name: string;
  answer: (t: Target, stats: StreamStats[]) => Answer | RawAnswer;
  /** MalformedResponseError with this field, or a TemporaryError with this outcomeUnknown. */
  expect: { malformed: string } | { temporary: { outcomeUnknown: boolean } };
  /** Words the message must contain. */
  says: RegExp;
  /** The client stopped an endless body and hung up. */
  streamed?: true;
}

const CASES: Case[] = [
  { name: 'malformed JSON', answer: () => json('{"balances":[{"asset":"BTC","free":"1",'), expect: { malformed: 'body' }, says: /body is not JSON \(HTTP 200, content-type application\/json, \d+ bytes\)/ },
  { name: 'a proxy HTML page with 200', answer: () => htmlPage(200), expect: { malformed: 'body' }, says: /body is not JSON \(HTTP 200, content-type text\/html, \d+ bytes\)/ },
  { name: 'an empty body with 200', answer: () => json(''), expect: { malformed: 'body' }, says: /body is empty \(HTTP 200\)/ },
  // 5xx outranks the body: the venue (or its proxy) failed, whatever the page says.
  { name: 'a proxy HTML page with 502', answer: () => htmlPage(502), expect: { temporary: { outcomeUnknown: true } }, says: /HTTP 502 \(outcome unknown\)/ },
  { name: 'a proxy HTML page with 503', answer: () => htmlPage(503), expect: { temporary: { outcomeUnknown: false } }, says: /HTTP 503/ },
  { name: 'an endless body', answer: (_t, s) => endless(200, s), expect: { malformed: 'body' }, says: /body is larger than 65536 bytes \(HTTP 200\); stopped reading it/, streamed: true },
  { name: 'a declared length over the cap', answer: (_t, s) => endless(200, s, 50 * 1024 * 1024), expect: { malformed: 'body' }, says: /body is larger than 65536 bytes/, streamed: true },
  { name: 'an endless 502 body', answer: (_t, s) => endless(502, s), expect: { temporary: { outcomeUnknown: true } }, says: /HTTP 502/, streamed: true },
  { name: 'a body cut off (content-length)', answer: (t) => cutOff(t.good, false), expect: { temporary: { outcomeUnknown: true } }, says: /answer cut off while reading the body .*\(outcome unknown\)/ },
  { name: 'a body cut off (chunked)', answer: (t) => cutOff(t.good, true), expect: { temporary: { outcomeUnknown: true } }, says: /answer cut off while reading the body .*\(outcome unknown\)/ },
  { name: 'a close-delimited body cut short', answer: (t) => closeDelimited(t.good), expect: { malformed: 'body' }, says: /body is not JSON \(HTTP 200, content-type application\/json, \d+ bytes\)/ },
  { name: 'a body that stalls mid-way', answer: (t) => stalled(t.good), expect: { temporary: { outcomeUnknown: true } }, says: /answer cut off while reading the body \(UND_ERR_BODY_TIMEOUT/ },
];

function expectClass(err: unknown, c: Case, endpoint: string): void {
  if ('malformed' in c.expect) {
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect((err as MalformedResponseError).field).toBe(c.expect.malformed);
    expectReadable(err, endpoint, c.expect.malformed);
  } else {
    // Never a MalformedResponseError: a 5xx or a broken connection is the venue failing.
    expect(err).toBeInstanceOf(TemporaryError);
    expect((err as TemporaryError).outcomeUnknown).toBe(c.expect.temporary.outcomeUnknown);
    expectReadable(err, endpoint);
  }
  expect((err as Error).message).toMatch(c.says);
}

async function expectStreamCut(stats: StreamStats[]): Promise<void> {
  expect(stats.length).toBeGreaterThan(0);
  for (const s of stats) {
    const { written, finished } = await s.closed;
    expect(finished).toBe(false); // the client hung up; the body was never read to its end
    expect(written).toBeLessThan(64 * 1024 * 1024);
  }
}

describe.each(READS)('a read ($endpoint) against a broken answer', (t) => {
  it.each(CASES)('$name', async (c) => {
    const stats: StreamStats[] = [];
    const { server, x } = await setup(on(t.route, () => c.answer(t, stats)));
    const err = await failure(t.call(x));
    expectClass(err, c, t.endpoint);
    // Reads retry what may be passing (5xx, a dropped connection); an answer we cannot read
    // is not asked again.
    const tries = 'malformed' in c.expect ? 1 : 1 + RETRIES;
    expect(server.arrivals.filter((a) => routeOf(a) === t.route)).toHaveLength(tries);
    if (c.streamed) await expectStreamCut(stats);
  });
});

describe.each(PLACES)('a placement ($endpoint) against a broken answer', (t) => {
  it.each(CASES)('$name', async (c) => {
    const stats: StreamStats[] = [];
    const { server, gateway } = await setup(on(t.route, () => c.answer(t, stats)));
    const results = await gateway.place(batchOf(t.intents));
    expect(results.map((r) => r.intent.intentId)).toEqual(t.intents.map((i) => i.intentId));
    const sent = server.arrivals.filter((a) => routeOf(a) === t.route);
    // Nothing broken says the venue did not act on a placement, a 503 included (a read asks
    // again): the orders may exist, so they are unknown, for the reconciler, and sent once.
    const onPlace: Case = 'temporary' in c.expect ? { ...c, expect: { temporary: { outcomeUnknown: true } } } : c;
    for (const r of results) {
      expect(r.outcome.kind).toBe('unknown');
      expectClass((r.outcome as { error: unknown }).error, onPlace, t.endpoint);
    }
    expect(sent).toHaveLength(1);
    if (c.streamed) await expectStreamCut(stats);
  });
});

// ---------- readable JSON with wrong content ----------

const BAL = (free: unknown, extra: Record<string, unknown> = {}) => json({ balances: [{ asset: 'BTC', free, locked: '0', ...extra }] });

describe('reads: wrong types, missing fields, impossible values', () => {
  it.each<[string, string, Answer, string, RegExp]>([
    ['depth price as an object', 'GET /sapi/v1/depth', json({ bids: [[{ p: '1' }, '0.5']], asks: [] }), 'bids[0].price', /must be a decimal, got an object/],
    ['depth level not a pair', 'GET /sapi/v1/depth', json({ bids: ['30000'], asks: [] }), 'bids[0]', /must be \[price, quantity\], got "30000"/],
    ['depth negative quantity', 'GET /sapi/v1/depth', json({ bids: [['30000', '-1']], asks: [] }), 'bids[0].quantity', /must not be negative/],
    ['depth bids missing', 'GET /sapi/v1/depth', json({ asks: [] }), 'bids', /must be a list, got nothing/],
    ['depth as an array', 'GET /sapi/v1/depth', json([[1, 2]]), 'body', /must be an object, got a list/],
    ['account: balances null (not "no balances")', 'GET /sapi/v1/account', json({ balances: null }), 'balances', /must be a list, got null/],
    ['account: balances missing', 'GET /sapi/v1/account', json({}), 'balances', /must be a list, got nothing/],
    ['account: an array for the object', 'GET /sapi/v1/account', json([{ asset: 'BTC', free: '1', locked: '0' }]), 'body', /must be an object, got a list/],
    ['account: JSON null', 'GET /sapi/v1/account', json('null'), 'body', /must be an object, got null/],
    ['openOrders: null (not "no open orders")', 'GET /sapi/v1/openOrders', json('null'), 'body', /must be a list, got null/],
    ['openOrders: an object for the list', 'GET /sapi/v1/openOrders', json({ orderId: '1' }), 'body', /must be a list, got an object/],
  ])('%s: the whole answer is an error naming the field', async (_name, route, answer, field, says) => {
    const { server, x } = await setup(on(route, answer));
    const endpoint = READS.find((t) => t.route === route)!;
    const err = await failure(endpoint.call(x));
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect((err as MalformedResponseError).field).toBe(field);
    expect((err as MalformedResponseError).venue.httpStatus).toBe(200);
    expectReadable(err, endpoint.endpoint, field);
    expect((err as Error).message).toMatch(says);
    expect(server.arrivals.filter((a) => routeOf(a) === route)).toHaveLength(1);
  });

  // One item of a list about the account that cannot be read is left out with its problem (and
  // what it was about, where that much reads); the items beside it are used. Never a zero.
  const good = { asset: 'USDT', free: '5', locked: '0' };
  const goodOrder = { orderId: '9', symbol, origQty: '1', executedQty: '0', status: 'NEW', type: 'LIMIT', side: 'SELL' };
  it.each<[string, string, Answer, string, string | undefined, RegExp]>([
    ['account: negative free', 'GET /sapi/v1/account', BAL('-5'), 'balances[0].free', 'BTC', /must not be negative, got "-5"/],
    ['account: free "abc"', 'GET /sapi/v1/account', BAL('abc'), 'balances[0].free', 'BTC', /must be a decimal, got "abc"/],
    ['account: free "NaN"', 'GET /sapi/v1/account', BAL('NaN'), 'balances[0].free', 'BTC', /must be a decimal, got "NaN"/],
    ['account: free "Infinity"', 'GET /sapi/v1/account', BAL('Infinity'), 'balances[0].free', 'BTC', /must be a decimal/],
    ['account: free ""', 'GET /sapi/v1/account', BAL(''), 'balances[0].free', 'BTC', /must be a decimal, got ""/],
    ['account: free null', 'GET /sapi/v1/account', BAL(null), 'balances[0].free', 'BTC', /must be a decimal, got null/],
    ['account: free true', 'GET /sapi/v1/account', BAL(true), 'balances[0].free', 'BTC', /must be a decimal, got true/],
    ['account: free an object', 'GET /sapi/v1/account', BAL({ value: '1' }), 'balances[0].free', 'BTC', /must be a decimal, got an object/],
    ['account: free a huge exponent', 'GET /sapi/v1/account', BAL('1e999999999'), 'balances[0].free', 'BTC', /must be a decimal of sane size/],
    ['account: free missing', 'GET /sapi/v1/account', json({ balances: [{ asset: 'BTC', locked: '0' }, good] }), 'balances[0].free', 'BTC', /must be a decimal, got nothing/],
    ['account: asset missing', 'GET /sapi/v1/account', json({ balances: [{ free: '1', locked: '0' }, good] }), 'balances[0].asset', undefined, /must be a non-empty string, got nothing/],
    ['openOrders: price as an object', 'GET /sapi/v1/openOrders', json([{ orderId: '1', symbol, price: { v: 1 }, origQty: '1', executedQty: '0', status: 'NEW', type: 'LIMIT', side: 'BUY' }, goodOrder]), 'body[0].price', '1', /must be a decimal, got an object/],
    ['openOrders: a status the notes do not list', 'GET /sapi/v1/openOrders', json([{ orderId: '1', symbol, origQty: '1', executedQty: '0', status: 'EXPIRED_IN_MATCH', type: 'LIMIT', side: 'BUY' }, goodOrder]), 'body[0].status', '1', /is not an order status we know, got "EXPIRED_IN_MATCH"/],
    ['openOrders: an id as a float beyond 2^53', 'GET /sapi/v1/openOrders', json(`[{"orderId":150695552109032492.5,"symbol":"BTCUSDT","origQty":"1","executedQty":"0","status":"NEW","type":"LIMIT","side":"BUY"},${JSON.stringify(goodOrder)}]`), 'body[0].orderId', undefined, /must be an id of digits, got "150695552109032492.5"/],
    ['openOrders: an id in exponent form', 'GET /sapi/v1/openOrders', json(`[{"orderId":1.5069555210903249e17,"symbol":"BTCUSDT","origQty":"1","executedQty":"0","status":"NEW","type":"LIMIT","side":"BUY"},${JSON.stringify(goodOrder)}]`), 'body[0].orderId', undefined, /must be an id of digits/],
    ['openOrders: origQty missing', 'GET /sapi/v1/openOrders', json([{ orderId: '1', symbol, executedQty: '0', status: 'NEW', type: 'LIMIT', side: 'BUY' }, goodOrder]), 'body[0].origQty', '1', /must be a decimal, got nothing/],
    ['futures account: negative locked (that margin account is left out)', 'GET /fapi/v1/account', json({ account: [{ marginCoin: 'USDT', accountNormal: '1', accountLock: '-1' }] }), 'account[0].accountLock', 'USDT', /must not be negative/],
    ['futures account: negative position volume', 'GET /fapi/v1/account', json({ account: [{ marginCoin: 'USDT', accountNormal: '1', accountLock: '0', positionVos: [{ contractName: 'E-BTC-USDT', positions: [{ positionType: 1, side: 'BUY', volume: -10, openPrice: 1, avgPrice: 1 }, { positionType: 1, side: 'SELL', volume: 3 }] }] }] }), 'account[0].positionVos[0].positions[0].volume', 'E-BTC-USDT', /must not be negative, got -10/],
  ])('%s: that item is skipped, named, and the rest read', async (_name, route, answer, field, key, says) => {
    const { server, x } = await setup(on(route, answer));
    const endpoint = READS.find((t) => t.route === route)!;
    const listing = (await endpoint.call(x)) as { items: unknown[]; skipped: { path: string; problem: string; key?: string }[] };
    expect(listing.skipped).toHaveLength(1);
    const skipped = listing.skipped[0]!;
    expect(skipped.path).toBe(field.slice(0, field.lastIndexOf('.')));
    expect(skipped.key).toBe(key);
    expect(skipped.problem).toMatch(says);
    expect(skipped.problem).toContain(`${endpoint.endpoint}: malformed response: ${field} `);
    expect(skipped.problem).not.toContain(SECRET);
    expect(skipped.problem.length).toBeLessThan(300);
    const rest = listing.items as Record<string, unknown>[];
    if (route === 'GET /fapi/v1/account' && rest.length > 0) expect((rest[0]!.positions as unknown[]).length).toBe(1);
    else if (rest.length > 0) expect(rest).toHaveLength(1);
    expect(server.arrivals.filter((a) => routeOf(a) === route)).toHaveLength(1);
  });

  it('ids beyond 2^53 written as JSON numbers are kept exact, never rounded', async () => {
    // 2^53 + 1 and an 18-digit id: a double would read them as ...992 and ...2500.
    const { x } = await setup(
      on('GET /sapi/v1/openOrders', json('[{"orderId":9007199254740993,"symbol":"BTCUSDT","origQty":"1","executedQty":"0","status":"NEW","type":"LIMIT","side":"BUY"},{"orderId":150695552109032493,"symbol":"BTCUSDT","origQty":"1","executedQty":"0","status":"NEW","type":"LIMIT","side":"BUY"}]')),
    );
    const orders = await x.call('spot.openOrders', { symbol });
    expect(orders.items.map((o) => o.orderId)).toEqual(['9007199254740993', '150695552109032493']);
  });

  it('exponent notation is read exactly (decided: accepted, as some serialisers print it)', async () => {
    const { x } = await setup(on('GET /sapi/v1/account', json('{"balances":[{"asset":"BTC","free":"1e5","locked":"1.5E-7"},{"asset":"ETH","free":1e-7,"locked":" 2 "}]}')));
    expect((await x.call('spot.account', {})).items).toEqual([
      { asset: 'BTC', free: '100000', locked: '0.00000015' },
      { asset: 'ETH', free: '0.0000001', locked: '2' },
    ]);
  });

  it('signed values stay signed where a sign means something: futures available after a loss, PnL, fee rebates', async () => {
    const { x } = await setup(
      on('GET /fapi/v1/account', json({ account: [{ marginCoin: 'USDT', accountNormal: '-3.5', accountLock: '0', unrealizedAmount: '-1.25', positionVos: null }] })),
    );
    expect((await x.call('futures.account', {})).items[0]).toMatchObject({ available: '-3.5', unrealizedPnl: '-1.25', positions: [] });
  });

  it('a futures position whose positionType is null (the notes: many fields can be null live) is still read: its contract stays judged', async () => {
    const { x } = await setup(
      on('GET /fapi/v1/account', json({ account: [{ marginCoin: 'USDT', accountNormal: '10', accountLock: '0', positionVos: [{ contractName: 'E-BTC-USDT', positions: [{ positionType: null, side: 'BUY', volume: 5, openPrice: null }] }] }] })),
    );
    const read = await x.call('futures.account', {});
    expect(read.skipped).toEqual([]);
    expect(read.items[0]!.positions).toEqual([{ contractName: 'E-BTC-USDT', side: 'BUY', volume: '5' }]);
  });

  it('futures openOrders {code:"0", data:null} is still an empty list (documented live form)', async () => {
    const { x } = await setup(() => undefined);
    expect(await x.call('futures.openOrders', { contractName: 'E-BTC-USDT' })).toEqual({ items: [], skipped: [] });
  });
});

// ---------- placements: readable JSON with wrong content ----------

describe('placements: an answer we cannot read means the order may exist', () => {
  const ACK = { symbol, orderIdString: '150695552109032492', clientOrderId: 'slbad-1', status: '0', executedQty: '0' };
  it.each<[string, string, Answer, string, RegExp, PlaceIntent[]]>([
    ['spot.order: orderId a float beyond 2^53', 'POST /sapi/v1/order', json('{"orderId":150695552109032492.5,"status":"0"}'), 'body.orderId', /must be an id of digits, got "150695552109032492.5"/, [intent(1)]],
    ['spot.order: orderId in exponent form', 'POST /sapi/v1/order', json('{"orderId":1.506955521090325e17,"status":"0"}'), 'body.orderId', /must be an id of digits/, [intent(1)]],
    ['spot.order: orderId a float below 2^53', 'POST /sapi/v1/order', json('{"orderId":12345.5,"status":"0"}'), 'body.orderId', /must be an id of digits/, [intent(1)]],
    ['spot.order: orderId negative', 'POST /sapi/v1/order', json('{"orderId":-5,"status":"0"}'), 'body.orderId', /must be an id of digits/, [intent(1)]],
    ['spot.order: orderId missing', 'POST /sapi/v1/order', json({ symbol, status: '0' }), 'body.orderId', /must be an id of digits, got nothing/, [intent(1)]],
    ['spot.order: orderId an object', 'POST /sapi/v1/order', json({ orderId: { id: '1' } }), 'body.orderId', /must be an id of digits, got an object/, [intent(1)]],
    ['spot.order: an array for the object', 'POST /sapi/v1/order', json([ACK]), 'body', /must be an object, got a list/, [intent(1)]],
    ['spot.order: executedQty an object', 'POST /sapi/v1/order', json({ ...ACK, executedQty: { v: 0 } }), 'body.executedQty', /must be a decimal, got an object/, [intent(1)]],
    ['spot.order: executedQty negative', 'POST /sapi/v1/order', json({ ...ACK, executedQty: '-0.5' }), 'body.executedQty', /must not be negative/, [intent(1)]],
    ['spot.order: executedQty "NaN"', 'POST /sapi/v1/order', json({ ...ACK, executedQty: 'NaN' }), 'body.executedQty', /must be a decimal, got "NaN"/, [intent(1)]],
    ['batchOrders: ids an object', 'POST /sapi/v1/batchOrders', json({ ids: { a: 1 } }), 'ids', /must be a list, got an object/, [intent(1), intent(2)]],
    ['batchOrders: ids missing', 'POST /sapi/v1/batchOrders', json({}), 'ids', /must be a list, got nothing/, [intent(1), intent(2)]],
    ['batchOrders: ids and idsString disagree', 'POST /sapi/v1/batchOrders', json('{"idsString":["150695552109032493","150695552109032494"],"ids":[150695552109032493,150695552109032495]}'), 'ids', /disagrees with idsString/, [intent(1), intent(2)]],
    ['batchOrders: the same id twice', 'POST /sapi/v1/batchOrders', json({ idsString: ['150695552109032493', '150695552109032493'] }), 'idsString', /holds the same id twice/, [intent(1), intent(2)]],
    ['futures.order: orderId a float beyond 2^53', 'POST /fapi/v1/order', json('{"orderId":256609229205684228.0}'), 'body.orderId', /must be an id of digits/, [intent(1, 'futures')]],
    ['futures.order: orderId missing', 'POST /fapi/v1/order', json({ code: '0', msg: 'success', data: {} }), 'body.orderId', /must be an id of digits, got nothing/, [intent(1, 'futures')]],
    ['futures.order: data null in the envelope', 'POST /fapi/v1/order', json({ code: '0', msg: 'success', data: null }), 'body', /must be an object, got null/, [intent(1, 'futures')]],
  ])('%s', async (_name, route, answer, field, says, intents) => {
    const { server, gateway } = await setup(on(route, answer));
    const results = await gateway.place(batchOf(intents));
    expect(results).toHaveLength(intents.length);
    for (const r of results) {
      expect(r.outcome.kind).toBe('unknown');
      const err = (r.outcome as Extract<PlaceResult['outcome'], { kind: 'unknown' }>).error;
      expect(err).toBeInstanceOf(MalformedResponseError);
      expect((err as MalformedResponseError).field).toBe(field);
      expectReadable(err, PLACES.find((t) => t.route === route)!.endpoint, field);
      expect(err.message).toMatch(says);
    }
    // Never re-sent: it may be live on the venue.
    expect(server.arrivals.filter((a) => routeOf(a) === route)).toHaveLength(1);
  });

  it('an ack whose status the notes do not list still gives the order\'s id: accepted as open, sent once', async () => {
    const { server, gateway } = await setup(on('POST /sapi/v1/order', json({ ...ACK, status: 'ACCEPTED_MAYBE' })));
    const [result] = await gateway.place(batchOf([intent(1)]));
    expect(result!.outcome).toMatchObject({ kind: 'accepted', venueOrderId: '150695552109032492', status: 'open' });
    expect(server.arrivals.filter((a) => routeOf(a) === 'POST /sapi/v1/order')).toHaveLength(1);
  });

  it('a placement answer trickled a byte at a time ends at the total timeout: unknown, sent once, the connection closed', async () => {
    const stats: StreamStats[] = [];
    // 100 bytes at one per 50 ms would take 5 s; every gap is within the 300 ms body timeout.
    const body = `{"orderIdString":"150695552109032492","orderId":150695552109032492,"status":"0"${' '.repeat(20)}}`;
    const { server, gateway } = await setup(on('POST /sapi/v1/order', trickled(body, stats)), 600);
    const [result] = await gateway.place(batchOf([intent(1)]));
    expect(result!.outcome.kind).toBe('unknown');
    const err = (result!.outcome as { error: unknown }).error as TemporaryError;
    expect(err).toBeInstanceOf(TemporaryError);
    expect(err.message).toMatch(/^spot\.order: .*HTTP 200 answer cut off while reading the body: no complete answer within 600 ms/);
    expect(server.arrivals.filter((a) => routeOf(a) === 'POST /sapi/v1/order')).toHaveLength(1);
    await expectStreamCut(stats);
    expect((await stats[0]!.closed).written).toBeLessThan(body.length);
  });

  it('a batch answer with fewer ids than orders sent: every order of the batch is unknown, none re-sent', async () => {
    const { server, gateway } = await setup(on('POST /sapi/v1/batchOrders', json({ idsString: ['150695552109032493', '150695552109032494'] })));
    const results = await gateway.place(batchOf([intent(1), intent(2), intent(3)]));
    expect(results.map((r) => r.outcome.kind)).toEqual(['unknown', 'unknown', 'unknown']);
    const err = (results[0]!.outcome as { error: unknown }).error;
    expect(err).toBeInstanceOf(TemporaryError);
    expect((err as TemporaryError).outcomeUnknown).toBe(true);
    expectReadable(err, 'spot.batchOrders');
    expect((err as Error).message).toMatch(/answered 2 ids for 3 orders/);
    expect(server.arrivals.filter((a) => routeOf(a) === 'POST /sapi/v1/batchOrders')).toHaveLength(1);
  });

  it('a batch answer with items that are no id (a float, null, our key echoed): those orders alone are unknown, the others accepted with their ids, none re-sent', async () => {
    const { server, gateway } = await setup(on('POST /sapi/v1/batchOrders', json(`{"ids":[150695552109032493.5,150695552109032494,null,150695552109032496,"${KEY}"]}`)));
    const results = await gateway.place(batchOf([intent(1), intent(2), intent(3), intent(4), intent(5)]));
    expect(results.map((r) => [r.intent.clientOrderId, r.outcome.kind, (r.outcome as { venueOrderId?: string }).venueOrderId])).toEqual([
      [clientOrderId('bad', 1), 'unknown', undefined],
      [clientOrderId('bad', 2), 'accepted', '150695552109032494'],
      [clientOrderId('bad', 3), 'unknown', undefined],
      [clientOrderId('bad', 4), 'accepted', '150695552109032496'],
      [clientOrderId('bad', 5), 'unknown', undefined],
    ]);
    const errors = [results[0]!, results[2]!, results[4]!].map((r) => (r.outcome as { error: unknown }).error as MalformedResponseError);
    expect(errors.map((e) => [e instanceof MalformedResponseError, e.field, e.venue.httpStatus, e.message])).toEqual([
      [true, 'ids[0]', 200, 'spot.batchOrders: malformed response: ids[0] must be an id of digits, got "150695552109032493.5"'],
      [true, 'ids[2]', 200, 'spot.batchOrders: malformed response: ids[2] must be an id of digits, got null'],
      [true, 'ids[4]', 200, 'spot.batchOrders: malformed response: ids[4] must be an id of digits, got "[redacted]"'],
    ]);
    for (const [e, field] of [[errors[0], 'ids[0]'], [errors[2], 'ids[4]']] as const) expectReadable(e, 'spot.batchOrders', field);
    expect(server.arrivals.filter((a) => routeOf(a) === 'POST /sapi/v1/batchOrders')).toHaveLength(1);
  });

  it('batchCancel: an id in neither success nor failed may still be open, so it is unknown, not gone', async () => {
    const [a, b, c] = ['150695552109032493', '150695552109032494', '150695552109032495'];
    let answers = 0;
    const { gateway } = await setup((arrival) => (routeOf(arrival) === 'POST /sapi/v1/batchCancel' ? json(++answers === 1 ? `{"success":[${a}],"failed":[${b}]}` : '{}') : undefined));
    const cancel = (n: number, id: string): CancelIntent => ({ kind: 'cancel', intentId: `c${n}`, strategyId: 'bad', market: 'spot', symbol, clientOrderId: clientOrderId('bad', n), venueOrderId: venueOrderId(id) });
    const batch: Batch<CancelIntent> = { market: 'spot', symbol, kind: 'cancel', items: [cancel(1, a), cancel(2, b), cancel(3, c)] };
    const first = await gateway.cancel(batch);
    expect(first.map((r) => r.outcome.kind)).toEqual(['accepted', 'gone', 'unknown']);
    expect((first[2]!.outcome as { error: Error }).error.message).toBe(`spot.batchCancel: the answer lists order ${c} neither as cancelled nor as failed`);
    // {}: the venue could not read the list; no order is taken as gone.
    expect((await gateway.cancel(batch)).map((r) => r.outcome.kind)).toEqual(['unknown', 'unknown', 'unknown']);
  });

  it('ids beyond 2^53 written as JSON numbers are kept exact (spot, batch, futures)', async () => {
    const { gateway } = await setup((a) =>
      routeOf(a) === 'POST /sapi/v1/order'
        ? json('{"orderId":150695552109032493,"status":0}')
        : routeOf(a) === 'POST /sapi/v1/batchOrders'
          ? json('{"ids":[9007199254740993,9007199254740995]}')
          : routeOf(a) === 'POST /fapi/v1/order'
            ? json('{"orderId":256609229205684229}')
            : undefined,
    );
    const ids = async (items: PlaceIntent[]) => (await gateway.place(batchOf(items))).map((r) => (r.outcome.kind === 'accepted' ? r.outcome.venueOrderId : r.outcome.kind));
    expect(await ids([intent(1)])).toEqual(['150695552109032493']);
    expect(await ids([intent(1), intent(2)])).toEqual(['9007199254740993', '9007199254740995']);
    expect(await ids([intent(1, 'futures')])).toEqual(['256609229205684229']);
  });
});

// ---------- secrets never reach a message ----------

describe('no secret in any message, even when the venue echoes it', () => {
  it('an error text that echoes the API key', async () => {
    const { x } = await setup(on('GET /sapi/v1/account', json({ code: -2015, msg: `Invalid API-key ${KEY}, IP, or permissions for action` }, 401)));
    const err = await failure(x.call('spot.account', {}));
    expect(err).toBeInstanceOf(AuthError);
    expectReadable(err, 'spot.account');
    expect((err as Error).message).toContain('[redacted]');
    expect((err as AuthError).venue.venueMsg).not.toContain(KEY);
  });

  it('an error text that echoes the API key where the text is cut (200 characters): no part of it is kept', async () => {
    const { x } = await setup(on('GET /sapi/v1/account', json({ code: -2015, msg: `${'x'.repeat(190)}${KEY} and more` }, 401)));
    const err = await failure(x.call('spot.account', {}));
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).message).toBe(`spot.account: venue code -2015: ${'x'.repeat(190)}[redacted]`);
    expect((err as AuthError).venue.venueMsg).toBe(`${'x'.repeat(190)}[redacted]`);
  });

  it('a field value that echoes the API key, in a placement answer', async () => {
    const { gateway } = await setup(on('POST /sapi/v1/order', json({ orderId: KEY.slice(0, 20), status: '0' })));
    const [r] = await gateway.place(batchOf([intent(1)]));
    expect(r!.outcome.kind).toBe('unknown');
    const err = (r!.outcome as { error: Error }).error;
    expect(err).toBeInstanceOf(MalformedResponseError);
    expectReadable(err, 'spot.order', 'body.orderId');
  });

  it('an HTML page that echoes the request headers is described, not quoted', async () => {
    const { x } = await setup((a) =>
      routeOf(a) === 'GET /sapi/v1/account'
        ? { status: 200, body: `<html><pre>X-CH-APIKEY: ${a.headers['x-ch-apikey']}\nX-CH-SIGN: ${a.headers['x-ch-sign']}</pre></html>`, headers: { 'content-type': 'text/html; charset=utf-8' } }
        : undefined,
    );
    const err = await failure(x.call('spot.account', {}));
    expect(err).toBeInstanceOf(MalformedResponseError);
    expectReadable(err, 'spot.account', 'body');
    expect((err as Error).message).toMatch(/content-type text\/html, \d+ bytes/);
    expect((err as Error).message).not.toContain('X-CH-SIGN');
  });
});

describe('a venue that refuses client order ids in batch items (the notes\' item shape has none)', () => {
  it('has the refused batch placed once more without them, and every later batch sent without them', async () => {
    const { server, gateway } = await setup(
      on('POST /sapi/v1/batchOrders', (a) =>
        a.body.includes('newClientOrderId') ? json({ code: -1103, msg: 'An unknown parameter was sent.' }, 400) : json({ idsString: ['150695552109032493', '150695552109032494'] }),
      ),
    );
    for (const pair of [[intent(1), intent(2)], [intent(3), intent(4)]]) {
      const results = await gateway.place(batchOf(pair));
      expect(results.map((r) => r.outcome)).toEqual([
        { kind: 'accepted', venueOrderId: '150695552109032493', status: 'open' },
        { kind: 'accepted', venueOrderId: '150695552109032494', status: 'open' },
      ]);
    }
    const batches = server.arrivals.filter((a) => routeOf(a) === 'POST /sapi/v1/batchOrders');
    expect(batches.map((a) => [a.status, a.body.includes('newClientOrderId')])).toEqual([
      [400, true],
      [200, false],
      [200, false],
    ]);
  });

  it('a create answer that says the order already executed carries what it executed; one that says 0 carries nothing', async () => {
    let executed = '0.004';
    const { gateway } = await setup(on('POST /sapi/v1/order', () => json({ symbol, orderIdString: '150695552109032492', status: 'FILLED', executedQty: executed })));
    expect((await gateway.place(batchOf([intent(1)])))[0]!.outcome).toEqual({ kind: 'accepted', venueOrderId: '150695552109032492', status: 'filled', executedQty: '0.004' });
    executed = '0';
    expect((await gateway.place(batchOf([intent(2)])))[0]!.outcome).toStrictEqual({ kind: 'accepted', venueOrderId: '150695552109032492', status: 'filled', executedQty: undefined });
  });

  it('the gateway keeps how the client order id of each order whose outcome is unknown went: alone, in a batch item, or not at all', async () => {
    let refuseIds = false;
    const { gateway } = await setup((a) => {
      if (routeOf(a) === 'POST /sapi/v1/order' || routeOf(a) === 'POST /fapi/v1/order') return json('<html>502 Bad Gateway</html>', 502);
      if (routeOf(a) !== 'POST /sapi/v1/batchOrders') return undefined;
      if (refuseIds && a.body.includes('newClientOrderId')) return json({ code: -1103, msg: 'An unknown parameter was sent.' }, 400);
      return json('<html>502 Bad Gateway</html>', 502);
    });
    const carriers = (results: PlaceResult[]) => results.map((r) => [r.outcome.kind, gateway.carrierOf(r.intent.clientOrderId)]);
    expect(carriers(await gateway.place(batchOf([intent(1)])))).toEqual([['unknown', 'order']]);
    expect(carriers(await gateway.place(batchOf([intent(2), intent(3)])))).toEqual([['unknown', 'batch'], ['unknown', 'batch']]);
    refuseIds = true;
    expect(carriers(await gateway.place(batchOf([intent(4), intent(5)])))).toEqual([['unknown', 'none'], ['unknown', 'none']]);
    expect(carriers(await gateway.place(batchOf([intent(6, 'futures')])))).toEqual([['unknown', 'order']]);
  });

  it('any other refusal of a batch stays a refusal, sent once', async () => {
    const { server, gateway } = await setup(on('POST /sapi/v1/batchOrders', json({ code: -2017, msg: 'Insufficient balance.' }, 400)));
    const results = await gateway.place(batchOf([intent(1), intent(2)]));
    expect(results.map((r) => r.outcome.kind)).toEqual(['rejected', 'rejected']);
    expect(server.arrivals.filter((a) => routeOf(a) === 'POST /sapi/v1/batchOrders')).toHaveLength(1);
  });

  it('a refusal that names another field than the client order id stays a refusal, sent once', async () => {
    const { server, gateway } = await setup(on('POST /sapi/v1/batchOrders', json({ code: -1103, msg: 'unknown parameter batchType' }, 400)));
    const results = await gateway.place(batchOf([intent(1), intent(2)]));
    expect(results.map((r) => [r.outcome.kind, r.outcome.kind === 'rejected' && r.outcome.error.message])).toEqual([
      ['rejected', 'spot.batchOrders: venue code -1103: unknown parameter batchType'],
      ['rejected', 'spot.batchOrders: venue code -1103: unknown parameter batchType'],
    ]);
    expect(server.arrivals.filter((a) => routeOf(a) === 'POST /sapi/v1/batchOrders')).toHaveLength(1);
  });
});

describe('a venue that refuses the client order id on a single order (the contract\'s create-order body has five fields)', () => {
  /**
   * A venue that refuses, with -1103, an order request carrying any field in `refused` (named the
   * way `says` words it), and otherwise takes it under the next venue id.
   */
  function refusing(route: string, refused: () => readonly string[], says: (field: string) => Answer, ids: readonly string[]): Respond {
    let next = 0;
    return on(route, (a) => {
      const extra = refused().find((field) => field in (JSON.parse(a.body) as object));
      if (extra !== undefined) return says(extra);
      const id = ids[next++]!;
      return json(route === 'POST /fapi/v1/order' ? { orderId: id } : { symbol, orderIdString: id, status: 'NEW' });
    });
  }
  const unknownParameter = (field: string) => json({ code: -1103, msg: `unknown parameter ${field}` }, 400);
  const carried = (arrivals: Arrival[], route: string, field: string) => arrivals.filter((a) => routeOf(a) === route).map((a) => [a.status, field in (JSON.parse(a.body) as object)]);
  const SPOT_IDS = ['150695552109032501', '150695552109032502', '150695552109032503'];

  it('the refused order is sent once more without it and accepted under its venue id; later ones go without it at once (the warning said once)', async () => {
    const { server, x } = await setup(refusing('POST /sapi/v1/order', () => ['newClientOrderId'], unknownParameter, SPOT_IDS));
    const log = new MemoryLog();
    const gateway = new OrderGateway(x, log);
    for (const [n, id] of [[1, SPOT_IDS[0]], [2, SPOT_IDS[1]], [3, SPOT_IDS[2]]] as const) {
      expect((await gateway.place(batchOf([intent(n)])))[0]!.outcome).toEqual({ kind: 'accepted', venueOrderId: id, status: 'open' });
    }
    expect(carried(server.arrivals, 'POST /sapi/v1/order', 'newClientOrderId')).toEqual([
      [400, true],
      [200, false],
      [200, false],
      [200, false],
    ]);
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => [l.fields, l.msg])).toEqual([
      [
        { endpoint: 'spot.order', code: -1103, reason: 'unknown parameter newClientOrderId' },
        'the venue refuses client order ids on this endpoint: its orders go without them (lost answers are then bound by their looks)',
      ],
    ]);
  });

  it('only a refusal of the client order id is sent again: one naming another field, another refusal and a lost answer go once', async () => {
    let refused: string[] = ['type'];
    const { server, gateway } = await setup((a) => {
      if (routeOf(a) === 'POST /sapi/v1/order' && a.body.includes('"price":"1"')) return json({ code: -2017, msg: 'Insufficient balance.' }, 400);
      if (routeOf(a) === 'POST /sapi/v1/order' && a.body.includes('"price":"2"')) return json({ code: -1103, msg: 'unknown parameter newClientOrderId' }, 500);
      return refusing('POST /sapi/v1/order', () => refused, (field) => json({ code: -1106, msg: `Parameter '${field}' sent when not required.` }, 400), SPOT_IDS)(a);
    });
    const outcome = async (i: PlaceIntent) => {
      const o = (await gateway.place(batchOf([i])))[0]!.outcome;
      return [o.kind, o.kind === 'accepted' ? o.venueOrderId : o.error.message, gateway.carrierOf(i.clientOrderId)];
    };
    expect(await outcome(intent(1))).toEqual(['rejected', "spot.order: venue code -1106: Parameter 'type' sent when not required.", undefined]);
    expect(await outcome({ ...intent(2), price: d('1') })).toEqual(['rejected', 'spot.order: venue code -2017: Insufficient balance.', undefined]);
    expect(await outcome({ ...intent(3), price: d('2') })).toEqual(['unknown', 'spot.order: venue code -1103: unknown parameter newClientOrderId (outcome unknown)', 'order']);
    refused = ['newClientOrderId'];
    expect(await outcome(intent(4))).toEqual(['accepted', SPOT_IDS[0], undefined]);
    expect(carried(server.arrivals, 'POST /sapi/v1/order', 'newClientOrderId')).toEqual([
      [400, true],
      [400, true],
      [500, true],
      [400, true],
      [200, false],
    ]);
  });

  it('an order whose resend without it lost its answer is unknown, its client order id carried by nothing; so is a later one', async () => {
    let lost = false;
    const { server, gateway } = await setup((a) => {
      if (routeOf(a) !== 'POST /sapi/v1/order') return undefined;
      if (a.body.includes('newClientOrderId')) return unknownParameter('newClientOrderId');
      return lost ? json('<html>502 Bad Gateway</html>', 502) : json({ symbol, orderIdString: SPOT_IDS[0], status: 'NEW' });
    });
    lost = true;
    const carriers = (results: PlaceResult[]) => results.map((r) => [r.outcome.kind, gateway.carrierOf(r.intent.clientOrderId)]);
    expect(carriers(await gateway.place(batchOf([intent(1)])))).toEqual([['unknown', 'none']]);
    expect(carriers(await gateway.place(batchOf([intent(2)])))).toEqual([['unknown', 'none']]);
    expect(carried(server.arrivals, 'POST /sapi/v1/order', 'newClientOrderId')).toEqual([
      [400, true],
      [502, false],
      [502, false],
    ]);
  });

  it('futures likewise: its clientOrderId refused (the futures envelope, a string code) is left off from then on; a refusal of another field is not resent', async () => {
    const FUTURES_IDS = ['256609229205684231', '256609229205684232'];
    let refused: string[] = ['timeInForce'];
    const { server, gateway } = await setup(
      refusing('POST /fapi/v1/order', () => refused, (field) => json({ code: '-1103', succ: false, msgData: null, msg: field === 'clientOrderId' ? 'An unknown parameter was sent.' : `unknown parameter ${field}` }, 400), FUTURES_IDS),
    );
    const futures = (n: number): PlaceIntent => ({ ...intent(n, 'futures'), timeInForce: 'IOC' });
    const first = (await gateway.place(batchOf([futures(1)])))[0]!.outcome;
    expect([first.kind, first.kind === 'rejected' && first.error.message]).toEqual(['rejected', 'futures.order: venue code -1103: unknown parameter timeInForce']);
    refused = ['clientOrderId'];
    for (const [n, id] of [[2, FUTURES_IDS[0]], [3, FUTURES_IDS[1]]] as const) {
      const [r] = await gateway.place(batchOf([futures(n)]));
      expect(r!.outcome).toMatchObject({ kind: 'accepted', venueOrderId: id });
    }
    expect(carried(server.arrivals, 'POST /fapi/v1/order', 'clientOrderId')).toEqual([
      [400, true],
      [400, true],
      [200, false],
      [200, false],
    ]);
  });

});
