// The bytes of an event cache file (see event-cache.ts), written and read as a stream:
//
//   sluice-events 4\n
//   a record per answer (cache-records.ts: binary, one answer's events each)
//   u32 0, then \nend <events> <last at>\n
//
// Records, not text: reading a line of text scanned every digit, and was most of a cached
// backtest's reading. The end is text so that a file is known whole from its last bytes.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { eventCount } from '../sim/types.js';
import { RecordDecoder, RecordEncoder } from './cache-records.js';
import type { TapeMarketEvent } from './market.js';

export const MAGIC = 'sluice-events 4';
/** Bytes gathered before a chunk is written: one write per megabyte, synchronously (a write is a millisecond). */
const CHUNK_BYTES = 1024 * 1024;

/**
 * A cache file's bytes, in chunks of about a megabyte: the magic line first, the end last. Each
 * answer added comes back as the file gives it back, so a run that writes the cache sees the
 * very events every later run reads from it.
 */
export class CacheChunks {
  private readonly encoder = new RecordEncoder(CHUNK_BYTES + 64 * 1024);
  private readonly decoder = new RecordDecoder();
  private events = 0;
  private lastAt = 0;

  constructor() {
    this.encoder.text(`${MAGIC}\n`);
  }

  /** Adds one answer's events; gives them back read from the record written. */
  add(batch: readonly TapeMarketEvent[]): TapeMarketEvent[] {
    const { start, end } = this.put(batch);
    const back = this.decoder.decode(this.encoder.bytes, start, end);
    if (!back) throw new Error(`an answer of ${batch[0]!.event.symbol} at ${batch[0]!.at} does not read back from its record`);
    return back;
  }

  /** Adds one answer's events as a record, without reading them back (where another thread reads the chunks). */
  put(batch: readonly TapeMarketEvent[]): { start: number; end: number } {
    const { at, market, event } = batch[0]!;
    for (const e of batch) {
      if (e.at !== at || e.market !== market || e.event.symbol !== event.symbol || e.event.type !== event.type) throw new Error('an event batch mixes answers (the decoder gives one answer per batch)');
    }
    if (event.type !== 'trade' && batch.length !== 1) throw new Error(`a ${event.type} batch holds one ${event.type}`);
    const range = this.encoder.record(batch);
    this.events += batch.length;
    this.lastAt = batch[batch.length - 1]!.at;
    return range;
  }

  /** Events added so far. */
  get count(): number {
    return this.events;
  }

  /** A chunk of about a megabyte, when one is ready. */
  full(): Buffer | undefined {
    return this.encoder.length >= CHUNK_BYTES ? this.encoder.take() : undefined;
  }

  /** The records not yet taken (where the tape failed: the events before the failure still go to the run). */
  rest(): Buffer {
    return this.encoder.take();
  }

  /** The records not yet taken, and the end. */
  end(): Buffer {
    this.encoder.u32(0);
    this.encoder.text(`\nend ${this.events} ${this.lastAt}\n`);
    return this.encoder.take();
  }
}

/**
 * The answers of a cache file's bytes, as chunks of them arrive, to the u32 0 of the end, where
 * the events read must number `expected()` (the end line's count, known by then); `damaged`
 * names the file and the fix.
 */
export async function* readRecords(chunks: AsyncIterable<Buffer>, expected: () => number, damaged: (problem: string, record: number) => Error): AsyncGenerator<TapeMarketEvent[]> {
  let rest: Buffer = Buffer.alloc(0);
  let record = 0;
  let events = 0;
  const records = new RecordDecoder();
  let start = MAGIC.length + 1;
  for await (const chunk of chunks) {
    const bytes = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    while (start + 4 <= bytes.length) {
      const size = bytes.readUInt32LE(start);
      if (size === 0) {
        if (events !== expected()) throw damaged(`${events} events, the file says ${expected()}`, record);
        return;
      }
      if (start + 4 + size > bytes.length) break;
      record++;
      const batch = records.decode(bytes, start + 4, start + 4 + size);
      if (!batch) throw damaged('a record that is no event', record);
      start += 4 + size;
      for (const e of batch) events += eventCount(e.event);
      yield batch;
    }
    rest = bytes.subarray(start);
    start = 0;
  }
  throw damaged('no end', record);
}

/** A writer for the cache file `path` under the temporary name `tmp`; undefined when it cannot be created (a read-only or full cache costs speed, not the run). */
export function openCacheWriter(path: string, tmp: string): CacheFileWriter | undefined {
  try {
    return new CacheFileWriter(path, tmp);
  } catch {
    return undefined;
  }
}

/** A temporary name for writing the cache file `path`: unique to this process and attempt. */
export function partName(path: string): string {
  return `${path}.${process.pid}-${randomBytes(4).toString('hex')}.part`;
}

/** A cache file being written: under a temporary name, renamed to its own once whole and on disk. */
export class CacheFileWriter {
  private readonly fd: number;
  private failed = false;
  private closed = false;

  /** Throws when the file cannot be created (a read-only or missing cache directory). */
  constructor(
    private readonly path: string,
    private readonly tmp: string,
  ) {
    mkdirSync(join(path, '..'), { recursive: true });
    this.fd = openSync(tmp, 'w');
  }

  write(bytes: Buffer): void {
    if (this.failed) return;
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(this.fd, bytes, done);
    } catch {
      // A full disk costs the cache, not the run.
      this.failed = true;
    }
  }

  /** Makes the file whole under its own name, then prunes the cache to its size limit. */
  commit(): void {
    if (this.failed) return this.abort();
    try {
      fsyncSync(this.fd);
      this.close();
      renameSync(this.tmp, this.path);
    } catch {
      return this.abort();
    }
    try {
      evict(join(this.path, '..'), EVENT_CACHE_MAX_BYTES, this.path);
    } catch {
      // A directory we cannot list or prune still served this run.
    }
  }

  abort(): void {
    try {
      this.close();
      rmSync(this.tmp, { force: true });
    } catch {
      // a .part file left behind is removed by a later eviction
    }
  }

  /** Closes the file once: a second close could hit a descriptor another thread has reused. */
  private close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/** The cache keeps the most recently used files up to this size; older ones are deleted. */
export const EVENT_CACHE_MAX_BYTES = 2 * 1024 ** 3;

/** Deletes the least recently used cache files beyond `maxBytes` (never `keep`), and temporary files a crash left. */
export function evict(dir: string, maxBytes: number, keep: string): void {
  const now = Date.now();
  const files = readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    try {
      const s = statSync(path);
      if (name.endsWith('.part') && now - s.mtimeMs > 24 * 3600_000) rmSync(path, { force: true });
      // A tape's incidents (incidents.ts) go by the same rule as its events.
      return name.endsWith('.events') || name.endsWith('.incidents') || name.endsWith('.listings') ? [{ path, size: s.size, used: s.mtimeMs }] : [];
    } catch {
      return [];
    }
  });
  let total = 0;
  for (const f of files.sort((a, b) => b.used - a.used)) {
    total += f.size;
    if (total <= maxBytes || f.path === keep) continue;
    try {
      rmSync(f.path, { force: true });
    } catch {
      // Someone else's file, or gone already.
    }
  }
}
