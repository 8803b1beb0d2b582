// HttpTransport against the simulator's HTTP server on 127.0.0.1 (port 0): the shared contract,
// then what only a transport with sockets does (refused connections, deadlines, size caps).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TransportFailure } from '../../src/core/ports.js';
import { DEFAULT_CONNECTIONS, HttpTransport, ResponseTooLargeError } from '../../src/exchange/transport/http.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { holdingServer } from '../fixtures/holding-server.js';
import { get, newVenue, orderBody, placeOrder, signed, transportContract } from './transport.contract.js';

async function serve(): Promise<SimServer> {
  return startSimServer({ exchange: newVenue(), port: 0 });
}

transportContract('HttpTransport over HTTP to the simulator', async () => {
  const server = await serve();
  const transport = new HttpTransport({ baseUrl: server.url });
  return {
    transport,
    venue: server.exchange,
    clock: server.exchange.clock,
    cleanup: async () => {
      await transport.close();
      await server.close();
    },
  };
});

describe('HttpTransport specifics', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });
  const use = <T extends { close(): Promise<void> }>(o: T): T => (open.push(o), o);

  it('header names go out as the caller spells them, with one Content-Type whatever its case', async () => {
    const seen: string[][] = [];
    const server = createServer((req, res) => {
      seen.push(req.rawHeaders.filter((_, i) => i % 2 === 0));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((up) => server.listen(0, '127.0.0.1', up));
    use({ close: () => new Promise<void>((down) => server.close(() => down())) });
    const http = use(new HttpTransport({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
    await http.send({ method: 'POST', path: '/sapi/v1/order', query: '', body: '{}', headers: { 'X-CH-APIKEY': 'k', 'X-CH-TS': '1', 'X-CH-SIGN': 's' } });
    await http.send({ method: 'POST', path: '/sapi/v1/order', query: '', body: '{}', headers: { 'content-TYPE': 'application/json; charset=utf-8' } });
    expect(seen[0]).toEqual(expect.arrayContaining(['X-CH-APIKEY', 'X-CH-TS', 'X-CH-SIGN', 'Content-Type']));
    expect(seen.map((names) => names.filter((n) => n.toLowerCase() === 'content-type'))).toEqual([['Content-Type'], ['content-TYPE']]);
  });

  it('a refused connection is a TransportFailure that was never delivered', async () => {
    const gone = await serve();
    const url = gone.url;
    await gone.close();
    const http = use(new HttpTransport({ baseUrl: url }));
    const err = await http.send(get('/sapi/v1/time')).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(TransportFailure);
    expect((err as TransportFailure).maybeDelivered).toBe(false);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
  });

  it('a venue that never answers is a TransportFailure after the whole-request deadline, maybe delivered', async () => {
    const server = use(await serve());
    // The venue sleeps on its manual clock before reading the request; nobody moves that clock.
    server.exchange.setFaults({ latencyMs: { min: 60_000, max: 60_000 } });
    const http = use(new HttpTransport({ baseUrl: server.url, totalTimeoutMs: 100 }));
    const err = await http.send(placeOrder({ venue: server.exchange, clock: server.exchange.clock }, 'c-hang')).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(TransportFailure);
    expect((err as TransportFailure).maybeDelivered).toBe(true);
    expect((err as Error).message).toMatch(/^no complete answer within 100 ms/);
  });

  // The whole body has arrived when the declared length is refused: the abandoned body's abort
  // error must not reach the process (it once crashed it).
  it('an answer over the size cap is refused as ResponseTooLargeError, keeping its status and headers', async () => {
    const server = use(await serve());
    const http = use(new HttpTransport({ baseUrl: server.url, maxResponseBytes: 64 }));
    const err = await http.send(get('/sapi/v1/symbols')).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err).toBeInstanceOf(TransportFailure);
    const tooLarge = err as ResponseTooLargeError;
    expect([tooLarge.maybeDelivered, tooLarge.status, tooLarge.maxBytes, tooLarge.headers['content-type']]).toEqual([true, 200, 64, 'application/json']);
    expect(Number(tooLarge.headers['content-length'])).toBeGreaterThan(64);
    // A small answer on the same transport still comes through.
    expect((await http.send(get('/sapi/v1/ping'))).body).toBe('{}');
  });

  it('hands back every response header, lower-case, with a content-length that is the body bytes', async () => {
    const server = use(await serve());
    const http = use(new HttpTransport({ baseUrl: server.url }));
    const res = await http.send(get('/sapi/v1/depth', 'symbol=BTCUSDT&limit=2'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
    expect(res.headers['date']).toBeTypeOf('string');
  });

  // Header names are case-insensitive: a caller's `Content-Type` replaces the default rather than
  // going out as a second header the venue might read first.
  it("keeps the caller's content type whatever the letter case of its name", async () => {
    const server = use(await serve());
    const http = use(new HttpTransport({ baseUrl: server.url }));
    const venue = server.exchange;
    const typed = signed({ venue, clock: venue.clock }, 'POST', '/sapi/v1/order', { body: orderBody('c-text'), headers: { 'Content-Type': 'text/plain' } });
    const res = await http.send(typed);
    expect([res.status, JSON.parse(res.body).code]).toEqual([400, -1017]);
    expect(venue.orderLog()).toHaveLength(0);
  });

  // One request per connection at a time: far from the venue, a small pool and not the venue's
  // limits would bound the rate (bench/RESULTS.md, Engine).
  it(`has ${DEFAULT_CONNECTIONS} requests in flight at once by default, each on a connection of its own`, async () => {
    const venue = use(await holdingServer(DEFAULT_CONNECTIONS));
    const http = use(new HttpTransport({ baseUrl: venue.url }));
    const answers = await Promise.all(Array.from({ length: DEFAULT_CONNECTIONS }, () => http.send(get('/sapi/v1/time'))));
    expect(answers.map((a) => a.status)).toEqual(Array(DEFAULT_CONNECTIONS).fill(200));
    expect(venue.sockets.size).toBe(DEFAULT_CONNECTIONS);
  });

  it('connections caps the requests in flight: the rest wait for a connection, none is refused', async () => {
    const venue = use(await holdingServer(3));
    const http = use(new HttpTransport({ baseUrl: venue.url, connections: 3 }));
    const answers = await Promise.all(Array.from({ length: 9 }, () => http.send(get('/sapi/v1/time'))));
    expect(answers.map((a) => a.status)).toEqual(Array(9).fill(200));
    expect([venue.arrived(), venue.sockets.size]).toEqual([9, 3]);
  });

  it('sends requests under the path of its base URL', async () => {
    const server = use(await serve());
    const http = use(new HttpTransport({ baseUrl: `${server.url}/gateway/` }));
    const res = await http.send(get('/sapi/v1/time', 'a=1'));
    expect(res.status).toBe(404);
    expect(res.body).toBe('{"code":-1020,"msg":"Unknown route GET /gateway/sapi/v1/time."}');
  });
});
