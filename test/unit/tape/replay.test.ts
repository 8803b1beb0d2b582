import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { TapeMismatchError } from '../../../src/core/errors.js';
import { TransportFailure, type HttpRequest, type HttpResponse } from '../../../src/core/ports.js';
import { SimExchange, SimTransport } from '../../../src/sim/index.js';
import { readTape, RecordingTransport, ReplayTransport, TapeWriter, type TapeCall } from '../../../src/tape/index.js';
import { call, signedRequest, T0, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const get = (path: string, query = '', headers: Record<string, string> = {}): HttpRequest => ({ method: 'GET', path, query, body: '', headers });
const post = (path: string, body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }): HttpRequest => ({ method: 'POST', path, query: '', body, headers });

async function mismatch(p: Promise<unknown>): Promise<TapeMismatchError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TapeMismatchError);
  return err as TapeMismatchError;
}

describe('replay of a recorded run', () => {
  it('answers the same requests, signed at another time, with the recorded answers and failures', async () => {
    const clock = new ManualClock(T0);
    const ex = new SimExchange({ clock, seed: 7 });
    const creds = { apiKey: ex.apiKey, apiSecret: ex.apiSecret };
    const path = tmp.path('session.jsonl.gz');
    const writer = new TapeWriter(path, { gzip: true, startedAt: T0 });
    const rec = new RecordingTransport(new SimTransport(ex), 'spot', writer, clock, [creds.apiKey, creds.apiSecret]);
    const orderBody = '{"symbol":"BTCUSDT","side":"SELL","type":"LIMIT","volume":"0.02","price":"40000","newClientOrderId":"s1-7"}';
    const session = (c: ManualClock) => [
      get('/sapi/v1/depth', 'symbol=BTCUSDT&limit=3'),
      signedRequest(creds, c, 'POST', '/sapi/v1/order', { body: orderBody }),
      signedRequest(creds, c, 'GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' }),
    ];

    const answers: HttpResponse[] = [];
    for (const r of session(clock)) answers.push(await rec.send(r));
    ex.setFaults({ lostResponseRate: 1 });
    const lost = signedRequest(creds, clock, 'POST', '/sapi/v1/order', { body: orderBody.replace('s1-7', 's1-8') });
    await expect(rec.send(lost)).rejects.toBeInstanceOf(TransportFailure);
    await writer.close();

    // The rerun happens an hour later: new X-CH-TS, new signatures, same requests.
    const later = new ManualClock(T0 + 3_600_000);
    const replay = new ReplayTransport((await readTape(path)).calls, 'spot');
    for (const [i, r] of session(later).entries()) expect(await replay.send(r)).toEqual(answers[i]);
    const again = replay.send(signedRequest(creds, later, 'POST', '/sapi/v1/order', { body: orderBody.replace('s1-7', 's1-8') }));
    await expect(again).rejects.toBeInstanceOf(TransportFailure);
    await expect(again).rejects.toMatchObject({ message: 'response lost after the simulated venue acted', maybeDelivered: true });
    expect(replay.remaining()).toEqual([]);
    expect(() => replay.assertComplete()).not.toThrow();
  });
});

