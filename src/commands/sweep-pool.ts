// Worker threads that run backtests, for local sweeps and for `sluice worker`. A thread takes
// one run after another: starting one (tsx, the whole module graph) costs about a second, as
// much as a short backtest. A thread that dies fails its run and is replaced; a run whose
// signal aborts has its thread terminated (a backtest cannot be interrupted from outside).
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { TapeWindow } from '../core/types.js';
import type { Report, RunOutcome } from '../report/index.js';

export interface SweepJob {
  configText: string;
  label: string;
  tapePath?: string;
  /** The tape's name in the report (the file name of tapePath when absent). */
  tapeName?: string;
  durationMs?: number;
  window?: TapeWindow;
  eventCacheDir?: string;
  cwd: string;
}

/** A run's outcome as a queued run carries it back: with its report, which the submitter writes beside the sweep's. */
export type QueuedOutcome = RunOutcome & { report?: Report };

/** What a thread answers: the outcome, and how long the backtest itself took (ms, measured in the thread). */
export interface ThreadAnswer {
  outcome: RunOutcome;
  ranMs: number;
  /** The run's whole backtest report, kept beside the sweep's (runs/<index>/report.json). */
  report?: Report;
}

// Built (bin/sluice.js), the worker is plain JavaScript; from the sources (tests, benches) a
// shim registers tsx in the thread first.
const SCRIPT = import.meta.url.endsWith('.ts') ? new URL('./sweep-worker.mjs', import.meta.url) : new URL('./sweep-worker.js', import.meta.url);

// V8 compiles a function with TurboFan, on its helper threads, once the function has run about
// 66 KB of bytecode (--interrupt-budget, V8 11.3's default). Runs on several threads at once
// compete with those compiles for the cores, and each thread compiles the same code again, so
// while such a pool is open functions are compiled later (400 KB): fewer compiles of code that
// is only lukewarm. A 2-thread sweep of 6 runs over the 1 h tape, from the build, fresh
// processes alternating with V8's default: median 13.4 -> 11.6 s wall, 14% less CPU
// (bench/RESULTS.md, Backtest). One thread alone is 9% slower with it (its compiles ran on an
// idle core), so a pool of one keeps V8's default. The flag is the process's: it is set back
// when the last such pool closes.
const V8_BUDGET = 67_584;
const PARALLEL_BUDGET = 400_000;
let parallelPools = 0;
let budget = V8_BUDGET;

function parallelTiering(open: boolean): void {
  parallelPools += open ? 1 : -1;
  const wanted = parallelPools > 0 ? PARALLEL_BUDGET : V8_BUDGET;
  if (wanted !== budget) setFlagsFromString(`--interrupt-budget=${(budget = wanted)}`);
}

/** The interrupt budget the pools set (V8's default while none of several threads is open). */
export function interruptBudget(): number {
  return budget;
}

export class ThreadPool {
  private readonly idle: Worker[] = [];
  private readonly waiters: (() => void)[] = [];
  private readonly busy = new Set<Worker>();
  private live = 0;
  private closed = false;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`a thread pool needs at least one thread, not ${size}`);
    if (size > 1) parallelTiering(true);
  }

  /** Runs the job on a free thread, waiting for one when all are busy. */
  async run(job: SweepJob, signal?: AbortSignal): Promise<ThreadAnswer> {
    if (signal?.aborted) return { outcome: { status: 'cancelled', reason: 'cancelled before it started' }, ranMs: 0 };
    const worker = await this.acquire();
    this.busy.add(worker);
    let alive = false;
    try {
      const answer = await runOn(worker, job, signal);
      alive = answer.alive;
      return answer.answer;
    } finally {
      this.busy.delete(worker);
      this.release(worker, alive);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.size > 1) parallelTiering(false);
    const all = [...this.idle.splice(0), ...this.busy];
    this.busy.clear();
    await Promise.all(all.map((w) => w.terminate()));
  }

  private async acquire(): Promise<Worker> {
    for (;;) {
      if (this.closed) throw new Error('the thread pool is closed');
      const ready = this.idle.pop();
      if (ready) return ready;
      if (this.live < this.size) {
        this.live++;
        return new Worker(SCRIPT);
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private release(worker: Worker, alive: boolean): void {
    if (alive && !this.closed) this.idle.push(worker);
    else {
      this.live--;
      void worker.terminate();
    }
    this.waiters.shift()?.();
  }
}

function runOn(worker: Worker, job: SweepJob, signal: AbortSignal | undefined): Promise<{ answer: ThreadAnswer; alive: boolean }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const done = (answer: ThreadAnswer, alive: boolean) => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      signal?.removeEventListener('abort', onAbort);
      resolve({ answer, alive });
    };
    const failed = (reason: string): ThreadAnswer => ({ outcome: { status: 'failed', reason }, ranMs: performance.now() - started });
    const onMessage = (answer: ThreadAnswer) => done(answer, true);
    const onError = (err: Error) => done(failed(`the worker thread failed: ${err.message}`), false);
    const onExit = (code: number) => done(failed(`the worker thread exited with code ${code}`), false);
    const onAbort = () => done({ outcome: { status: 'cancelled', reason: 'cancelled while running' }, ranMs: performance.now() - started }, false);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.postMessage(job);
  });
}
