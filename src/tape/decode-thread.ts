// A first run over a large tape decodes it on a thread of its own (decode-worker.ts), so that
// decoding the tape and the backtest that reads it run at once on two cores instead of one
// after the other. The thread sends the cache file's bytes in chunks of about a megabyte; this
// side reads the events from them as a later run reads the cache file, so a run sees the same
// events either way. The thread runs at most CHUNKS_AHEAD chunks ahead of the reading, or further
// (`ahead`) while the run reads the tape's recorded incidents before it starts: the decoding goes
// on meanwhile instead of waiting for the run (incidents.ts says why they are not streamed). When
// told, the thread collects the incidents in its own pass too and writes them beside the cache
// file (a cache prepared for a sweep: nothing waits on them there, so the tape is read once).
import { rmSync, statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { partName, readRecords } from './cache-file.js';
import { TapeFormatError } from './format.js';
import type { TapeMarketEvent } from './market.js';

/** Tapes from this size on decode on a thread: starting one costs about what decoding a few hundred kB does. */
export const THREAD_MIN_BYTES = 4 * 1024 * 1024;
/** Chunks (about a megabyte each) the thread may send before the reading takes them. */
export const CHUNKS_AHEAD = 4;

export interface DecodeJob {
  tapePath: string;
  cachePath?: string;
  partPath?: string;
  /** Chunks the thread may send before the reading takes one; CHUNKS_AHEAD when absent. */
  ahead?: number;
  /** Where the tape's recorded incidents go once it is read to its end (incidents.ts's file beside the cache's); not collected when absent. */
  incidentsPath?: string;
}

export type DecodeMessage =
  | { kind: 'chunk'; bytes: ArrayBuffer; progress: number }
  | { kind: 'end'; bytes: ArrayBuffer; events: number; progress: number }
  | { kind: 'failed'; message: string; file?: string; line?: number; problem?: string }
  /** The job ended early at the main thread's 'stop'; its unfinished cache file is removed. */
  | { kind: 'stopped' };

/** To the thread: a tape to decode, room for one more chunk, or stop the tape in hand. */
export type DecodeRequest = { job: DecodeJob } | 'more' | 'stop';

// Built, the worker is plain JavaScript; from the sources a shim registers tsx in the thread first.
const SCRIPT = import.meta.url.endsWith('.ts') ? new URL('./decode-worker.mjs', import.meta.url) : new URL('./decode-worker.js', import.meta.url);

/** Whether a tape is large enough to decode on a thread. */
export function decodesOnThread(tapePath: string): boolean {
  try {
    return statSync(tapePath).size >= THREAD_MIN_BYTES;
  } catch {
    return false; // the in-process reader names the problem
  }
}

/**
 * Threads between tapes: a thread keeps its compiled decoder, so a process's later first runs
 * (a benchmark, or a sweep's over several tapes) decode at full speed. An idle one does not
 * keep the process alive.
 */
const idle: Worker[] = [];

function acquire(): Worker {
  const worker = idle.pop() ?? new Worker(SCRIPT);
  worker.ref();
  return worker;
}

function release(worker: Worker): void {
  worker.removeAllListeners();
  worker.once('exit', () => {
    const i = idle.indexOf(worker);
    if (i >= 0) idle.splice(i, 1);
  });
  worker.unref();
  idle.push(worker);
}

/**
 * The tape's events decoded on a thread, written to the cache file `cachePath` when given; the
 * thread may run `ahead` chunks ahead at first, and writes the tape's incidents to `incidentsPath`.
 */
export function decodeOnThread(
  tapePath: string,
  cachePath: string | undefined,
  opts: { ahead?: number; incidentsPath?: string } = {},
): { batches: AsyncGenerator<TapeMarketEvent[]>; progress: () => number; cached: false } {
  let progress = 0;
  const ahead = Math.max(CHUNKS_AHEAD, opts.ahead ?? CHUNKS_AHEAD);
  const batches = (async function* () {
    const job: DecodeJob = { tapePath, ...(cachePath !== undefined ? { cachePath, partPath: partName(cachePath) } : {}), ahead, ...(opts.incidentsPath !== undefined ? { incidentsPath: opts.incidentsPath } : {}) };
    const worker = acquire();
    const inbox: DecodeMessage[] = [];
    let failure: Error | undefined;
    /** The job is over for the thread: it ended, failed or stopped (or the thread is gone). */
    let over = false;
    let gone = false;
    let wake: (() => void) | undefined;
    const woken = () => {
      wake?.();
      wake = undefined;
    };
    const next = async (): Promise<DecodeMessage | undefined> => {
      while (inbox.length === 0 && failure === undefined) await new Promise<void>((r) => (wake = r));
      return inbox.shift();
    };
    worker.removeAllListeners();
    worker.on('message', (m: DecodeMessage) => {
      if (m.kind !== 'chunk') over = true;
      inbox.push(m);
      woken();
    });
    worker.on('error', (err) => {
      failure ??= err;
      woken();
    });
    worker.once('exit', (code) => {
      gone = over = true;
      failure ??= new Error(`the thread decoding ${tapePath} stopped (exit code ${code})`);
      woken();
    });
    worker.postMessage({ job } satisfies DecodeRequest);
    let events = -1;
    /** Room not given back as chunks are taken, until the thread is CHUNKS_AHEAD ahead again. */
    let owed = ahead - CHUNKS_AHEAD;
    async function* chunks(): AsyncGenerator<Buffer> {
      for (;;) {
        const m = await next();
        if (!m) throw failure!;
        if (m.kind === 'failed') throw m.file !== undefined && m.line !== undefined ? new TapeFormatError(m.file, m.line, m.problem ?? m.message) : new Error(m.message);
        if (m.kind === 'stopped') throw new Error(`the thread decoding ${tapePath} stopped unasked`);
        progress = m.progress;
        if (m.kind === 'end') {
          events = m.events;
          yield Buffer.from(m.bytes);
          return;
        }
        if (owed > 0) owed--;
        else worker.postMessage('more' satisfies DecodeRequest);
        yield Buffer.from(m.bytes);
      }
    }
    const damaged = (problem: string, record: number) => new Error(`${tapePath}: the events decoded on a thread do not read back (${problem}, record ${record})`);
    let whole = false;
    try {
      yield* readRecords(chunks(), () => events, damaged);
      whole = true;
    } finally {
      if (!over) {
        // Ended early: the thread drops the tape and removes its unfinished cache file.
        worker.postMessage('stop' satisfies DecodeRequest);
        while (!over && failure === undefined) await next();
      }
      if (gone || failure) await worker.terminate();
      else release(worker);
      if (!whole && job.partPath) rmSync(job.partPath, { force: true });
    }
  })();
  return { batches, progress: () => progress, cached: false };
}