describe('ReplayTransport matching', () => {
  const order = (price: string) => `{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","volume":"1","price":"${price}","newClientOrderId":"g-1"}`;

  it('reports each differing field as - recorded / + now lines', async () => {
    const tape = [call(0, 'spot', 'POST', '/sapi/v1/order', { body: order('30000'), headers: { 'Content-Type': 'application/json', 'X-CH-TS': '1' } })];
    const replay = new ReplayTransport(tape, 'spot');
    const now = post('/sapi/v1/order', order('30001').replace('}', ',"recvWindow":10000}'), { 'content-type': 'text/plain', 'X-CH-TS': '2' });
    const err = await mismatch(replay.send(now));
    expect(err.diff.split('\n')).toEqual([
      'spot.order request #0 (POST /sapi/v1/order), recorded as seq 0:',
      '- body.price: "30000"',
      '+ body.price: "30001"',
      '- header.content-type: "application/json"',
      '+ header.content-type: "text/plain"',
      '- body.recvWindow: (absent)',
      '+ body.recvWindow: 10000',
    ]);
    expect(err.message).toBe(`request differs from the tape:\n${err.diff}`);
    // Nothing was consumed: the recorded call is still owed.
    expect(replay.remaining()).toEqual(tape);
  });

  it('ignores what changes every run: timestamps, X-CH-TS, key, signature, parameter order', async () => {
    const tape = [
      call(0, 'spot', 'GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT&limit=50&timestamp=1', headers: { 'X-CH-TS': '1', 'X-CH-APIKEY': 'k' }, response: '[]' }),
      call(1, 'spot', 'POST', '/sapi/v1/cancel', { body: '{"symbol":"BTCUSDT","orderId":"123456789012345678901","timestamp":5}', response: '{"orderId":"1"}' }),
    ];
    const replay = new ReplayTransport(tape, 'spot');
    const trades = await replay.send(get('/sapi/v1/myTrades', 'limit=50&timestamp=2&symbol=BTCUSDT', { 'x-ch-ts': '2', 'x-ch-sign': 'ff', 'X-CH-APIKEY': 'other' }));
    expect(trades.body).toBe('[]');
    const cancel = await replay.send(post('/sapi/v1/cancel', '{"timestamp":9,"orderId":"123456789012345678901","symbol":"BTCUSDT"}', {}));
    expect(cancel.body).toBe('{"orderId":"1"}');
  });

  it('compares long numbers exactly', async () => {
    const tape = [call(0, 'spot', 'POST', '/sapi/v1/batchCancel', { body: '{"symbol":"BTCUSDT","orderIds":[1234567890123456789012]}' })];
    const err = await mismatch(new ReplayTransport(tape, 'spot').send(post('/sapi/v1/batchCancel', '{"symbol":"BTCUSDT","orderIds":[1234567890123456789013]}', {})));
    expect(err.diff.split('\n').slice(1)).toEqual(['- body.orderIds[0]: "1234567890123456789012"', '+ body.orderIds[0]: "1234567890123456789013"']);
  });

  it('serves each endpoint first in first out, whatever the interleaving between endpoints', async () => {
    const tape = [
      call(0, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT', response: '"depth A"' }),
      call(1, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT', response: '"ticker"' }),
      call(2, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT', response: '"depth B"' }),
      call(3, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=ETHUSDT', response: '"depth ETH"' }),
    ];
    const replay = new ReplayTransport(tape, 'spot');
    expect((await replay.send(get('/sapi/v1/depth', 'symbol=BTCUSDT'))).body).toBe('"depth A"');
    expect((await replay.send(get('/sapi/v1/depth', 'symbol=BTCUSDT'))).body).toBe('"depth B"');
    expect((await replay.send(get('/sapi/v1/ticker', 'symbol=BTCUSDT'))).body).toBe('"ticker"');
    // Within one endpoint the order is the recorded one: ETH cannot be served before it.
    const replay2 = new ReplayTransport(tape, 'spot');
    const err = await mismatch(replay2.send(get('/sapi/v1/depth', 'symbol=ETHUSDT')));
    expect(err.diff.split('\n')).toEqual(['spot.depth request #0 (GET /sapi/v1/depth), recorded as seq 0:', '- query.symbol: "BTCUSDT"', '+ query.symbol: "ETHUSDT"']);
    expect((await replay.send(get('/sapi/v1/depth', 'symbol=ETHUSDT'))).body).toBe('"depth ETH"');
  });

  it('orders calls by seq, not by file position (answers can arrive out of order)', async () => {
    const first = call(0, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT', response: '"first"' });
    const second = call(1, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT', response: '"second"' });
    const replay = new ReplayTransport([second, first], 'spot');
    expect((await replay.send(get('/sapi/v1/depth', 'symbol=BTCUSDT'))).body).toBe('"first"');
  });

  it('fails on a request the tape does not hold, and serves only its own market', async () => {
    const tape = [call(0, 'spot', 'POST', '/sapi/v1/cancel', { body: '{"symbol":"BTCUSDT","orderId":"1"}' }), call(1, 'futures', 'GET', '/fapi/v1/ticker', { query: 'contractName=E-BTC-USDT' })];
    const replay = new ReplayTransport(tape, 'spot');
    await replay.send(post('/sapi/v1/cancel', '{"symbol":"BTCUSDT","orderId":"1"}', {}));
    const err = await mismatch(replay.send(post('/sapi/v1/cancel', '{"symbol":"BTCUSDT","orderId":"2"}', {})));
    expect(err.diff).toBe('spot.cancel request #1 (POST /sapi/v1/cancel): not recorded (the tape holds 1 such request)');
    const other = await mismatch(replay.send(get('/fapi/v1/ticker', 'contractName=E-BTC-USDT')));
    expect(other.diff).toBe('futures.ticker request #0 (GET /fapi/v1/ticker): not recorded (the tape holds 0 such requests)');
    const unknown = await mismatch(replay.send(get('/sapi/v2/nothing')));
    expect(unknown.diff).toBe('spot endpoint request #0 (GET /sapi/v2/nothing): not recorded (the tape holds 0 such requests)');
  });

  it('lists what the rerun did not ask for', async () => {
    const tape: TapeCall[] = [
      call(0, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT' }),
      call(1, 'spot', 'POST', '/sapi/v1/order', { body: order('30000') }),
      call(2, 'spot', 'GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' }),
      call(3, 'futures', 'GET', '/fapi/v1/depth', { query: 'contractName=E-BTC-USDT' }),
    ];
    const replay = new ReplayTransport(tape, 'spot');
    expect(replay.remaining()).toEqual(tape.slice(0, 3));
    await replay.send(get('/sapi/v1/depth', 'symbol=BTCUSDT'));
    expect(replay.remaining().map((c) => c.seq)).toEqual([1, 2]);
    expect(() => replay.assertComplete()).toThrow(TapeMismatchError);
    expect(() => replay.assertComplete()).toThrow(
      'spot: 2 recorded requests were never sent:\n- seq 1: spot.order POST /sapi/v1/order\n- seq 2: spot.openOrders GET /sapi/v1/openOrders?symbol=BTCUSDT',
    );
  });
});
