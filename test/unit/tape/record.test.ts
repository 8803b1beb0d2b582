import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { TransportFailure, type HttpRequest, type HttpResponse, type Transport } from '../../../src/core/ports.js';
import { SimExchange, SimTransport } from '../../../src/sim/index.js';
import { ResponseTooLargeError } from '../../../src/exchange/transport/errors.js';
import { readTape, RecordingTransport, ReplayTransport, TapeWriter, type TapeCall } from '../../../src/tape/index.js';
import { signedRequest, T0, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function venue() {
  const clock = new ManualClock(T0);
  const ex = new SimExchange({ clock, seed: 1, latencyMs: { min: 3, max: 3 } });
  return { clock, ex, creds: { apiKey: ex.apiKey, apiSecret: ex.apiSecret } };
}

/** Sends through the sim's 3 ms each-way latency, driving the manual clock. */
async function sendAt(clock: ManualClock, t: Transport, req: HttpRequest): Promise<HttpResponse> {
  const p = t.send(req);
  p.catch(() => undefined);
  await clock.advance(10);
  return p;
}

describe.each([false, true])('record then read (gzip %s)', (gzip) => {
  it('gives back every call, with its time, duration, request and answer or failure', async () => {
    const { clock, ex, creds } = venue();
    const path = tmp.path(`nested/dir/round-${gzip}.jsonl`);
    const writer = new TapeWriter(path, { gzip, startedAt: T0, meta: { config: { symbol: 'BTCUSDT', levels: 3 } } });
    const spot = new RecordingTransport(new SimTransport(ex), 'spot', writer, clock, [creds.apiKey, creds.apiSecret]);
    const futures = new RecordingTransport(new SimTransport(ex), 'futures', writer, clock, [creds.apiKey, creds.apiSecret]);

    const depth = await sendAt(clock, spot, { method: 'GET', path: '/sapi/v1/depth', query: 'symbol=BTCUSDT&limit=2', body: '', headers: {} });
    const orderBody = '{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","volume":"0.01","price":"20000","newClientOrderId":"s1-1"}';
    const order = await sendAt(clock, spot, signedRequest(creds, clock, 'POST', '/sapi/v1/order', { body: orderBody }));
    const fDepth = await sendAt(clock, futures, { method: 'GET', path: '/fapi/v1/depth', query: 'contractName=E-BTC-USDT', body: '', headers: {} });
    ex.setFaults({ resetRate: 1 });
    const failed = sendAt(clock, spot, signedRequest(creds, clock, 'GET', '/sapi/v1/account'));
    await expect(failed).rejects.toBeInstanceOf(TransportFailure);
    await writer.close();

    expect(depth.status).toBe(200);
    expect(order.status).toBe(200);
    const tape = await readTape(path);
    expect(tape.header).toEqual({ tape: 1, kind: 'header', startedAt: T0, meta: { config: { symbol: 'BTCUSDT', levels: 3 } } });
    expect(tape.calls.map((c) => [c.seq, c.market, c.endpoint, c.at, c.ms])).toEqual([
      [0, 'spot', 'spot.depth', T0, 6],
      [1, 'spot', 'spot.order', T0 + 10, 6],
      [2, 'futures', 'futures.depth', T0 + 20, 6],
      // A reset drops the connection before the way back: only the inbound 3 ms.
      [3, 'spot', 'spot.account', T0 + 30, 3],
    ]);
    const [c0, c1, c2, c3] = tape.calls as [TapeCall, TapeCall, TapeCall, TapeCall];
    expect(c0).toMatchObject({ request: { method: 'GET', path: '/sapi/v1/depth', query: 'symbol=BTCUSDT&limit=2', body: '', headers: {} } });
    expect(c0).toMatchObject({ response: { status: 200, headers: { 'content-type': 'application/json' }, body: depth.body } });
    expect(c1.request).toEqual({
      method: 'POST',
      path: '/sapi/v1/order',
      query: '',
      body: orderBody,
      headers: { 'X-CH-TS': String(T0 + 10), 'Content-Type': 'application/json' },
    });
    expect(c1).toMatchObject({ response: { status: 200, body: order.body } });
    expect(c2).toMatchObject({ response: { body: fDepth.body } });
    expect(c3).toMatchObject({ failure: { message: 'connection reset by the simulated venue', maybeDelivered: true } });
    expect('response' in c3).toBe(false);
  });
});

describe('RecordingTransport', () => {
  const stub = (answer: () => Promise<HttpResponse>): Transport => ({ send: answer });
  const req: HttpRequest = { method: 'GET', path: '/sapi/v1/ticker', query: 'symbol=BTCUSDT', body: '', headers: {} };

  it('returns and rethrows exactly what the inner transport gave, recording only venue traffic', async () => {
    const clock = new ManualClock(T0);
    const path = tmp.path('identity.jsonl');
    const writer = new TapeWriter(path, { startedAt: T0 });
    const answer: HttpResponse = {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '2', 'x-request-id': 'abc', 'set-cookie': 'sid=1' },
      body: '{"code":-1003}',
    };
    const failure = new TransportFailure('socket hang up', false);
    const bug = new TypeError('bug');
    const outcomes: Array<() => Promise<HttpResponse>> = [async () => answer, async () => Promise.reject(failure), async () => Promise.reject(bug)];
    const rec = new RecordingTransport(stub(() => outcomes.shift()!()), 'spot', writer, clock, []);

    await expect(rec.send(req)).resolves.toBe(answer);
    await expect(rec.send(req)).rejects.toBe(failure);
    await expect(rec.send(req)).rejects.toBe(bug);
    await writer.close();

    const tape = await readTape(path);
    expect(tape.calls).toHaveLength(2);
    // Only content-type and retry-after are kept from the answer's headers.
    expect(tape.calls[0]).toMatchObject({ response: { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '2' }, body: '{"code":-1003}' } });
    expect(Object.keys((tape.calls[0] as Extract<TapeCall, { response: unknown }>).response.headers)).toEqual(['content-type', 'retry-after']);
    expect(tape.calls[1]).toMatchObject({ seq: 1, failure: { message: 'socket hang up', maybeDelivered: false } });
  });

  it('records an answer too large to read with its status and headers, and replays it as one', async () => {
    const clock = new ManualClock(T0);
    const path = tmp.path('too-large.jsonl');
    const writer = new TapeWriter(path, { startedAt: T0 });
    const tooLarge = new ResponseTooLargeError(1024, 429, { 'content-type': 'text/html', 'retry-after': '30', 'x-request-id': 'abc' });
    const rec = new RecordingTransport(stub(async () => Promise.reject(tooLarge)), 'spot', writer, clock, []);
    await expect(rec.send(req)).rejects.toBe(tooLarge);
    await writer.close();

    const tape = await readTape(path);
    expect(tape.calls[0]).toMatchObject({ failure: { maybeDelivered: true, tooLarge: { maxBytes: 1024, status: 429, headers: { 'content-type': 'text/html', 'retry-after': '30' } } } });
    const replayed = await new ReplayTransport(tape.calls, 'spot').send(req).catch((e: unknown) => e);
    // The executor classifies it by its status: a 429 that says wait 30 s, as it did live.
    expect(replayed).toBeInstanceOf(ResponseTooLargeError);
    expect(replayed).toMatchObject({ status: 429, maxBytes: 1024, maybeDelivered: true, headers: { 'content-type': 'text/html', 'retry-after': '30' } });
  });

  it('keeps answering when the tape can no longer be written', async () => {
    const clock = new ManualClock(T0);
    const writer = new TapeWriter(tmp.path('closed.jsonl'), { startedAt: T0 });
    await writer.close();
    const answer: HttpResponse = { status: 200, headers: {}, body: '{}' };
    const rec = new RecordingTransport(stub(async () => answer), 'spot', writer, clock, []);
    await expect(rec.send(req)).resolves.toBe(answer);
  });

  it('never overwrites an existing tape', () => {
    const path = tmp.path('exists.jsonl');
    writeFileSync(path, 'evidence\n');
    expect(() => new TapeWriter(path, { startedAt: T0 })).toThrow(/EEXIST/);
    expect(readFileSync(path, 'utf8')).toBe('evidence\n');
  });
});

