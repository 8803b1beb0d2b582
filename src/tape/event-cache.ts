// Decoded market events, cached on disk. Decoding a tape (gunzip, JSON twice, de-duplicating
// overlapping trade polls) costs as much as the backtest that uses it, and the same tape runs
// many times: while a strategy is tuned, and once per configuration of a sweep. The first run
// writes the events it decoded to a cache file; later runs read that file instead.
//
// A cache file is named by a hash of the tape's bytes and of the decoder's source files, so an
// edited tape or another version of the decoder decodes afresh and never reads stale events.
// It is written to a temporary name and renamed when complete, so a file under the final name
// is whole; its last line counts the events, which reading checks again.
//
// The tape's recorded incidents (incidents.ts) go beside the events. A run needs them all before
// its first request, which no part of a tape can promise before its end, so they come from a pass
// over the whole tape, done where it costs least: preparing the cache (a sweep), and a first run
// that decodes in process, read the tape once, collecting them as they decode it, the run then
// reading the cache; a first run decoding on a thread reads them meanwhile on its main thread,
// which keeps the decoding and the run overlapped (the thread is let further ahead while it does).
import { closeSync, createReadStream, type ReadStream, openSync, readSync, rmSync, statSync, utimesSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CacheChunks, MAGIC, openCacheWriter, partName, readRecords } from './cache-file.js';
import type { RecordedIncident } from '../sim/types.js';
import { amend } from '../core/amend.js';
import { decodeOnThread, decodesOnThread } from './decode-thread.js';
import { tapeDigest } from './digest.js';
import { collecting, IncidentCollector, recordedIncidents, sidecarOf, writeIncidents } from './incidents.js';
import { TapeFormatError } from './format.js';
import { streamMarketEvents, type TapeMarketEvent } from './market.js';
import { openTape } from './reader.js';

/** Chunks a thread may decode ahead while the run reads the tape's incidents on its main thread (about 16 MB: a 10-minute dense tape whole). */
export const CHUNKS_AHEAD_BESIDE_INCIDENTS = 16;

/** A tape's market events, one answer's events per batch, and how much of the input is read (0 to 1). */
export interface MarketEventSource {
  batches: AsyncGenerator<TapeMarketEvent[]>;
  progress: () => number;
  /** The last event's time, when known before reading (a cache file says it). */
  lastAt?: number;
  /** Whether the events come from the cache. */
  cached: boolean;
  /** The tape's recorded incidents, when asked for (`incidents`); it rejects as reading them fails. */
  incidents?: Promise<readonly RecordedIncident[]>;
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
 * sees the same events. `incidents`: the tape's recorded incidents too, which the run needs
 * before its first event: a tape that decodes in process is decoded into the cache whole first,
 * collecting them in the same pass.
 */
export async function openMarketEvents(tapePath: string, cacheDir?: string, opts: { thread?: boolean; incidents?: boolean } = {}): Promise<MarketEventSource> {
  const path = cacheDir === undefined ? undefined : await eventCachePath(tapePath, cacheDir);
  const cached = path === undefined ? undefined : openCacheFile(path);
  const incidents = () => settledLater(recordedIncidents({ tapePath, ...(cacheDir !== undefined ? { eventCacheDir: cacheDir } : {}) }));
  if (cached) return opts.incidents ? amend(cached, { incidents: incidents() }) : cached;
  // A large tape decodes on a thread while the run reads it (decode-thread.ts; `thread` forces either way).
  if (opts.thread ?? decodesOnThread(tapePath)) {
    if (!opts.incidents) return decodeOnThread(tapePath, path);
    // Read on this thread meanwhile; the decoding goes on instead of waiting for the run.
    return amend(decodeOnThread(tapePath, path, { ahead: CHUNKS_AHEAD_BESIDE_INCIDENTS }), { incidents: incidents() });
  }
  if (opts.incidents && path !== undefined) {
    // In process the run would wait for the decoding anyway: one pass for the events and the incidents, then the cache.
    const found = await decodeIntoCache(tapePath, path);
    // A cache it could not write (read-only, full) decodes again as it runs.
    return amend(openCacheFile(path) ?? inProcess(tapePath, path), { incidents: Promise.resolve(found) });
  }
  const source = inProcess(tapePath, path);
  return opts.incidents ? amend(source, { incidents: incidents() }) : source;
}

/**
 * Decodes a tape into the cache, its events and its recorded incidents, unless they are there
 * already (a sweep does this once, before its workers start): one pass over the tape for both.
 */
export async function prepareEventCache(tapePath: string, cacheDir: string, opts: { thread?: boolean } = {}): Promise<void> {
  const path = await eventCachePath(tapePath, cacheDir);
  const cached = openCacheFile(path);
  if (cached) await cached.batches.return(undefined);
  else if (opts.thread ?? decodesOnThread(tapePath)) for await (const _ of decodeOnThread(tapePath, path, { incidentsPath: sidecarOf(path) }).batches);
  else await decodeIntoCache(tapePath, path);
  // The file that pass wrote; read from the tape only for events cached without it.
  await recordedIncidents({ tapePath, eventCacheDir: cacheDir });
}

/** A promise whose rejection is handled later, or never (a run that stops first): not an unhandled rejection meanwhile. */
function settledLater<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/** The tape decoded in process as the run reads it, the events as a cache file gives them back (and written to `path` when given). */
function inProcess(tapePath: string, path: string | undefined): MarketEventSource {
  const source = decodeTape(tapePath);
  return { ...source, batches: asRecords(source.batches, path) };
}

/** The tape decoded whole into the cache file `path`, its incidents collected in the same pass and written beside it; gives them. */
async function decodeIntoCache(tapePath: string, path: string): Promise<RecordedIncident[]> {
  const collector = new IncidentCollector();
  for await (const _ of asRecords(decodeTape(tapePath, collector).batches, path));
  return writeIncidents(sidecarOf(path), collector.done());
}

function decodeTape(tapePath: string, incidents?: IncidentCollector): MarketEventSource {
  // Opened on the first read, like a cache file: a source closed before it is read leaves no file open.
  let progress = () => 0;
  const batches = (async function* () {
    const tape = await openTape(tapePath);
    progress = tape.progress;
    yield* streamMarketEvents(incidents ? collecting(tape.calls, incidents) : tape.calls);
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
