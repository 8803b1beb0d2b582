// ReplayTransport: every contract case is first recorded in this file (RecordingTransport over
// HTTP to the simulator), then rerun against a replay of that tape with the server gone. The
// rerun sends the identical requests (same case, same clock), and must use up the tape. Then
// what only a replay does: refuse requests the tape does not hold.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { TapeMismatchError } from '../../src/core/errors.js';
import { TransportFailure, type HttpResponse } from '../../src/core/ports.js';
import { HttpTransport } from '../../src/exchange/transport/http.js';
import { startSimServer, type SimExchange } from '../../src/sim/index.js';
import { readTape, RecordingTransport, ReplayTransport, TapeWriter, type TapeCall } from '../../src/tape/index.js';
import { get, newVenue, orderBody, placeOrder, signed, T0, transportCases, transportContract, type TransportHarness, JSON_TYPE } from './transport.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-transport-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let tapes = 0;

/**
 * Runs `session` through a RecordingTransport over HTTP to a fresh simulator, then closes the
 * server: the calls of the tape it wrote, and the venue that answered them.
 */
async function record(session: (h: TransportHarness) => Promise<void>): Promise<{ calls: TapeCall[]; venue: SimExchange }> {
  const server = await startSimServer({ exchange: newVenue(), port: 0 });
  const venue = server.exchange;
  const path = join(dir, `tape-${tapes++}.jsonl`);
  const secrets = [venue.apiKey, venue.apiSecret];
  const writer = new TapeWriter(path, { startedAt: T0, secrets });
  const recorder = new RecordingTransport(new HttpTransport({ baseUrl: server.url }), 'spot', writer, venue.clock, secrets);
  try {
    await session({ transport: recorder, venue, clock: venue.clock, cleanup: async () => undefined });
  } finally {
    await writer.close();
    await recorder.close();
    await server.close();
  }
  return { calls: (await readTape(path)).calls, venue };
}

