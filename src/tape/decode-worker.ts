// A first run's decoding on a thread of its own (decode-thread.ts starts it and keeps it for the
// next): the tape read and decoded, its answers written as cache records, the cache file
// written, and each chunk of records posted to the main thread, which reads the events from it
// while this decodes on. One tape at a time. When the job says where, the same pass collects the
// tape's recorded incidents and writes them once the tape is read to its end (incidents.ts).
import { parentPort } from 'node:worker_threads';
import { CacheChunks, openCacheWriter } from './cache-file.js';
import { TapeFormatError } from './format.js';
import { collecting, IncidentCollector, writeIncidents } from './incidents.js';
import { streamMarketEvents } from './market.js';
import { openTape } from './reader.js';
import { CHUNKS_AHEAD, type DecodeJob, type DecodeMessage, type DecodeRequest } from './decode-thread.js';

const port = parentPort!;
/** Chunks the main thread has room for: it sends 'more' as it takes one, 'stop' when its run ends early. */
let room = 0;
let stopped = false;
let wake: (() => void) | undefined;
port.on('message', (m: DecodeRequest) => {
  if (typeof m === 'object') {
    room = m.job.ahead ?? CHUNKS_AHEAD;
    stopped = false;
    void decode(m.job);
    return;
  }
  if (m === 'stop') stopped = true;
  else room++;
  wake?.();
  wake = undefined;
});

async function post(message: DecodeMessage & { bytes: ArrayBuffer }): Promise<void> {
  while (room === 0 && !stopped) await new Promise<void>((r) => (wake = r));
  if (stopped) return;
  room--;
  port.postMessage(message, [message.bytes]);
}

async function decode(job: DecodeJob): Promise<void> {
  const writer = job.cachePath === undefined || job.partPath === undefined ? undefined : openCacheWriter(job.cachePath, job.partPath);
  let complete = false;
  const chunks = new CacheChunks();
  const incidents = job.incidentsPath === undefined ? undefined : new IncidentCollector();
  try {
    const tape = await openTape(job.tapePath);
    for await (const batch of streamMarketEvents(incidents ? collecting(tape.calls, incidents) : tape.calls)) {
      if (stopped) return;
      chunks.put(batch);
      const chunk = chunks.full();
      if (!chunk) continue;
      writer?.write(chunk);
      await post({ kind: 'chunk', bytes: chunk.buffer as ArrayBuffer, progress: tape.progress() });
    }
    const bytes = chunks.end();
    writer?.write(bytes);
    // On disk under its own name before the main thread reads the last events.
    writer?.commit();
    // Every line read: a tape that fails or a job that stops leaves none.
    if (incidents) writeIncidents(job.incidentsPath!, incidents.done());
    complete = true;
    await post({ kind: 'end', bytes: bytes.buffer as ArrayBuffer, events: chunks.count, progress: 1 });
  } catch (err) {
    // The events before the failure first, as an in-process decoding gives them before it throws.
    await post({ kind: 'chunk', bytes: chunks.rest().buffer as ArrayBuffer, progress: 1 });
    const failed: DecodeMessage =
      err instanceof TapeFormatError
        ? { kind: 'failed', message: err.message, file: err.file, line: err.line, problem: err.message.slice(`${err.file}:${err.line}: `.length) }
        : { kind: 'failed', message: err instanceof Error ? err.message : String(err) };
    if (!stopped) port.postMessage(failed);
  } finally {
    if (!complete) writer?.abort();
    if (stopped) port.postMessage({ kind: 'stopped' } satisfies DecodeMessage);
  }
}
