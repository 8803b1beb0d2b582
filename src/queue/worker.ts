// The worker's side: takes runs from the runs queue (as many at once as its concurrency), hands
// each to `process` with the tape fetched by hash, and gathers finished sweeps (a parent job
// reads every child's result). BullMQ keeps a lock on each job it runs, renewed by this process's
// main thread while the backtest runs elsewhere (a worker thread); a worker killed mid-run stops
// renewing it, and another worker's stalled-job check puts the run back in the queue.
import { hostname } from 'node:os';
import { Worker, type Job } from 'bullmq';
import type { Clock } from '../core/clock.js';
import { connect, connectionProblem, watchConnection, type QueueAddress } from './connection.js';
import { fetchTape } from './tapes.js';
import { cancelKey, CANCEL_CHANNEL, PREFIX, RUNS_QUEUE, SWEEPS_QUEUE, type GatheredSweep, type RunJobData, type RunResult, type TapeRef } from './types.js';

/** A run whose workers die under it this many times more than once is given up (BullMQ fails it). */
export const MAX_STALLED = 2;

export interface RunContext {
  /** Aborts when the sweep is cancelled while the run goes on. */
  signal: AbortSignal;
  /** The run's tape as a local file (fetched once per machine), or undefined for a run without one. */
  tapePath(): Promise<string | undefined>;
}

export interface QueueWorkerOptions<O> {
  address: QueueAddress;
  concurrency: number;
  /** BullMQ's lock on a running job; a dead worker's runs go back to the queue within about twice this. */
  lockMs: number;
  tapeDir: string;
  process(data: RunJobData, ctx: RunContext): Promise<{ outcome: O; ranMs: number }>;
  failed(reason: string): O;
  cancelled(reason: string): O;
  /** One line per event worth telling an operator. */
  log(line: string): void;
  /** A short text for a finished run's log line. */
  describe(outcome: O): string;
  clock: Clock;
}

export interface QueueWorkerHandle {
  /** host:pid. */
  id: string;
  /** Stops taking runs; waits for those running unless `force` (then they go back to the queue when their lock expires). */
  close(force?: boolean): Promise<void>;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const isConnectionError = (err: unknown) => CONNECTION_CODES.has(connectionProblem(err)) || /Connection is closed|connect ETIMEDOUT/.test(String((err as Error)?.message));

/** The index at the end of a child's key (<prefix>:runs:<sweep>-<index>). */
export function runIndexOfKey(key: string): number {
  const m = /-(\d+)$/.exec(key);
  if (!m) throw new RangeError(`${key} is not a run's key`);
  return Number(m[1]);
}

export async function startQueueWorker<O>(opts: QueueWorkerOptions<O>): Promise<QueueWorkerHandle> {
  const id = `${hostname()}:${process.pid}`;
  const { address, log, clock } = opts;
  const redis = connect(address, 'sluice-worker');
  const subscriber = connect(address, 'sluice-worker-cancel');
  let up = true;
  watchConnection(redis, (isUp, detail) => {
    up = isUp;
    log(isUp ? `Redis at ${address.display} is back` : `Redis at ${address.display} is unreachable (${detail}): runs in progress go on and report when it is back; retrying`);
  });
  subscriber.on('error', () => undefined);

  const running = new Map<string, { sweepId: string; controller: AbortController }>();
  await subscriber.subscribe(CANCEL_CHANNEL);
  subscriber.on('message', (_channel: string, sweepId: string) => {
    for (const r of running.values()) if (r.sweepId === sweepId) r.controller.abort();
  });

  const tapes = new Map<string, Promise<string>>();
  const tapeOnce = (tape: TapeRef) => {
    let p = tapes.get(tape.sha256);
    if (!p) {
      p = fetchTape(redis, tape, opts.tapeDir, clock);
      tapes.set(tape.sha256, p);
      // A failed fetch (the tape expired) is tried again by the next run.
      p.catch(() => tapes.delete(tape.sha256));
    }
    return p;
  };

  const runOne = async (job: Job): Promise<RunResult<O>> => {
    const data = job.data as RunJobData;
    const startedAt = clock.now();
    const name = `run ${data.sweepId}/${data.index}`;
    const finish = (outcome: O, ranMs: number): RunResult<O> => {
      const finishedAt = clock.now();
      log(`${name} ${opts.describe(outcome)} in ${((finishedAt - startedAt) / 1000).toFixed(1)} s`);
      return { index: data.index, outcome, worker: id, startedAt, ranMs, finishedAt };
    };
    log(`${name} started: ${data.label}`);
    if ((await redis.exists(cancelKey(data.sweepId))) === 1) return finish(opts.cancelled('the sweep was cancelled before this run started'), 0);
    const controller = new AbortController();
    running.set(job.id!, { sweepId: data.sweepId, controller });
    try {
      const { outcome, ranMs } = await opts.process(data, { signal: controller.signal, tapePath: async () => (data.tape ? tapeOnce(data.tape) : undefined) });
      return finish(outcome, ranMs);
    } catch (err) {
      return finish(opts.failed(err instanceof Error ? err.message : String(err)), 0);
    } finally {
      running.delete(job.id!);
    }
  };

  const gather = async (job: Job): Promise<GatheredSweep<O>> => {
    const values = await job.getChildrenValues<RunResult<O>>();
    const failures = await job.getIgnoredChildrenFailures();
    log(`sweep ${job.id} gathered: ${Object.keys(values).length} results, ${Object.keys(failures).length} runs given up`);
    return {
      results: Object.values(values).sort((a, b) => a.index - b.index),
      lost: Object.entries(failures)
        .map(([key, reason]) => ({ index: runIndexOfKey(key), reason }))
        .sort((a, b) => a.index - b.index),
      gatheredAt: clock.now(),
    };
  };

  const common = { connection: address.options, prefix: PREFIX, lockDuration: opts.lockMs, stalledInterval: opts.lockMs, maxStalledCount: MAX_STALLED };
  const runs = new Worker(RUNS_QUEUE, runOne, { ...common, concurrency: opts.concurrency });
  const sweeps = new Worker(SWEEPS_QUEUE, gather, { ...common, concurrency: 1 });
  for (const [w, what] of [[runs, 'run'], [sweeps, 'sweep']] as const) {
    // Connection errors are told once by the watch above; anything else is worth a line.
    w.on('error', (err: Error) => {
      if (up && !isConnectionError(err)) log(`queue error: ${err.message}`);
    });
    w.on('stalled', (jobId: string) => log(`${what} ${what === 'run' ? jobId.replace(/-(\d+)$/, '/$1') : jobId} stalled (the worker running it stopped): back in the queue`));
    w.on('failed', (job: Job | undefined, err: Error) => log(`${what} ${job?.id ?? ''} failed in the queue: ${err.message}`));
  }
  await Promise.all([runs.waitUntilReady(), sweeps.waitUntilReady()]);

  return {
    id,
    close: async (force = false) => {
      await Promise.all([runs.close(force), sweeps.close(force)]);
      subscriber.disconnect();
      redis.disconnect();
    },
  };
}
