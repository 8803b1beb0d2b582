// `sluice worker --queue redis://... [--concurrency N]`: runs the backtests of distributed sweeps
// on this machine, N at once on worker threads, for as long as it runs. Tapes come from Redis by
// content hash and are kept under --cache-dir with their decoded events, so a tape is fetched and
// decoded once per machine. Plugins load from this machine's working directory: a run whose
// plugin file differs from the submitter's fails with that reason instead of testing other code.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { systemClock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import type { RunOutcome } from '../report/index.js';
import { checkServer, parseQueueUrl, startQueueWorker, type PluginRef, type QueueAddress } from '../queue/index.js';
import { defaultEventCacheDir, prepareEventCache, TapeFormatError } from '../tape/index.js';
import { ThreadPool, type QueuedOutcome } from './sweep-pool.js';

export interface WorkerCommandOptions {
  queue: string;
  concurrency?: number;
  /** Tapes go to DIR/tapes, their decoded events to DIR/events. */
  cacheDir?: string;
  /** BullMQ's job lock: a killed worker's runs are back in the queue within about twice this. */
  lockMs?: number;
}

/** Why this machine would not run the plugins the submitter meant, or undefined when it would. */
export function pluginProblem(plugins: readonly PluginRef[], cwd: string): string | undefined {
  for (const p of plugins) {
    if (p.sha256 === null) continue;
    const file = isAbsolute(p.use) ? p.use : resolve(cwd, p.use);
    if (!existsSync(file)) return `the plugin ${p.use} is not on this worker (looked for ${file}): run every worker from a checkout holding the submitter's plugins`;
    const here = createHash('sha256').update(readFileSync(file)).digest('hex');
    if (here !== p.sha256) return `the plugin ${p.use} differs on this worker (sha256 ${here.slice(0, 12)} here, ${p.sha256.slice(0, 12)} on the submitter): deploy the same plugin files to every worker`;
  }
  return undefined;
}

const describe = (o: RunOutcome) => (o.status === 'ok' ? `ok: pnl ${o.figures.pnl ?? '-'}, fills ${o.figures.fills}` : `${o.status}: ${o.reason.split('\n').join(' ')}`);

export async function workerCommand(opts: WorkerCommandOptions): Promise<number> {
  let address: QueueAddress;
  try {
    address = parseQueueUrl(opts.queue);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
  const concurrency = opts.concurrency ?? availableParallelism();
  if (concurrency < 1) {
    process.stderr.write('--concurrency must be at least 1 (backtests run at once on this machine)\n');
    return 1;
  }
  const lockMs = opts.lockMs ?? 30_000;
  if (lockMs < 1000) {
    process.stderr.write('--lock-ms must be at least 1000: a lock shorter than a second is lost to ordinary pauses and the run is taken twice\n');
    return 1;
  }
  try {
    await checkServer(address);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
  const root = opts.cacheDir ?? dirname(defaultEventCacheDir());
  const eventCacheDir = join(root, 'events');
  const log = (line: string) => void process.stderr.write(`${new Date(systemClock.now()).toISOString()} ${line}\n`);
  const pool = new ThreadPool(concurrency);
  // A tape is decoded into the event cache once per machine, before its first run; a tape that
  // cannot be decoded fails each of its runs with the same reason, at once.
  const decoded = new Map<string, Promise<string | undefined>>();
  const decodeOnce = (path: string) => {
    let p = decoded.get(path);
    if (!p) {
      p = prepareEventCache(path, eventCacheDir).then(
        () => undefined,
        (err: unknown) => {
          if (err instanceof TapeFormatError) return err.message;
          decoded.delete(path);
          throw err;
        },
      );
      decoded.set(path, p);
    }
    return p;
  };
  const failed = (reason: string): RunOutcome => ({ status: 'failed', reason });
  const worker = await startQueueWorker<QueuedOutcome>({
    address,
    concurrency,
    lockMs,
    tapeDir: join(root, 'tapes'),
    clock: systemClock,
    log,
    describe,
    failed,
    cancelled: (reason) => ({ status: 'cancelled', reason }),
    process: async (data, ctx) => {
      const problem = pluginProblem(data.plugins, process.cwd());
      if (problem) return { outcome: failed(problem), ranMs: 0 };
      const tapePath = await ctx.tapePath();
      if (tapePath) {
        const broken = await decodeOnce(tapePath);
        // The tape's own name, not its cache file's, so the message reads as it would locally.
        if (broken) return { outcome: failed(broken.split(tapePath).join(data.tape!.name)), ranMs: 0 };
      }
      const job = { configText: data.configText, label: data.label, tapePath, tapeName: data.tape?.name, durationMs: data.durationMs ?? undefined, window: data.window, eventCacheDir, cwd: process.cwd() };
      const { outcome, ranMs, report } = await pool.run(job, ctx.signal);
      // The report (a few kB) rides back with the result, so the submitter keeps it beside the
      // sweep's: a failed run's too (a strategy disabled mid-run), as a local sweep keeps it.
      return { outcome: report ? { ...outcome, report } : outcome, ranMs };
    },
  });
  log(`worker ${worker.id} on ${address.display}: ${concurrency} runs at once, cache ${root}; waiting for runs`);
  let stopping = 0;
  await new Promise<void>((resolveStop) => {
    const stop = (signal: string) => {
      stopping++;
      // The first signal lets running backtests finish; a second leaves them to another worker.
      const force = stopping > 1;
      log(force ? `${signal} again: stopping now; runs in progress go back to the queue when their lock expires` : `${signal}: finishing the runs in progress, taking no new ones (${signal} again stops at once)`);
      void worker.close(force).finally(resolveStop);
      if (force) resolveStop();
    };
    process.on('SIGINT', () => stop('SIGINT')).on('SIGTERM', () => stop('SIGTERM'));
  });
  await pool.close();
  log('worker stopped');
  return 0;
}
