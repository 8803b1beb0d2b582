// RecordingTransport: the shared contract over both inner transports (the in-process simulator
// and HTTP), each case also checking the tape it left; then what only recording does.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Transport } from '../../src/core/ports.js';
import { HttpTransport } from '../../src/exchange/transport/http.js';
import { SimTransport, startSimServer, type SimExchange } from '../../src/sim/index.js';
import { readTape, RecordingTransport, TapeWriter, type TapeCall } from '../../src/tape/index.js';
import { get, newVenue, placeOrder, signed, T0, transportContract, type TransportHarness } from './transport.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-transport-rec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let tapes = 0;
const tapePath = () => join(dir, `tape-${tapes++}.jsonl`);

/** Neither credential nor any signature sent is anywhere in the file (checked without printing them). */
function expectNoSecrets(path: string, venue: SimExchange, signatures: readonly string[]): void {
  const text = readFileSync(path, 'utf8');
  const leaked = [venue.apiKey, venue.apiSecret, ...signatures].filter((s) => text.includes(s));
  expect(leaked.length).toBe(0);
}

/**
 * A recorder over `inner`, writing a fresh tape. After each case the tape must hold one call
 * per request the venue saw, with the status it answered (a failure where it sent none), and
 * no credential.
 */
function recordingHarness(venue: SimExchange, inner: Transport, closeInner: () => Promise<void>): TransportHarness {
  const path = tapePath();
  const secrets = [venue.apiKey, venue.apiSecret];
  const writer = new TapeWriter(path, { startedAt: T0, secrets });
  const transport = new RecordingTransport(inner, 'spot', writer, venue.clock, secrets);
  return {
    transport,
    venue,
    clock: venue.clock,
    afterCase: async () => {
      await writer.close();
      const { calls } = await readTape(path);
      const onTape = calls.map((c) => `${c.endpoint ?? `${c.request.method} ${c.request.path}`} ${'response' in c ? c.response.status : 0}`);
      const atVenue = venue.arrivals().map((a) => `${a.endpoint} ${a.status}`);
      expect(onTape.sort()).toEqual(atVenue.sort());
      expect(calls.map((c) => c.seq).sort((a, b) => a - b)).toEqual(calls.map((_, i) => i));
      expectNoSecrets(path, venue, []);
    },
    cleanup: async () => {
      await writer.close().catch(() => undefined);
      await transport.close();
      await closeInner();
    },
  };
}

transportContract('RecordingTransport over SimTransport', async () => {
  const venue = newVenue();
  return recordingHarness(venue, new SimTransport(venue), async () => undefined);
});

transportContract('RecordingTransport over HttpTransport', async () => {
  const server = await startSimServer({ exchange: newVenue(), port: 0 });
  const http = new HttpTransport({ baseUrl: server.url });
  // The recorder's close() closes the HTTP transport; the server goes after it.
  return recordingHarness(server.exchange, http, () => server.close());
});

