// The decoded-event cache: it must give exactly the events decoding gives, be keyed by the
// tape's bytes, never leave a half-written file, and refuse a damaged one by name.
import { copyFileSync, existsSync, mkdirSync, watch, readdirSync, readFileSync, readlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evict } from '../../../src/tape/cache-file.js';
import { CHUNKS_AHEAD } from '../../../src/tape/decode-thread.js';
import { eventCachePath, openMarketEvents, openTape, streamMarketEvents, TAPE_VERSION, TapeFeed, TapeFormatError, type TapeCall, type TapeMarketEvent } from '../../../src/tape/index.js';
import { tapeDecimalText } from '../../../src/sim/units.js';
import type { RecordedMarketEvent, TapeDecimal } from '../../../src/sim/types.js';
import { bookOf, call, T0, tempDir, tradesOf } from './helpers.js';

const SAMPLE = join(import.meta.dirname, '../../../backtest/tapes/sample.jsonl.gz');
let tmp = tempDir();
afterEach(() => {
  tmp.cleanup();
  tmp = tempDir();
});

const ticker = (last: string) => JSON.stringify({ high: '31000', low: '29000', last, vol: '12.5', buy: '29999', sell: '30001', rose: '-0.01', time: T0 });
/** Every kind of answer the decoder turns into events, spot and futures, an empty book side and a symbol that needs encoding. */
const CALLS: TapeCall[] = [
  call(0, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT&limit=2', response: '{"time":1,"bids":[["30000.1","1.5"],["29999","2"]],"asks":[["30001","0.25"]]}' }),
  call(1, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=BTCUSDT', response: JSON.stringify([{ price: '30000.5', qty: '0.1', time: T0 + 90, side: 'BUY' }, { price: '30000.4', qty: '0.2', time: T0 + 80, side: 'SELL' }]) }),
  call(2, 'futures', 'GET', '/fapi/v1/depth', { query: 'contractName=E-BTC-USDT', response: '{"code":"0","data":{"bids":[],"asks":[["30002","4"]]}}' }),
  call(3, 'futures', 'GET', '/fapi/v1/ticker', { query: 'contractName=E-BTC-USDT', response: ticker('30010.5') }),
  call(4, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=ETH%20USDT', response: ticker('2001') }),
  call(5, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=BTCUSDT', response: JSON.stringify([{ price: '30002', qty: '0.3', time: T0 + 450, side: 'SELL' }, { price: '30000.5', qty: '0.1', time: T0 + 90, side: 'BUY' }]) }),
];

function writeTape(path: string, calls: readonly TapeCall[]): string {
  writeFileSync(path, [{ tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta: {} }, ...calls].map((l) => JSON.stringify(l)).join('\n') + '\n');
  return path;
}

async function decoded(tapePath: string): Promise<TapeMarketEvent[][]> {
  const out: TapeMarketEvent[][] = [];
  for await (const batch of streamMarketEvents((await openTape(tapePath)).calls)) out.push(batch);
  return out;
}

/** The source's batches, each decimal as its text (the cache gives plain ones as ScaledDecimal): `scaled` counts those. */
async function read(tapePath: string, cacheDir: string | undefined, thread = false): Promise<{ batches: TapeMarketEvent[][]; cached: boolean; lastAt?: number; scaled: number }> {
  const source = await openMarketEvents(tapePath, cacheDir, { thread });
  const batches: TapeMarketEvent[][] = [];
  let scaled = 0;
  const text = (d: TapeDecimal) => {
    if (typeof d !== 'string') scaled++;
    return tapeDecimalText(d);
  };
  // The cache's packed events as the `trade` and `book` events they stand for.
  const asText = (e: RecordedMarketEvent): RecordedMarketEvent[] => {
    if (e.type === 'trade') return [{ ...e, price: text(e.price), qty: text(e.qty) }];
    if (e.type === 'tradeCells') return tradesOf(e).map((t) => ({ ...t, price: text(t.price), qty: text(t.qty) }));
    if (e.type === 'ticker') return [{ ...e, last: text(e.last) }];
    if (e.type === 'klines') return [e];
    const book = e.type === 'bookCells' ? bookOf(e) : e;
    const levels = (side: typeof book.bids) => side.map(([p, q]) => [text(p), text(q)] as const);
    return [{ ...book, bids: levels(book.bids), asks: levels(book.asks) }];
  };
  for await (const batch of source.batches) batches.push(batch.flatMap((e) => asText(e.event).map((event) => ({ ...e, event }))));
  return { batches, cached: source.cached, lastAt: source.lastAt, scaled };
}

/** Where each record of a cache file starts (after the magic line, each a u32 length and its bytes, to the u32 0 of the end). */
function recordStarts(file: Buffer): number[] {
  const starts: number[] = [];
  for (let at = file.indexOf('\n') + 1; file.readUInt32LE(at) !== 0; at += 4 + file.readUInt32LE(at)) starts.push(at);
  return starts;
}

/** A book of 50 levels a side: about 750 bytes of cache records. */
function wideBook(i: number): string {
  const level = (price: number, k: number) => `["${price}.${k % 10}","${(k % 7) + 1}.25"]`;
  return `{"time":${i},"bids":[${Array.from({ length: 50 }, (_, k) => level(30000 - k - (i % 13), i + k)).join(',')}],"asks":[${Array.from({ length: 50 }, (_, k) => level(30001 + k + (i % 11), i + k)).join(',')}]}`;
}

const cacheFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** The files under `dir` this process holds open. */
function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const file = readlinkSync(`/proc/self/fd/${fd}`);
      return file.startsWith(dir) ? [file] : [];
    } catch {
      return [];
    }
  });
}

