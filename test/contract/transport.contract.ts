// The Transport port's contract, run against every implementation: HTTP to the simulator's
// server, the in-process simulator, recording a tape, and replaying one.
//
// The oracle is a twin venue: a second simulator with the same seed and options, on its own
// manual clock at T0, handed the same requests in the same order. The simulator promises
// byte-identical answers for the same requests at the same times, so every answer a transport
// hands back must equal the twin's: same status, same content type and Retry-After, and the
// same body text, byte for byte. Cases never move the clock and build every request from the
// harness clock, so a replay can rerun a case and send exactly the requests it recorded.
import { describe, expect, it } from 'vitest';
import { ManualClock, type Clock } from '../../src/core/clock.js';
import { TransportFailure, type HttpMethod, type HttpRequest, type HttpResponse, type Transport } from '../../src/core/ports.js';
import { parseJsonLossless } from '../../src/exchange/json.js';
import { sign } from '../../src/exchange/sign.js';
import { SimExchange, SimFault, type SimOptions } from '../../src/sim/index.js';

export const T0 = 1_700_000_000_000;

/**
 * Every venue of the suite: the strict profile (order ids as bare JSON numbers beyond 2^53,
 * decimals as 8-place number literals) and a ping limit small enough to earn a 429 in 3 calls.
 */
export const VENUE_OPTIONS = { seed: 7, profile: 'strict', limits: { 'spot.ping': 2 } } as const satisfies SimOptions;

/** A fresh venue on a manual clock at T0: what every harness puts behind its transport. */
export function newVenue(): SimExchange {
  return new SimExchange({ ...VENUE_OPTIONS, clock: new ManualClock(T0) });
}

export interface TransportHarness {
  transport: Transport;
  /**
   * The venue behind the transport, made by newVenue() for this case alone. A replay has no
   * venue of its own: this is the one its tape was recorded from, so what that venue saw is
   * what the tape holds. Cases check the venue only in ways that also hold for its state at
   * the end of the case (a replay's venue is already there).
   */
  venue: SimExchange;
  /** The clock requests are signed with: the venue's, or for a replay a fresh one at T0. */
  clock: Clock;
  /** Checks run after a case passed (a replay: every recorded request was asked for). */
  afterCase?: () => void | Promise<void>;
  /** Closes and removes what the harness made; runs whether the case passed or not. */
  cleanup: () => Promise<void>;
}

export type TransportCase = (h: TransportHarness) => Promise<void>;

// ---------- requests ----------

export function get(path: string, query = ''): HttpRequest {
  return { method: 'GET', path, query, body: '', headers: {} };
}

/**
 * A request signed as the executor signs it (X-CH-APIKEY, X-CH-TS, X-CH-SIGN over the exact
 * query and body), with the venue's credentials unless `secret` says otherwise.
 */
export function signed(
  h: Pick<TransportHarness, 'venue' | 'clock'>,
  method: HttpMethod,
  path: string,
  o: { query?: string; body?: string; headers?: Record<string, string>; secret?: string } = {},
): HttpRequest {
  const query = o.query ?? '';
  const body = o.body ?? '';
  const timestamp = String(h.clock.now());
  const headers: Record<string, string> = {
    'X-CH-APIKEY': h.venue.apiKey,
    'X-CH-TS': timestamp,
    'X-CH-SIGN': sign(o.secret ?? h.venue.apiSecret, { timestamp, method, path, query, body }),
    ...o.headers,
  };
  return { method, path, query, body, headers };
}

export const JSON_TYPE = { 'content-type': 'application/json' } as const;

export function orderBody(clientOrderId: string, side: 'BUY' | 'SELL' = 'BUY', price = '20000'): string {
  return `{"symbol":"BTCUSDT","side":"${side}","type":"LIMIT","volume":"0.001","price":"${price}","newClientOrderId":"${clientOrderId}"}`;
}

export function placeOrder(h: Pick<TransportHarness, 'venue' | 'clock'>, clientOrderId: string): HttpRequest {
  return signed(h, 'POST', '/sapi/v1/order', { body: orderBody(clientOrderId), headers: JSON_TYPE });
}

// ---------- the twin venue, and comparing answers ----------

export class Twin {
  readonly venue = newVenue();