describe('RecordingTransport specifics', () => {
  it('writes each call in the order it left, as sent minus credentials, with the answer or failure the caller got', async () => {
    const venue = newVenue();
    const path = tapePath();
    const secrets = [venue.apiKey, venue.apiSecret];
    const writer = new TapeWriter(path, { startedAt: T0, meta: { run: 'contract' }, secrets });
    const rec = new RecordingTransport(new SimTransport(venue), 'spot', writer, venue.clock, secrets);
    const h = { venue, clock: venue.clock };

    const depthReq = get('/sapi/v1/depth', 'symbol=BTCUSDT&limit=2');
    const depth = await rec.send(depthReq);
    const orderReq = placeOrder(h, 'c-1');
    const order = await rec.send(orderReq);
    venue.setFaults({ lostResponseRate: 1 });
    const lostReq = placeOrder(h, 'c-2');
    const lost = await rec.send(lostReq).then(() => undefined, (e: unknown) => e);
    await writer.close();

    const tape = await readTape(path);
    expect(tape.header).toEqual({ tape: 1, kind: 'header', startedAt: T0, meta: { run: 'contract' } });
    expect(tape.calls.map((c) => [c.seq, c.market, c.endpoint, c.at, c.ms])).toEqual([
      [0, 'spot', 'spot.depth', T0, 0],
      [1, 'spot', 'spot.order', T0, 0],
      [2, 'spot', 'spot.order', T0, 0],
    ]);
    const [c0, c1, c2] = tape.calls as [TapeCall, TapeCall, TapeCall];
    expect(c0.request).toEqual({ method: 'GET', path: '/sapi/v1/depth', query: 'symbol=BTCUSDT&limit=2', body: '', headers: {} });
    expect(c0).toMatchObject({ response: { status: 200, headers: { 'content-type': 'application/json' }, body: depth.body } });
    // The key and the signature are not written; the timestamp and content type are.
    expect(c1.request).toEqual({ method: 'POST', path: '/sapi/v1/order', query: '', body: orderReq.body, headers: { 'X-CH-TS': String(T0), 'content-type': 'application/json' } });
    expect(c1).toMatchObject({ response: { status: 200, body: order.body } });
    expect(c2).toMatchObject({ failure: { message: (lost as Error).message, maybeDelivered: true } });
    expect('response' in c2).toBe(false);
    expectNoSecrets(path, venue, [orderReq.headers['X-CH-SIGN']!, lostReq.headers['X-CH-SIGN']!]);
  });

  it('keeps only content-type and retry-after of the answer on the tape; the caller gets every header', async () => {
    const server = await startSimServer({ exchange: newVenue(), port: 0 });
    const path = tapePath();
    const writer = new TapeWriter(path, { startedAt: T0 });
    const rec = new RecordingTransport(new HttpTransport({ baseUrl: server.url }), 'spot', writer, server.exchange.clock, []);
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await rec.send(get('/sapi/v1/ping')));
      await writer.close();
      const limited = answers[2]!;
      expect(limited.status).toBe(429);
      expect(Object.keys(limited.headers)).toEqual(expect.arrayContaining(['content-type', 'retry-after', 'content-length', 'date']));
      const { calls } = await readTape(path);
      expect(calls.map((c) => ('response' in c ? c.response.headers : undefined))).toEqual([
        { 'content-type': 'application/json' },
        { 'content-type': 'application/json' },
        { 'content-type': 'application/json', 'retry-after': limited.headers['retry-after'] },
      ]);
    } finally {
      await rec.close();
      await server.close();
    }
  });

  it('a tape that can no longer be written does not stop a call: the order is placed and answered', async () => {
    const venue = newVenue();
    const path = tapePath();
    const writer = new TapeWriter(path, { startedAt: T0 });
    const rec = new RecordingTransport(new SimTransport(venue), 'spot', writer, venue.clock, []);
    await writer.close();
    const res = await rec.send(placeOrder({ venue, clock: venue.clock }, 'c-untaped'));
    expect(res.status).toBe(200);
    expect(res.body).toContain(`"orderIdString":"${venue.orderLog()[0]!.orderId}"`);
    expect(writer.failed).toBeUndefined();
    expect((await readTape(path)).calls).toEqual([]);
  });

  it('records a request the venue refused like any other answer', async () => {
    const venue = newVenue();
    const path = tapePath();
    const writer = new TapeWriter(path, { startedAt: T0 });
    const rec = new RecordingTransport(new SimTransport(venue), 'spot', writer, venue.clock, [venue.apiKey, venue.apiSecret]);
    const res = await rec.send(signed({ venue, clock: venue.clock }, 'GET', '/sapi/v1/account', { secret: 'not-the-venue-secret' }));
    await writer.close();
    const { calls } = await readTape(path);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ endpoint: 'spot.account', response: { status: 401, body: res.body } });
    expect(JSON.parse(res.body).code).toBe(-1022);
  });
});