// Each decoding test runs with the tape decoded in process and on a thread of its own (decode-thread.ts).
describe.each([{ thread: false }, { thread: true }])('event cache, decoding with thread: $thread', ({ thread }) => {
  it('gives exactly the decoded events: the first run writes the cache, the next reads it', async () => {
    const tape = writeTape(tmp.path('t.jsonl'), CALLS);
    const cache = tmp.path('cache');
    const want = await decoded(tape);
    expect(want.flat().map((e) => e.event.type)).toEqual(['book', 'trade', 'trade', 'book', 'ticker', 'ticker', 'trade']);
    const first = await read(tape, cache, thread);
    expect(first).toMatchObject({ cached: false, batches: want });
    expect(cacheFiles(cache)).toEqual([expect.stringMatching(/^[0-9a-f]{40}\.events$/)]);
    // A first run gives the events as the file it writes gives them back: plain decimals as ScaledDecimal.
    expect(first.scaled).toBe(16);
    const second = await read(tape, cache, thread);
    // Every decimal of CALLS is plain: each comes back as a ScaledDecimal, the same text.
    expect(second).toEqual({ cached: true, batches: want, lastAt: want.at(-1)![0]!.at, scaled: 16 });
    expect((await read(tape, undefined, thread)).scaled).toBe(16);
    expect(second.batches.flat().map((e) => e.event.symbol)).toContain('ETH USDT');
  });

  it('gives the sample tape\'s events back unchanged', async () => {
    const cache = tmp.path('cache');
    const want = await decoded(SAMPLE);
    expect(want.flat().length).toBeGreaterThan(5000);
    await read(SAMPLE, cache, thread);
    const cached = await read(SAMPLE, cache, thread);
    expect(cached.cached).toBe(true);
    expect(cached.batches).toEqual(want);
  });

  it('leaves no part of a cache file when the tape is not read to its end (decoded in process, no file at all)', async () => {
    const tape = writeTape(tmp.path('t.jsonl'), CALLS);
    const cache = tmp.path('cache');
    const source = await openMarketEvents(tape, cache, { thread });
    await source.batches.next();
    await source.batches.return(undefined);
    // A thread reads the tape on its own: it may have read this small one to its end and written
    // the whole file by then. Never a part of one.
    if (thread) expect(cacheFiles(cache).filter((f) => !f.endsWith('.events'))).toEqual([]);
    else expect(cacheFiles(cache)).toEqual([]);
    const again = await read(tape, cache, thread);
    expect(again.batches).toEqual(await decoded(tape));
    if (!thread) expect(again.cached).toBe(false);
  });

  it('gives a failing tape\'s events up to the bad line, then the tape\'s error by file and line; caches nothing', async () => {
    // Tickers a second apart: those more than REORDER_MS before the bad line are out of the decoder's hands.
    const tickers = Array.from({ length: 30 }, (_, i) => call(i, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT', at: T0 + i * 1000, response: ticker(`${30000 + i}`) }));
    const tape = writeTape(tmp.path('t.jsonl'), tickers);
    const lines = readFileSync(tape, 'utf8').split('\n');
    lines.splice(21, 0, '{"not a call"');
    writeFileSync(tape, lines.join('\n'));
    const until = async (batches: AsyncIterable<TapeMarketEvent[]>) => {
      const got: string[] = [];
      const err = await (async () => {
        for await (const batch of batches) got.push(...batch.map((e) => tapeDecimalText(e.event.type === 'ticker' ? e.event.last : '')));
      })().catch((e: unknown) => e);
      return { got, err };
    };
    const cache = tmp.path('cache');
    const { got, err } = await until((await openMarketEvents(tape, cache, { thread })).batches);
    expect(got).toEqual(Array.from({ length: 9 }, (_, i) => `${30000 + i}`));
    expect(err).toBeInstanceOf(TapeFormatError);
    expect(err).toMatchObject({ file: tape, line: 22 });
    expect((err as Error).message).toContain(`${tape}:22: `);
    expect(await until(streamMarketEvents((await openTape(tape)).calls))).toEqual({ got, err });
    expect(cacheFiles(cache)).toEqual([]);
  });

  it('a source closed before it is read leaves no file open, from the tape or from the cache', async () => {
    const tape = writeTape(tmp.path('t.jsonl'), CALLS);
    const cache = tmp.path('cache');
    for (const dir of [undefined, cache, cache]) {
      const source = await openMarketEvents(tape, dir, { thread });
      await source.batches.return(undefined);
      if (dir === cache && !source.cached) await read(tape, cache, thread);
      expect(openFilesUnder(tmp.dir)).toEqual([]);
    }
  });

  it('runs on without a cache it cannot write', async () => {
    const tape = writeTape(tmp.path('t.jsonl'), CALLS);
    const blocked = tmp.path('file');
    writeFileSync(blocked, 'not a directory');
    const r = await read(tape, join(blocked, 'cache'), thread);
    expect(r.cached).toBe(false);
    expect(r.batches).toEqual(await decoded(tape));
  });
});

describe('event cache', () => {
  it('a run that ends early stops the thread decoding its tape: no part of a cache file and no file left open, and the thread decodes the next run\'s tape whole', async () => {
    // Books of 50 levels a side: about 9 MB of cache records, so the thread, at most CHUNKS_AHEAD
    // chunks of 1 MB ahead of the run, is mid-tape when the run stops after its first batch.
    const calls = Array.from({ length: 12_000 }, (_, i) => call(i, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT&limit=50', at: T0 + i * 100, response: wideBook(i) }));
    const tape = writeTape(tmp.path('big.jsonl'), calls);
    const cache = tmp.path('cache');
    const source = await openMarketEvents(tape, cache, { thread: true });
    expect((await source.batches.next()).done).toBe(false);
    await source.batches.return(undefined);
    // Had the thread reached the end, the whole cache file would be there.
    expect(cacheFiles(cache)).toEqual([]);
    expect(openFilesUnder(tmp.dir)).toEqual([]);
    const again = await read(tape, cache, true);
    expect(again.cached).toBe(false);
    expect(again.batches).toEqual(await decoded(tape));
    expect(cacheFiles(cache)).toHaveLength(1);
    expect(readFileSync(join(cache, cacheFiles(cache)[0]!)).length).toBeGreaterThan(7 * 1024 * 1024);
  }, 60_000);

  it('while a run reads its tape\'s incidents, the thread decodes on past CHUNKS_AHEAD: a tape of about 9 MB of cache records to its end with the run at its first batch', async () => {
    const calls = Array.from({ length: 6_000 }, (_, i) => call(i, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT&limit=50', at: T0 + i * 100, response: wideBook(i) }));
    const tape = writeTape(tmp.path('big.jsonl'), calls);
    const cache = tmp.path('cache');
    mkdirSync(cache);
    const events = await eventCachePath(tape, cache);
    // The whole cache file appears once the thread has decoded the last chunk: the run takes none after its first.
    const written = new Promise<void>((done) => {
      const watcher = watch(cache, () => {
        if (!existsSync(events)) return;
        watcher.close();
        done();
      });
    });
    const feed = await TapeFeed.open({ tapePath: tape, eventCacheDir: cache, decodeThread: true, incidents: true });
    expect(await feed.incidents).toEqual([]);
    await written;
    expect(feed.count).toBe(0);
    await feed.close();
    expect(readFileSync(events).length).toBeGreaterThan(CHUNKS_AHEAD * 1024 * 1024 * 2);
    expect(openFilesUnder(tmp.dir)).toEqual([]);
  }, 60_000);

  it('a run stopped while it reads the tape\'s incidents beside a thread\'s decoding leaves no file open and no part of one', async () => {
    // Books enough for a first chunk of cache records, then a ban no success ends and a long tail
    // of lost answers, which the run's pass over the tape parses line by line well after the
    // first chunk has come (the thread warm already, as a process's later runs find it).
    await read(writeTape(tmp.path('warm.jsonl'), CALLS), undefined, true);
    const books = Array.from({ length: 2500 }, (_, i) => call(i, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT&limit=50', at: T0 + i * 100, response: wideBook(i) }));
    const ban = call(2500, 'spot', 'GET', '/sapi/v1/depth', { at: T0 + 250_000, status: 418, response: '{"code":-1003}' });
    const lost = Array.from({ length: 100_000 }, (_, i) => call(2501 + i, 'spot', 'GET', '/sapi/v1/time', { at: T0 + 250_010 + i * 10, failure: { message: 'socket hang up', maybeDelivered: false } }));
    const tape = writeTape(tmp.path('long.jsonl'), [...books, ban, ...lost]);
    const cache = tmp.path('cache');
    const feed = await TapeFeed.open({ tapePath: tape, eventCacheDir: cache, decodeThread: true, incidents: true });
    expect(feed.nextAt()).toBe(T0 + 5);
    await feed.close();
    expect(openFilesUnder(tmp.dir)).toEqual([]);
    expect(cacheFiles(cache).filter((f) => f.endsWith('.part'))).toEqual([]);
  }, 60_000);

  it('is keyed by the tape\'s bytes, not its name', async () => {
    const a = writeTape(tmp.path('a.jsonl'), CALLS);
    const b = tmp.path('b.jsonl');
    copyFileSync(a, b);
    const edited = writeTape(tmp.path('c.jsonl'), CALLS.slice(0, -1));
    const cache = tmp.path('cache');
    expect(await eventCachePath(b, cache)).toBe(await eventCachePath(a, cache));
    expect(await eventCachePath(edited, cache)).not.toBe(await eventCachePath(a, cache));
    // Written again in place, to the same size: hashed again, not taken from this process's memo.
    const before = await eventCachePath(a, cache);
    const bytes = readFileSync(a, 'utf8');
    writeFileSync(a, bytes.replace('30000.1', '30000.2'));
    expect(readFileSync(a).length).toBe(Buffer.byteLength(bytes));
    expect(await eventCachePath(a, cache)).not.toBe(before);
    writeFileSync(a, bytes);
    expect(await eventCachePath(a, cache)).toBe(before);
    await read(a, cache);
    expect((await read(b, cache)).cached).toBe(true);
    const other = await read(edited, cache);
    expect(other.cached).toBe(false);
    expect(other.batches).toEqual(await decoded(edited));
  });

  it('decodes afresh over a file of the format before (sluice-events 3: books still holding the recording account’s own orders)', async () => {
    const tape = writeTape(tmp.path('t.jsonl'), CALLS);
    const cache = tmp.path('cache');
    const path = await eventCachePath(tape, cache);
    await read(tape, cache);
    const whole = readFileSync(path);
    expect(whole.subarray(0, 16).toString()).toBe('sluice-events 4\n');
    writeFileSync(path, Buffer.concat([Buffer.from('sluice-events 3\n'), whole.subarray(16)]));
    const again = await read(tape, cache);
    expect(again.cached).toBe(false);
    expect(readFileSync(path)).toEqual(whole);
  });

  it('decodes again over a file without its end line, and names a damaged file and the fix', async () => {
    const tape = writeTape(tmp.path('t.jsonl'), CALLS);
    const cache = tmp.path('cache');
    const path = await eventCachePath(tape, cache);
    await read(tape, cache);
    const whole = readFileSync(path);

    writeFileSync(path, whole.subarray(0, whole.lastIndexOf('\nend ')));
    const again = await read(tape, cache);
    expect(again.cached).toBe(false);
    expect(readFileSync(path)).toEqual(whole);

    // The second record (the first trades) made no event kind: its kind byte follows the symbol.
    const [, second, third] = recordStarts(whole);
    const kind = whole.indexOf('BTCUSDTt', second) + 'BTCUSDT'.length;
    expect(kind).toBeLessThan(third!);
    const bad = Buffer.from(whole);
    bad[kind] = 'x'.charCodeAt(0);
    writeFileSync(path, bad);
    const err = await read(tape, cache).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TapeFormatError);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toMatch(/\.events:3: event cache damaged .*--no-cache/);

    // A record lost: the count in the end line no longer matches.
    writeFileSync(path, Buffer.concat([whole.subarray(0, second), whole.subarray(third)]));
    await expect(read(tape, cache)).rejects.toThrow(/event cache damaged \(5 events, the file says 7\)/);
  });

  it('keeps the most recently used files within the size limit', () => {
    const dir = tmp.path('cache');
    mkdirSync(dir);
    const now = Date.now() / 1000;
    const files = ['old', 'mid', 'new'].map((name, i) => {
      const path = join(dir, `${name}.events`);
      writeFileSync(path, 'x'.repeat(100));
      utimesSync(path, now - 300 + i * 100, now - 300 + i * 100);
      return path;
    });
    const stale = join(dir, 'crashed.events.1-ab.part');
    writeFileSync(stale, 'x');
    utimesSync(stale, now - 2 * 86_400, now - 2 * 86_400);
    evict(dir, 250, files[0]!);
    // The newest two fit in 250 bytes; the oldest is kept only because it was just written.
    expect(cacheFiles(dir).sort()).toEqual(['mid.events', 'new.events', 'old.events']);
    evict(dir, 250, files[2]!);
    expect(cacheFiles(dir).sort()).toEqual(['mid.events', 'new.events']);
  });
});