describe.each([false, true])('redaction (gzip %s)', (gzip) => {
  it('writes neither the key, the secret nor the signature, wherever they appear', async () => {
    const { clock, ex, creds } = venue();
    const path = tmp.path(`redact-${gzip}.jsonl`);
    // The config in the header carries the credentials too: the writer's own secrets catch them.
    const writer = new TapeWriter(path, { gzip, startedAt: T0, meta: { apiKey: creds.apiKey, note: `secret=${creds.apiSecret}` }, secrets: [creds.apiKey, creds.apiSecret] });
    const rec = new RecordingTransport(new SimTransport(ex), 'spot', writer, clock, [creds.apiKey, creds.apiSecret]);

    const account = signedRequest(creds, clock, 'GET', '/sapi/v1/account');
    const lower: HttpRequest = { ...account, headers: Object.fromEntries(Object.entries(account.headers).map(([k, v]) => [k.toLowerCase(), v])) };
    await sendAt(clock, rec, account);
    await sendAt(clock, rec, lower);
    // A key echoed in a parameter (and so in the venue's error answer) is caught by the second line of defence.
    const echoed = signedRequest(creds, clock, 'GET', '/sapi/v1/order', { query: `symbol=BTCUSDT&newClientOrderId=${creds.apiKey}` });
    await sendAt(clock, rec, echoed);
    await writer.close();

    const raw = readFileSync(path);
    const text = gzip ? gunzipSync(raw) : raw;
    expect(raw[0] === 0x1f && raw[1] === 0x8b).toBe(gzip);
    for (const bytes of [raw, text]) {
      expect(bytes.includes(creds.apiKey)).toBe(false);
      expect(bytes.includes(creds.apiSecret)).toBe(false);
      for (const r of [account, echoed]) expect(bytes.includes(r.headers['X-CH-SIGN']!)).toBe(false);
      expect(bytes.toString('latin1')).not.toMatch(/x-ch-(apikey|sign)/i);
    }
    expect(text.toString('utf8')).toContain(`"X-CH-TS":"${T0}"`);
    expect(text.toString('utf8')).toContain('newClientOrderId=[redacted]');
    const tape = await readTape(path);
    expect(tape.header.meta).toEqual({ apiKey: '[redacted]', note: 'secret=[redacted]' });
    expect(tape.calls).toHaveLength(3);
  });
});