  /** What the venue answers to `request` (the twin sees it as it would arrive on the wire). */
  async answer(request: HttpRequest): Promise<HttpResponse> {
    const out = await this.venue.handle(request, { remote: 'twin' });
    if (out instanceof SimFault) throw new Error(`the twin venue gave no answer (${out.kind})`);
    return out;
  }
}

/** `res` is the venue's answer, intact: the status, the venue's headers and the body text. */
export function expectVenueAnswer(res: HttpResponse, expected: HttpResponse): void {
  expect(res.status).toBe(expected.status);
  expect(res.body).toBe(expected.body);
  // An answer handed over parsed (a trusted venue in this process) says what its text says.
  if (res.json !== undefined) expect(res.json).toEqual(parseJsonLossless(res.body));
  // Header names are lower-case. The venue's own headers (content-type, retry-after) come
  // through as sent; an implementation may add others (HTTP's content-length, date...).
  expect(Object.keys(res.headers).filter((k) => k !== k.toLowerCase())).toEqual([]);
  expect(Object.fromEntries(Object.keys(expected.headers).map((k) => [k, res.headers[k]]))).toEqual(expected.headers);
}

/** Sends `request` through the transport and to the twin (`asArrived`: as the twin should see it); returns the checked answer. */
export async function roundTrip(h: TransportHarness, twin: Twin, request: HttpRequest, asArrived: HttpRequest = request): Promise<HttpResponse> {
  const res = await h.transport.send(request);
  expectVenueAnswer(res, await twin.answer(asArrived));
  return res;
}

/** What the venue saw: endpoint, status (0: no answer sent) and error code, in arrival order. */
export function seen(venue: SimExchange): Array<[string, number, number?]> {
  return venue.arrivals().map((a) => (a.code === undefined ? [a.endpoint, a.status] : [a.endpoint, a.status, a.code]));
}

async function failureOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

// ---------- the cases ----------