transportContract('ReplayTransport of a tape recorded in this file', async (caseName) => {
  const run = transportCases[caseName]!;
  const { calls, venue } = await record(run);
  expect(calls.length).toBeGreaterThan(0);
  const replay = new ReplayTransport(calls, 'spot');
  return {
    transport: replay,
    venue,
    // A fresh clock at T0: the rerun signs exactly what the recording signed.
    clock: new ManualClock(T0),
    afterCase: () => {
      // Every recorded request was asked for again, and nothing else.
      expect(replay.remaining().map((c) => c.seq)).toEqual([]);
      replay.assertComplete();
    },
    cleanup: async () => undefined,
  };
});

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('ReplayTransport specifics', () => {
  /** time, account, an order, openOrders: signed on `clock` (recordSession adds an order whose answer is lost). */
  const session = (h: Pick<TransportHarness, 'venue' | 'clock'>) => [
    get('/sapi/v1/time'),
    signed(h, 'GET', '/sapi/v1/account'),
    placeOrder(h, 'c-1'),
    signed(h, 'GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' }),
  ];

  async function recordSession() {
    const answers: HttpResponse[] = [];
    let lostMessage = '';
    const rec = await record(async (h) => {
      for (const r of session(h)) answers.push(await h.transport.send(r));
      h.venue.setFaults({ lostResponseRate: 1 });
      lostMessage = ((await rejection(h.transport.send(placeOrder(h, 'c-lost')))) as Error).message;
    });
    return { ...rec, answers, lostMessage };
  }

  it('a rerun signed an hour later gets the recorded answers byte for byte, and the recorded failure again', async () => {
    const { calls, venue, answers, lostMessage } = await recordSession();
    const later = { venue, clock: new ManualClock(T0 + 3_600_000) };
    const replay = new ReplayTransport(calls, 'spot');
    for (const [i, r] of session(later).entries()) {
      const res = await replay.send(r);
      expect([res.status, res.body]).toEqual([answers[i]!.status, answers[i]!.body]);
      // Only what the tape keeps: HTTP's content-length, date and the like are not replayed.
      expect(res.headers).toEqual({ 'content-type': answers[i]!.headers['content-type'] });
    }
    const err = await rejection(replay.send(placeOrder(later, 'c-lost')));
    expect(err).toBeInstanceOf(TransportFailure);
    expect(err).toMatchObject({ message: lostMessage, maybeDelivered: true });
    expect(() => replay.assertComplete()).not.toThrow();
  });

  it('a request the tape does not hold is refused with TapeMismatchError', async () => {
    const { calls } = await record(async (h) => void (await h.transport.send(get('/sapi/v1/time'))));
    const replay = new ReplayTransport(calls, 'spot');
    await replay.send(get('/sapi/v1/time'));
    const again = await rejection(replay.send(get('/sapi/v1/time')));
    expect(again).toBeInstanceOf(TapeMismatchError);
    expect((again as TapeMismatchError).diff).toBe('spot.time request #1 (GET /sapi/v1/time): not recorded (the tape holds 1 such request)');
    const other = await rejection(replay.send(get('/sapi/v1/depth', 'symbol=BTCUSDT')));
    expect((other as TapeMismatchError).diff).toBe('spot.depth request #0 (GET /sapi/v1/depth): not recorded (the tape holds 0 such requests)');
  });

  it('a request that differs from the recorded one is refused with a diff, and the recorded call stays owed', async () => {
    const { calls, venue, answers } = await recordSession();
    const h = { venue, clock: new ManualClock(T0) };
    const replay = new ReplayTransport(calls, 'spot');
    const [time, account, order] = session(h);
    await replay.send(time!);
    await replay.send(account!);
    const changed = signed(h, 'POST', '/sapi/v1/order', { body: orderBody('c-1', 'BUY', '20001'), headers: JSON_TYPE });
    const err = await rejection(replay.send(changed));
    expect(err).toBeInstanceOf(TapeMismatchError);
    expect((err as TapeMismatchError).diff.split('\n')).toEqual([
      'spot.order request #0 (POST /sapi/v1/order), recorded as seq 2:',
      '- body.price: "20000"',
      '+ body.price: "20001"',
    ]);
    expect((await replay.send(order!)).body).toBe(answers[2]!.body);
  });

  it('a rerun that stops early fails assertComplete, naming the requests it never sent', async () => {
    const { calls } = await recordSession();
    const replay = new ReplayTransport(calls, 'spot');
    await replay.send(get('/sapi/v1/time'));
    expect(replay.remaining().map((c) => c.endpoint)).toEqual(['spot.account', 'spot.order', 'spot.openOrders', 'spot.order']);
    expect(() => replay.assertComplete()).toThrow(TapeMismatchError);
    expect(() => replay.assertComplete()).toThrow(/4 recorded requests were never sent:\n- seq 1: spot.account GET \/sapi\/v1\/account\n/);
  });

  it('queues each route apart: requests to different endpoints may come in another order than recorded', async () => {
    const { calls, venue, answers } = await recordSession();
    const replay = new ReplayTransport(calls, 'spot');
    const [time, account, order, open] = session({ venue, clock: new ManualClock(T0) });
    expect((await replay.send(open!)).body).toBe(answers[3]!.body);
    expect((await replay.send(order!)).body).toBe(answers[2]!.body);
    expect((await replay.send(time!)).body).toBe(answers[0]!.body);
    expect((await replay.send(account!)).body).toBe(answers[1]!.body);
    expect(replay.remaining().map((c) => c.seq)).toEqual([4]);
  });

  it('answers only from the tape: another market, or a tape of another market, holds nothing for it', async () => {
    const { calls } = await recordSession();
    const futures = new ReplayTransport(calls, 'futures');
    expect(futures.remaining()).toEqual([]);
    await expect(futures.send(get('/sapi/v1/time'))).rejects.toBeInstanceOf(TapeMismatchError);
  });
});
