// The submitter's side of a distributed sweep: one BullMQ flow per sweep (a parent job in the
// sweeps queue, one child per parameter set in the runs queue), watched until the parent has
// gathered every child's result, re-attachable by the sweep's id, and cancellable.
//
// Children carry ignoreDependencyOnFailure: a run BullMQ gives up on (its worker died under it
// more often than maxStalledCount allows) is recorded on the parent with the reason and does
// not hold up the others. A run that fails inside the backtest is no BullMQ failure at all: it
// completes with a failed outcome. Completed children are removed at once (their values live
// in the parent), so Redis holds a finished sweep's results once.
import { FlowProducer, Job, Queue, QueueEvents } from 'bullmq';
import type { Clock } from '../core/clock.js';
import { connect, watchConnection, type QueueAddress } from './connection.js';
import { cancelKey, CANCEL_CHANNEL, KEEP_SECONDS, PREFIX, RUNS_QUEUE, runJobId, SWEEPS_QUEUE, type GatheredSweep, type RunJobData, type RunResult, type SweepJobData } from './types.js';

export class SweepNotFoundError extends Error {
  constructor(id: string, address: QueueAddress) {
    super(`no sweep ${id} on ${address.display}: check the id (printed when it was submitted), or it finished more than ${KEEP_SECONDS / 86400} days ago, or Redis lost its data`);
    this.name = 'SweepNotFoundError';
  }
}

const quiet = () => undefined;

/** Adds the sweep as one flow. The ids are the sweep's id and <id>-<index>, so nothing is added twice. */
export async function submitSweep(address: QueueAddress, data: SweepJobData, runs: readonly RunJobData[]): Promise<void> {
  const producer = new FlowProducer({ connection: address.options, prefix: PREFIX });
  producer.on('error', quiet);
  try {
    await producer.add({
      name: 'sweep',
      queueName: SWEEPS_QUEUE,
      data,
      opts: { jobId: data.sweepId, removeOnComplete: { age: KEEP_SECONDS }, removeOnFail: { age: KEEP_SECONDS } },
      children: runs.map((run) => ({
        name: 'run',
        queueName: RUNS_QUEUE,
        data: run,
        opts: { jobId: runJobId(data.sweepId, run.index), removeOnComplete: true, removeOnFail: { age: KEEP_SECONDS }, ignoreDependencyOnFailure: true },
      })),
    });
  } finally {
    await producer.close();
  }
}

export interface SweepCountsSeen {
  done: number;
  failed: number;
  total: number;
}

export interface WatchOptions<O> {
  /** Whether an outcome counts as a failed run (the queue does not read outcomes). */
  isFailed: (outcome: O) => boolean;
  onProgress: (counts: SweepCountsSeen) => void;
  /** The connection went down (with why) or came back. */
  onRedis: (up: boolean, detail: string) => void;
  clock: Clock;
  /** Longest wait between two looks when no event arrives (events can be missed while Redis is down). */
  pollMs?: number;
}

export type WatchEnd<O> =
  | { kind: 'completed'; data: SweepJobData; gathered: GatheredSweep<O>; cancelled: boolean }
  /** The sweep vanished while watched: cancelled with nothing left running, or Redis lost its data. */
  | { kind: 'gone'; data: SweepJobData; cancelled: boolean };

/**
 * Watches the sweep until its parent has gathered every child's result. Commands wait while
 * Redis is down (the connection retries), so a restart pauses this and nothing is lost if Redis
 * keeps its data. Throws SweepNotFoundError for an id Redis does not hold.
 */
