// The venue's troubles a tape recorded, as the incidents a backtest plays back: which answers are
// troubles (read as the client reads them), a ban's end, and the same list from a tape in memory,
// a file read with the line pre-filter, and the event cache's copy.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { eventCachePath, incidentsOf, openMarketEvents, plainSuccess, prepareEventCache, recordedIncidents, TAPE_VERSION, TapeFormatError, type TapeCall } from '../../../src/tape/index.js';
import { call, T0, tempDir } from './helpers.js';

let tmp = tempDir();
afterEach(() => {
  tmp.cleanup();
  tmp = tempDir();
});

const json = { 'content-type': 'application/json' };
const answer = (status: number, body: string, headers: Record<string, string> = {}) => ({ status, headers: { 'content-type': 'application/json', ...headers }, body });
/** A recorded call whose answer carries `headers` too (call() records content-type only). */
function answered(seq: number, path: string, at: number, status: number, body: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET'): TapeCall {
  const c = call(seq, 'spot', method, path, { at, ms: 10, status, response: body });
  if ('response' in c) c.response.headers = { ...json, ...headers };
  return c;
}

const depth = (seq: number, at: number) => call(seq, 'spot', 'GET', '/sapi/v1/depth', { at, query: 'symbol=BTCUSDT', response: '{"time":1,"bids":[["30000","1"]],"asks":[["30001","1"]]}' });

/** One call of every kind, in file order (answers arrive out of request order at T0 + 900). */
const CALLS: TapeCall[] = [
  depth(0, T0),
  // A ban stated by Retry-After (30 s from the answer's arrival) and a later banUntil: the later one.
  answered(1, '/sapi/v1/depth', T0 + 1000, 418, `{"code":-1003,"msg":"banned","banUntil":${T0 + 45_000}}`, { 'Retry-After': '30' }),
  // Requests in flight when it began: the same ban.
  answered(2, '/sapi/v1/ticker', T0 + 1001, 418, '{"code":-1003,"msg":"banned"}', { 'retry-after': '30' }),
  answered(3, '/sapi/v1/myTrades', T0 + 60_000, 429, '{"code":-1003,"msg":"Too many requests"}', { 'retry-after': '2' }),
  answered(4, '/sapi/v1/order', T0 + 61_000, 503, '{"code":-1016,"msg":"Service unavailable"}', {}, 'POST'),
  answered(5, '/sapi/v1/account', T0 + 62_000, 200, '{"code":-1001,"msg":"Internal error"}'),
  answered(6, '/sapi/v1/batchOrders', T0 + 63_000, 504, '{"code":-1007,"msg":"Timeout"}', {}, 'POST'),
  answered(7, '/sapi/v1/order', T0 + 64_000, 502, '<html>Bad Gateway</html>', { 'content-type': 'text/html' }, 'POST'),
  call(8, 'spot', 'GET', '/sapi/v1/openOrders', { at: T0 + 65_000, failure: { message: 'connect ECONNREFUSED', maybeDelivered: false } }),
  call(9, 'spot', 'POST', '/sapi/v1/cancel', { at: T0 + 66_000, failure: { message: 'headers timeout', maybeDelivered: true } }),
  call(10, 'spot', 'GET', '/sapi/v1/openOrders', { at: T0 + 67_000, failure: { message: 'too large', maybeDelivered: true, tooLarge: { maxBytes: 100, status: 429, headers: { 'retry-after': '5' } } } }),
  // Our own doing: a timestamp refused, an order refused, a 200 that is a success envelope.
  answered(11, '/sapi/v1/order', T0 + 68_000, 400, '{"code":-1021,"msg":"Timestamp outside recvWindow"}', {}, 'POST'),
  answered(12, '/sapi/v1/order', T0 + 68_500, 400, '{"code":-2017,"msg":"Balance not enough"}', {}, 'POST'),
  answered(13, '/sapi/v1/account', T0 + 68_700, 200, '{"code":"0","msg":"success","data":{"balances":[]}}'),
  // A ban that states no end: until the next answer that is a success, sent after it began.
  answered(14, '/sapi/v1/ticker', T0 + 70_000, 418, '{"code":-1003,"msg":"Way too many requests"}'),
  answered(15, '/sapi/v1/ticker', T0 + 190_000, 418, '{"code":-1003,"msg":"Way too many requests"}'),
  call(16, 'spot', 'GET', '/sapi/v1/time', { at: T0 + 69_999, ms: 300_000, response: '{"serverTime":1}' }),
  answered(17, '/sapi/v1/myTrades', T0 + 200_000, 500, '{"code":-1000,"msg":"Unknown"}'),
  depth(18, T0 + 430_000),
  // An unstated ban nothing ends: to the tape's last answer.
  answered(19, '/sapi/v1/depth', T0 + 500_000, 418, '{"code":-1003}'),
  call(20, 'spot', 'GET', '/sapi/v1/depth', { at: T0 + 500_500, ms: 700, failure: { message: 'socket hang up', maybeDelivered: false } }),
];