export const transportCases: Readonly<Record<string, TransportCase>> = {
  'a public GET reaches the venue with its query, and the answer comes back with status, content type and exact body': async (h) => {
    const twin = new Twin();
    const time = await roundTrip(h, twin, get('/sapi/v1/time'));
    expect(time.status).toBe(200);
    expect(time.headers['content-type']).toBe('application/json');
    expect(time.body).toBe(`{"timezone":"UTC","serverTime":${T0}}`);
    const depth = await roundTrip(h, twin, get('/sapi/v1/depth', 'symbol=BTCUSDT&limit=3'));
    const book = JSON.parse(depth.body) as { bids: unknown[]; asks: unknown[] };
    expect([book.bids.length, book.asks.length]).toEqual([3, 3]);
    expect(seen(h.venue)).toEqual([
      ['spot.time', 200],
      ['spot.depth', 200],
    ]);
  },

  'a signed read is accepted by the venue, and its decimal literals come back digit for digit': async (h) => {
    const twin = new Twin();
    const res = await roundTrip(h, twin, signed(h, 'GET', '/sapi/v1/account'));
    expect(res.status).toBe(200);
    // Strict balances are number literals to 8 places: a body parsed and written again would lose the zeros.
    expect(res.body).toContain('{"asset":"USDT","free":100000.00000000,"locked":0.00000000}');
    expect(seen(h.venue)).toEqual([['spot.account', 200]]);
    // The venue took the call as the account's (compared, never printed).
    expect(h.venue.arrivals()[0]!.key === h.venue.apiKey).toBe(true);
  },

  'a signed order reaches the venue, and its order id beyond 2^53 comes back with every digit': async (h) => {
    const twin = new Twin();
    const res = await roundTrip(h, twin, placeOrder(h, 'c-1'));
    expect(res.status).toBe(200);
    const placed = h.venue.orderLog();
    expect(placed.map((o) => [o.clientOrderId, o.symbol, o.side, o.type, String(o.price), String(o.volume)])).toEqual([['c-1', 'BTCUSDT', 'BUY', 'LIMIT', '20000', '0.001']]);
    const id = placed[0]!.orderId;
    // A double cannot hold this id: any pass through JSON.parse would have changed its digits.
    expect(BigInt(id) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(String(Number(id))).not.toBe(id);
    expect(res.body).toContain(`"orderId":${id},"orderIdString":"${id}"`);
  },

  'a venue refusal is an answer, not an exception: bad signature 401, bad symbol 400, unknown route 404': async (h) => {
    const twin = new Twin();
    const badSign = await roundTrip(h, twin, signed(h, 'GET', '/sapi/v1/account', { secret: 'not-the-venue-secret' }));
    expect([badSign.status, JSON.parse(badSign.body).code]).toEqual([401, -1022]);
    expect(badSign.headers['content-type']).toBe('application/json');
    const badSymbol = await roundTrip(h, twin, get('/sapi/v1/depth', 'symbol=NOPE'));
    expect(badSymbol.body).toBe('{"code":-1121,"msg":"Invalid symbol."}');
    expect(badSymbol.status).toBe(400);
    const nowhere = await roundTrip(h, twin, get('/sapi/v1/nowhere'));
    expect([nowhere.status, JSON.parse(nowhere.body).code]).toEqual([404, -1020]);
    expect(seen(h.venue)).toEqual([
      ['spot.account', 401, -1022],
      ['spot.depth', 400, -1121],
      ['GET /sapi/v1/nowhere', 404, -1020],
    ]);
  },

  'a 429 is an answer, with its Retry-After header': async (h) => {
    const twin = new Twin();
    const answers: HttpResponse[] = [];
    for (let i = 0; i < 3; i++) answers.push(await roundTrip(h, twin, get('/sapi/v1/ping')));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    const limited = answers[2]!;
    expect(limited.headers['retry-after']).toBe('2');
    expect(JSON.parse(limited.body).code).toBe(-1003);
    expect(seen(h.venue).map(([, status]) => status)).toEqual([200, 200, 429]);
  },

  'the query and the body arrive byte for byte: the venue checks the signature over the raw text': async (h) => {
    const twin = new Twin();
    // Percent-encoded and in an unusual order: a transport that re-encoded the URL would break the signature.
    const open = await roundTrip(h, twin, signed(h, 'GET', '/sapi/v1/openOrders', { query: 'limit=5&symbol=%42TCUSDT' }));
    expect([open.status, open.body]).toEqual([200, '[]']);
    // Spaces, field order and trailing zeros of the body are the caller's: sent as given, signed as given.
    const body = '{ "symbol" : "BTCUSDT", "volume":"0.00100", "side":"SELL", "type":"LIMIT", "price":"40000.10", "newClientOrderId":"c-raw" }';
    const placed = await roundTrip(h, twin, signed(h, 'POST', '/sapi/v1/order', { body, headers: JSON_TYPE }));
    expect(placed.status).toBe(200);
    expect(h.venue.orderLog().map((o) => [o.clientOrderId, o.side, String(o.price), String(o.volume)])).toEqual([['c-raw', 'SELL', '40000.1', '0.001']]);
    expect(seen(h.venue)).toEqual([
      ['spot.openOrders', 200],
      ['spot.order', 200],
    ]);
  },

  'a POST without a content type goes as JSON; an explicit content type is sent as given': async (h) => {
    const twin = new Twin();
    const bare = signed(h, 'POST', '/sapi/v1/order', { body: orderBody('c-bare') });
    const headerNames = Object.keys(bare.headers);
    // The venue refuses a POST that is not application/json (-1017): this one is accepted.
    const res = await roundTrip(h, twin, bare, { ...bare, headers: { ...bare.headers, ...JSON_TYPE } });
    expect(res.status).toBe(200);
    expect(h.venue.orderLog().map((o) => o.clientOrderId)).toEqual(['c-bare']);
    // The default is added on the way out; the caller's request is left as it was.
    expect(Object.keys(bare.headers)).toEqual(headerNames);
    const typed = signed(h, 'POST', '/sapi/v1/order', { body: orderBody('c-text'), headers: { 'content-type': 'text/plain' } });
    const refused = await roundTrip(h, twin, typed);
    expect(refused.body).toBe('{"code":-1017,"msg":"Content-Type must be application/json."}');
    expect(refused.status).toBe(400);
    expect(h.venue.orderLog()).toHaveLength(1);
  },

  'no answer is a TransportFailure saying the request may have been delivered, never a made-up response': async (h) => {
    const twin = new Twin();
    const both = (f: { resetRate: number; lostResponseRate: number }) => [h.venue, twin.venue].forEach((v) => v.setFaults(f));
    // Dropped before the venue acted: the client cannot tell that apart from after, so it may have been delivered.
    both({ resetRate: 1, lostResponseRate: 0 });
    const reset = placeOrder(h, 'c-reset');
    const resetErr = await failureOf(h.transport.send(reset));
    expect(resetErr).toBeInstanceOf(TransportFailure);
    expect((resetErr as TransportFailure).maybeDelivered).toBe(true);
    expect(await twin.venue.handle(reset, { remote: 'twin' })).toBeInstanceOf(SimFault);
    // Dropped after the venue acted.
    both({ resetRate: 0, lostResponseRate: 1 });
    const lost = placeOrder(h, 'c-lost');
    const lostErr = await failureOf(h.transport.send(lost));
    expect(lostErr).toBeInstanceOf(TransportFailure);
    expect((lostErr as TransportFailure).maybeDelivered).toBe(true);
    expect(await twin.venue.handle(lost, { remote: 'twin' })).toBeInstanceOf(SimFault);
    both({ resetRate: 0, lostResponseRate: 0 });
    // Only the second was placed.
    const placed = h.venue.orderLog();
    expect(placed.map((o) => o.clientOrderId)).toEqual(['c-lost']);
    // The transport is still usable, and the next answer shows the order the lost call placed.
    const open = await roundTrip(h, twin, signed(h, 'GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' }));
    expect(open.status).toBe(200);
    expect(open.body).toContain(`"orderId":"${placed[0]!.orderId}"`);
    expect(seen(h.venue)).toEqual([
      ['spot.order', 0],
      ['spot.order', 0],
      ['spot.openOrders', 200],
    ]);
  },

  'a non-JSON answer (a gateway HTML page) and an error body under 200 come back as the venue sent them': async (h) => {
    const twin = new Twin();
    // The venue acts on each order, then answers 500 JSON, 502 HTML or 200 with an error body (a seeded draw).
    h.venue.setFaults({ errorAfterActRate: 1 });
    twin.venue.setFaults({ errorAfterActRate: 1 });
    const answers: HttpResponse[] = [];
    for (let i = 0; i < 7; i++) answers.push(await roundTrip(h, twin, placeOrder(h, `c-${i}`)));
    const kinds = new Set(answers.map((a) => `${a.status} ${a.headers['content-type']} ${a.body}`));
    expect([...kinds].sort()).toEqual([
      '200 application/json {"code":-1001,"msg":"Internal error; unable to process your request. Please try again."}',
      '500 application/json {"code":-1000,"msg":"An unknown error occurred while processing the request."}',
      '502 text/html <html><body><h1>502 Bad Gateway</h1></body></html>',
    ]);
    expect(h.venue.orderLog()).toHaveLength(7);
  },

  'concurrent requests each get their own answer': async (h) => {
    const twin = new Twin();
    const requests = [
      get('/sapi/v1/time'),
      get('/sapi/v1/symbols'),
      get('/sapi/v1/depth', 'symbol=BTCUSDT&limit=2'),
      get('/sapi/v1/depth', 'symbol=ETHUSDT&limit=4'),
      get('/sapi/v1/ticker', 'symbol=BTCUSDT'),
      get('/sapi/v1/trades', 'symbol=ETHUSDT&limit=2'),
      signed(h, 'GET', '/sapi/v1/account'),
    ];
    // All in flight at once. Every one is a read whose answer does not depend on the others,
    // so the order in which they reach the venue does not matter.
    const answers = await Promise.all(requests.map((r) => h.transport.send(r)));
    for (const [i, r] of requests.entries()) expectVenueAnswer(answers[i]!, await twin.answer(r));
    expect(new Set(answers.map((a) => a.body)).size).toBe(requests.length);
    expect(seen(h.venue).map(([endpoint]) => endpoint).sort()).toEqual(
      ['spot.account', 'spot.depth', 'spot.depth', 'spot.symbols', 'spot.ticker', 'spot.time', 'spot.trades'],
    );
  },
};

/** Registers every case against `make`, which builds a fresh harness for the case it is told. */
export function transportContract(name: string, make: (caseName: string) => Promise<TransportHarness>): void {
  describe(`Transport contract: ${name}`, () => {
    for (const [title, run] of Object.entries(transportCases)) {
      it(title, async () => {
        const h = await make(title);
        try {
          await run(h);
          await h.afterCase?.();
        } finally {
          await h.cleanup();
        }
      });
    }
  });
}
