// Decoded market events, cached on disk. Decoding a tape (gunzip, JSON twice, de-duplicating
// overlapping trade polls) costs as much as the backtest that uses it, and the same tape runs
// many times: while a strategy is tuned, and once per configuration of a sweep. The first run
// writes the events it decoded to a cache file; later runs read that file instead.
//
// A cache file is named by a hash of the tape's bytes and of the decoder's source files, so an
// edited tape or another version of the decoder decodes afresh and never reads stale events.
// It is written to a temporary name and renamed when complete, so a file under the final name
// is whole; its last line counts the events, which reading checks again.
import { closeSync, createReadStream, type ReadStream, openSync, readSync, rmSync, statSync, utimesSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CacheChunks, MAGIC, openCacheWriter, partName, readRecords } from './cache-file.js';
import { decodeOnThread, decodesOnThread } from './decode-thread.js';
import { tapeDigest } from './digest.js';
import { recordedIncidents } from './incidents.js';
import { TapeFormatError } from './format.js';
import { streamMarketEvents, type TapeMarketEvent } from './market.js';
import { openTape } from './reader.js';

/** A tape's market events, one answer's events per batch, and how much of the input is read (0 to 1). */
export interface MarketEventSource {
  batches: AsyncGenerator<TapeMarketEvent[]>;
  progress: () => number;
  /** The last event's time, when known before reading (a cache file says it). */
  lastAt?: number;
  /** Whether the events come from the cache. */
  cached: boolean;
}

/** `$XDG_CACHE_HOME/sluice/events`, or `~/.cache/sluice/events`. */
export function defaultEventCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'sluice', 'events');
}

/**
 * A tape's market events: from the cache in `cacheDir` when it holds them, else decoded from
 * the tape (on a thread of its own from THREAD_MIN_BYTES on) and, once the tape has been read
 * to its end, written there. Without a cacheDir the tape is decoded and nothing is written.
 * Either way the events are what a cache file gives back (CacheChunks), so every run of a tape
 * sees the same events.
 */
export async function openMarketEvents(tapePath: string, cacheDir?: string, opts: { thread?: boolean } = {}): Promise<MarketEventSource> {
  const path = cacheDir === undefined ? undefined : await eventCachePath(tapePath, cacheDir);
  const cached = path === undefined ? undefined : openCacheFile(path);
  if (cached) return cached;
  // A large tape decodes on a thread while the run reads it (decode-thread.ts; `thread` forces either way).
  if (opts.thread ?? decodesOnThread(tapePath)) return decodeOnThread(tapePath, path);
  const source = decodeTape(tapePath);
  return { ...source, batches: asRecords(source.batches, path) };
}

/** Decodes a tape into the cache, its events and its recorded incidents, unless they are there already (a sweep does this once, before its workers start). */
export async function prepareEventCache(tapePath: string, cacheDir: string): Promise<void> {
  const source = await openMarketEvents(tapePath, cacheDir);
  if (source.cached) await source.batches.return(undefined);
  else for await (const _ of source.batches);
  await recordedIncidents({ tapePath, eventCacheDir: cacheDir });
}

function decodeTape(tapePath: string): MarketEventSource {
  // Opened on the first read, like a cache file: a source closed before it is read leaves no file open.
  let progress = () => 0;
  const batches = (async function* () {
    const tape = await openTape(tapePath);
    progress = tape.progress;
    yield* streamMarketEvents(tape.calls);
  })();
  return { batches, progress: () => progress(), cached: false };
}

/** The batches as a cache file gives them back, written to `path` (when given) under a temporary name, renamed once the tape is read to its end. */
async function* asRecords(batches: AsyncGenerator<TapeMarketEvent[]>, path: string | undefined): AsyncGenerator<TapeMarketEvent[]> {
  const writer = path === undefined ? undefined : openCacheWriter(path, partName(path));
  const chunks = new CacheChunks();
  let complete = false;
  try {
    for await (const batch of batches) {
      const events = chunks.add(batch);
      const chunk = chunks.full();
      if (chunk) writer?.write(chunk);
      yield events;
    }
    complete = true;
  } finally {
    if (complete && writer) {
      writer.write(chunks.end());
      writer.commit();
    } else writer?.abort();
  }
}

/** The cache file for a tape: a hash of its bytes and of the decoder. */
export async function eventCachePath(tapePath: string, cacheDir: string): Promise<string> {
  return join(cacheDir, `${await tapeDigest(tapePath)}.events`);
}

/** A whole cache file, read as a stream; undefined when there is none (or an unfinished one). */
function openCacheFile(path: string): MarketEventSource | undefined {
  let size: number;
  let trailer: { events: number; lastAt: number } | undefined;
  try {
    size = statSync(path).size;
    trailer = readTrailer(path, size);
  } catch {
    return undefined;
  }
  // Best effort: a cache we may read but not change (another user's) still serves the run.
  if (!trailer) {
    try {
      rmSync(path, { force: true });
    } catch {
      // it is decoded again and the new file replaces it, or not
    }
    return undefined;
  }
  try {
    // Used now: eviction keeps the recently used ones.
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // not ours to touch
  }
  // Opened on the first read: a source closed before it is read leaves no file open.
  let stream: ReadStream | undefined;
  const open = () => (stream = createReadStream(path, { highWaterMark: 1024 * 1024 }));
  return { batches: readCache(path, open, trailer.events), progress: () => Math.min(1, (stream?.bytesRead ?? 0) / size), lastAt: trailer.lastAt, cached: true };
}

/** The magic line and the `end` line; undefined when either is missing. */
function readTrailer(path: string, size: number): { events: number; lastAt: number } | undefined {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(MAGIC.length + 1);
    readSync(fd, head, 0, head.length, 0);
    if (head.toString('utf8') !== `${MAGIC}\n`) return undefined;
    const tail = Buffer.alloc(Math.min(size, 128));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    const m = /\nend (\d+) (\d+)\n$/.exec(tail.toString('utf8'));
    return m ? { events: Number(m[1]), lastAt: Number(m[2]) } : undefined;
  } finally {
    closeSync(fd);
  }
}

async function* readCache(path: string, open: () => ReadStream, expected: number): AsyncGenerator<TapeMarketEvent[]> {
  const stream = open();
  // Placed as a line would be: the magic line is 1, record n is n + 1.
  const damaged = (problem: string, record: number) => new TapeFormatError(path, record + 1, `event cache damaged (${problem}): delete the file, or run with --no-cache`);
  try {
    yield* readRecords(stream as AsyncIterable<Buffer>, () => expected, damaged);
  } finally {
    stream.destroy();
  }
}