export async function watchSweep<O>(address: QueueAddress, id: string, opts: WatchOptions<O>): Promise<WatchEnd<O>> {
  const queue = new Queue(SWEEPS_QUEUE, { connection: address.options, prefix: PREFIX });
  const runEvents = new QueueEvents(RUNS_QUEUE, { connection: address.options, prefix: PREFIX });
  const sweepEvents = new QueueEvents(SWEEPS_QUEUE, { connection: address.options, prefix: PREFIX });
  const redis = connect(address, 'sluice-sweep-watch');
  queue.on('error', quiet);
  runEvents.on('error', quiet);
  sweepEvents.on('error', quiet);
  watchConnection(redis, opts.onRedis);
  let wake: () => void = quiet;
  const nudge = ({ jobId }: { jobId: string }) => {
    if (jobId === id || jobId.startsWith(`${id}-`)) wake();
  };
  for (const e of [runEvents, sweepEvents]) for (const name of ['completed', 'failed', 'removed'] as const) e.on(name, nudge);
  try {
    const first = await Job.fromId(queue, id);
    if (!first) throw new SweepNotFoundError(id, address);
    const data = first.data as SweepJobData;
    const total = data.runs.length;
    for (;;) {
      const job = await Job.fromId(queue, id);
      const cancelled = (await redis.exists(cancelKey(id))) === 1;
      if (!job) return { kind: 'gone', data, cancelled };
      const state = await job.getState();
      if (state === 'completed' || state === 'failed') {
        // Read again: the job may have finished after the copy above was read.
        const finished = await Job.fromId(queue, id);
        if (!finished) return { kind: 'gone', data, cancelled };
        if (state === 'failed') throw new Error(`sweep ${id} could not gather its results: ${finished.failedReason}`);
        const gathered = finished.returnvalue as GatheredSweep<O>;
        // The last runs may have finished since the last look: the final count comes from the gathered set.
        opts.onProgress({ done: gathered.results.length + gathered.lost.length, failed: gathered.results.filter((r) => opts.isFailed(r.outcome)).length + gathered.lost.length, total });
        return { kind: 'completed', data, gathered, cancelled };
      }
      const values = await job.getChildrenValues<RunResult<O>>();
      const counts = await job.getDependenciesCount({ ignored: true, failed: true });
      const lost = (counts.ignored ?? 0) + (counts.failed ?? 0);
      const results = Object.values(values);
      opts.onProgress({ done: results.length + lost, failed: results.filter((r) => opts.isFailed(r.outcome)).length + lost, total });
      await new Promise<void>((resolve) => {
        wake = resolve;
        void opts.clock.sleep(opts.pollMs ?? 2000).then(resolve);
      });
      wake = quiet;
    }
  } finally {
    redis.disconnect();
    await Promise.all([queue.close(), runEvents.close(), sweepEvents.close()]);
  }
}

export interface CancelReport {
  /** Runs removed before any worker took them. */
  removed: number;
  /** Runs that were running: their workers stop them. */
  running: number;
  /** The sweep had nothing left running and was deleted from Redis. */
  deleted: boolean;
}

/**
 * Cancels a sweep: flags it (workers skip its runs and stop those running, told by pub/sub),
 * removes the runs no worker has taken, and deletes the sweep when nothing of it is running.
 * Runs already finished keep their results, which a watching submitter reports.
 */
export async function cancelSweep(address: QueueAddress, id: string): Promise<CancelReport> {
  const queue = new Queue(SWEEPS_QUEUE, { connection: address.options, prefix: PREFIX });
  const redis = connect(address, 'sluice-sweep-cancel');
  queue.on('error', quiet);
  redis.on('error', quiet);
  try {
    const job = await Job.fromId(queue, id);
    if (!job) throw new SweepNotFoundError(id, address);
    // The flag first, so no worker starts a run of it from here on; the runs no worker has taken
    // are removed; only then are the running ones told to stop (told first, their workers would
    // take the next runs at once and skip them one by one before the removal).
    await redis.set(cancelKey(id), '1', 'EX', KEEP_SECONDS);
    const before = await job.getDependenciesCount({ unprocessed: true });
    await job.removeUnprocessedChildren();
    const after = await job.getDependenciesCount({ unprocessed: true });
    await redis.publish(CANCEL_CHANNEL, id);
    const running = after.unprocessed ?? 0;
    const removed = (before.unprocessed ?? 0) - running;
    const state = await job.getState();
    // Nothing running and no finished run to report: nothing is left to gather.
    const processed = await job.getDependenciesCount({ processed: true, ignored: true });
    const deleted = running === 0 && (processed.processed ?? 0) + (processed.ignored ?? 0) === 0 && state !== 'active';
    if (deleted) await job.remove({ removeChildren: true });
    return { removed, running, deleted };
  } finally {
    redis.disconnect();
    await queue.close();
  }
}