const EXPECTED = [
  { kind: 'ban', at: T0 + 1000, until: T0 + 45_000 },
  { kind: 'rate_limit', at: T0 + 60_000, endpoint: 'spot.myTrades', answer: answer(429, '{"code":-1003,"msg":"Too many requests"}', { 'retry-after': '2' }) },
  { kind: 'error', at: T0 + 61_000, endpoint: 'spot.order', answer: answer(503, '{"code":-1016,"msg":"Service unavailable"}') },
  { kind: 'error', at: T0 + 62_000, endpoint: 'spot.account', answer: answer(200, '{"code":-1001,"msg":"Internal error"}') },
  { kind: 'unknown_outcome', at: T0 + 63_000, endpoint: 'spot.batchOrders', answer: answer(504, '{"code":-1007,"msg":"Timeout"}') },
  { kind: 'error', at: T0 + 64_000, endpoint: 'spot.order', answer: { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad Gateway</html>' } },
  { kind: 'reset', at: T0 + 65_000, endpoint: 'spot.openOrders', message: 'connect ECONNREFUSED' },
  { kind: 'unknown_outcome', at: T0 + 66_000, endpoint: 'spot.cancel', message: 'headers timeout' },
  { kind: 'rate_limit', at: T0 + 67_000, endpoint: 'spot.openOrders', answer: { status: 429, headers: { 'retry-after': '5' }, body: '' } },
  // The 418 at +190 s (a probe after the client's pause) is the same ban; the /time answer sent at +69.999 s does not end it.
  { kind: 'ban', at: T0 + 70_000, until: T0 + 430_000, answer: answer(418, '{"code":-1003,"msg":"Way too many requests"}') },
  { kind: 'error', at: T0 + 200_000, endpoint: 'spot.myTrades', answer: answer(500, '{"code":-1000,"msg":"Unknown"}') },
  { kind: 'ban', at: T0 + 500_000, until: T0 + 501_200 + 1, answer: answer(418, '{"code":-1003}') },
  { kind: 'reset', at: T0 + 500_500, endpoint: 'spot.depth', message: 'socket hang up' },
];

function writeTape(name: string, calls: readonly TapeCall[], gzip = false): string {
  const text = [{ tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta: {} }, ...calls].map((l) => JSON.stringify(l)).join('\n') + '\n';
  const path = tmp.path(name);
  writeFileSync(path, gzip ? gzipSync(text) : text);
  return path;
}

describe('recorded incidents', () => {
  it('takes the venue’s troubles from a tape and leaves out what was our own doing', () => {
    expect(incidentsOf(CALLS)).toEqual(EXPECTED);
  });

  it('gives the same from a file, plain or gzip, parsing only the lines that can hold one', async () => {
    for (const gzip of [false, true]) expect(await recordedIncidents({ tapePath: writeTape(gzip ? 't.jsonl.gz' : 't.jsonl', CALLS, gzip) })).toEqual(EXPECTED);
    // The pre-filter passes over plain successes only.
    const lines = CALLS.map((c) => JSON.stringify(c));
    expect(lines.map(plainSuccess)).toEqual(CALLS.map((c) => 'response' in c && c.response.status === 200 && !c.response.body.includes('"code"')));
  });

  it('keeps a file’s incidents beside its cached events, and reads them from there', async () => {
    const tape = writeTape('t.jsonl', CALLS);
    const cache = tmp.path('cache');
    await prepareEventCache(tape, cache);
    const sidecar = (await eventCachePath(tape, cache)).replace(/\.events$/, '.incidents');
    expect(JSON.parse(readFileSync(sidecar, 'utf8'))).toEqual({ version: 2, payload: EXPECTED });
    expect(await recordedIncidents({ tapePath: tape, eventCacheDir: cache })).toEqual(EXPECTED);
    // Later runs (a sweep's threads, other processes) read the file, not the tape: shown by a
    // file that says otherwise. A copy of the tape under another name has the same hash, so the same file.
    writeFileSync(sidecar, `${JSON.stringify({ version: 2, payload: [EXPECTED[0]] })}\n`);
    expect(await recordedIncidents({ tapePath: writeTape('copy.jsonl', CALLS), eventCacheDir: cache })).toEqual([EXPECTED[0]]);
    // One it cannot read is no cache: the tape is read again and the file written anew.
    writeFileSync(sidecar, '{"version":1,"incid');
    expect(await recordedIncidents({ tapePath: tape, eventCacheDir: cache })).toEqual(EXPECTED);
    expect(JSON.parse(readFileSync(sidecar, 'utf8'))).toEqual({ version: 2, payload: EXPECTED });
  });

  it('gives the same from memory and from a file when a clock stepped back before a ban nothing ends', async () => {
    // A slow answer arrived at +60 s; the clock then stepped back, and a ban began at +20 s that no
    // success ended. Its end is the latest arrival from its own line on, which a file's pass,
    // parsing only the lines that can hold an incident, sees too.
    const calls = [
      depth(0, T0),
      call(1, 'spot', 'GET', '/sapi/v1/time', { at: T0 + 10_000, ms: 50_000, response: '{"serverTime":1}' }),
      answered(2, '/sapi/v1/depth', T0 + 20_000, 418, '{"code":-1003}'),
      call(3, 'spot', 'GET', '/sapi/v1/ticker', { at: T0 + 20_100, ms: 100, failure: { message: 'socket hang up', maybeDelivered: false } }),
    ];
    const want = [
      { kind: 'ban', at: T0 + 20_000, until: T0 + 20_200 + 1, answer: answer(418, '{"code":-1003}') },
      { kind: 'reset', at: T0 + 20_100, endpoint: 'spot.ticker', message: 'socket hang up' },
    ];
    expect(incidentsOf(calls)).toEqual(want);
    expect(await recordedIncidents({ tapePath: writeTape('stepped.jsonl', calls) })).toEqual(want);
  });

  it('gives the same from memory and from a file for a success whose body spells "code" escaped', async () => {
    // The file's pass does not parse a 2xx line without \"code\" in its text; nor is its parsed answer judged otherwise.
    const calls = [depth(0, T0), answered(1, '/sapi/v1/account', T0 + 1000, 200, '{"\\u0063ode":-1001,"msg":"Internal error"}')];
    expect(plainSuccess(JSON.stringify(calls[1]))).toBe(true);
    expect(incidentsOf(calls)).toEqual([]);
    expect(await recordedIncidents({ tapePath: writeTape('escaped.jsonl', calls) })).toEqual([]);
  });

  // A stale file under the tape's name tells the pass that decodes the tape from a pass of their
  // own: the decoding one writes what it found over it, a later one would read it.
  const staleSidecar = async (tape: string, cache: string) => {
    const sidecar = (await eventCachePath(tape, cache)).replace(/\.events$/, '.incidents');
    mkdirSync(cache, { recursive: true });
    writeFileSync(sidecar, `${JSON.stringify({ version: 2, payload: [EXPECTED[0]] })}\n`);
    return sidecar;
  };

  it.each([{ thread: false }, { thread: true }])('preparing the cache reads the tape once: the pass decoding its events collects them (thread: $thread)', async ({ thread }) => {
    const tape = writeTape('t.jsonl', CALLS);
    const cache = tmp.path('cache');
    const sidecar = await staleSidecar(tape, cache);
    await prepareEventCache(tape, cache, { thread });
    expect(JSON.parse(readFileSync(sidecar, 'utf8'))).toEqual({ version: 2, payload: EXPECTED });
    expect(existsSync(await eventCachePath(tape, cache))).toBe(true);
  });

  it('a first run that decodes in process decodes the tape into the cache first, its incidents in the same pass', async () => {
    const tape = writeTape('t.jsonl', CALLS);
    const cache = tmp.path('cache');
    const sidecar = await staleSidecar(tape, cache);
    const source = await openMarketEvents(tape, cache, { thread: false, incidents: true });
    // The run reads the cache the pass wrote.
    expect(source.cached).toBe(true);
    expect(await source.incidents).toEqual(EXPECTED);
    expect(JSON.parse(readFileSync(sidecar, 'utf8'))).toEqual({ version: 2, payload: EXPECTED });
    await source.batches.return(undefined);
  });

  it.each([{ thread: false }, { thread: true }])('a tape that fails part-way leaves neither incidents nor events in the cache (thread: $thread)', async ({ thread }) => {
    const tape = writeTape('t.jsonl', CALLS);
    const lines = readFileSync(tape, 'utf8').split('\n');
    lines.splice(12, 0, '{"broken');
    writeFileSync(tape, lines.join('\n'));
    const cache = tmp.path('cache');
    const err = await prepareEventCache(tape, cache, { thread }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TapeFormatError);
    expect(err).toMatchObject({ file: tape, line: 13 });
    expect(readdirSync(cache)).toEqual([]);
    const first = await openMarketEvents(tape, cache, { thread: false, incidents: true }).catch((e: unknown) => e);
    expect(first).toMatchObject({ file: tape, line: 13 });
    expect(readdirSync(cache)).toEqual([]);
  });

  it('finds none in a tape of successes', async () => {
    expect(await recordedIncidents({ tapePath: writeTape('ok.jsonl', [depth(0, T0), depth(1, T0 + 1000)]) })).toEqual([]);
  });
});
