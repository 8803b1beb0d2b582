// `sluice sweep`: every combination of `--sweep key=a,b,c` as its own backtest, on local worker
// threads, or with `--queue redis://...` through BullMQ to `sluice worker`s on any machine that
// reaches Redis (sweep-queue.ts). Either way the same sweep report goes to --out.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { amend } from '../core/amend.js';
import { systemClock } from '../core/clock.js';
import type { TapeWindow } from '../core/types.js';
import { buildSweepReport, SweepProgress, windowText, type RunOutcome } from '../report/index.js';
import { prepareEventCache, TapeFormatError } from '../tape/index.js';
import { holdoutPicks, holdoutProblem, holdoutSection } from './sweep-holdout.js';
import { ThreadPool } from './sweep-pool.js';
import { newSweepId, prepareSweep, RANKS, sweepOutDir, writeRunReport, writeSweepReport, type SweepCommandOptions } from './sweep-setup.js';

export type { SweepCommandOptions } from './sweep-setup.js';

/** Options that contradict each other, with what to write instead. */
export function sweepArgumentProblem(opts: SweepCommandOptions): string | undefined {
  if (opts.attach !== undefined && opts.cancel !== undefined) return 'give --attach ID or --cancel ID, not both';
  const existing = opts.attach !== undefined ? '--attach' : opts.cancel !== undefined ? '--cancel' : undefined;
  if (existing && (opts.config !== undefined || opts.tape !== undefined || (opts.sweep?.length ?? 0) > 0 || opts.durationMs !== undefined || opts.window !== undefined || opts.sample !== undefined)) {
    return `${existing} takes the sweep as it was submitted, from Redis: drop --config, --tape, --duration, --from, --to, --sweep and --sample`;
  }
  if (opts.sample !== undefined && opts.sample.count < 1) return '--sample must be at least 1 (how many of the grid\'s combinations run)';
  if (opts.detach && opts.queue === undefined) return '--detach needs --queue redis://HOST:PORT (a local sweep runs here and now)';
  if (opts.concurrency !== undefined && opts.concurrency < 1) return '--concurrency must be at least 1 (backtests at once on this machine)';
  if (opts.rank !== undefined && !RANKS.includes(opts.rank)) return `--rank ${String(opts.rank)}: rank by one of ${RANKS.join(', ')}`;
  if (opts.concurrency !== undefined && opts.queue !== undefined) return '--concurrency is for a local sweep; with --queue, give it to each `sluice worker`';
  return holdoutProblem(opts);
}

export async function sweepCommand(opts: SweepCommandOptions): Promise<number> {
  const problem = sweepArgumentProblem(opts);
  if (problem) {
    process.stderr.write(`${problem}\n`);
    return 1;
  }
  if (opts.queue !== undefined || opts.attach !== undefined || opts.cancel !== undefined) {
    const { queueSweepCommand } = await import('./sweep-queue.js');
    return queueSweepCommand(opts);
  }
  return localSweep(opts);
}

/** The sweep on this machine's worker threads: no Redis. */
async function localSweep(opts: SweepCommandOptions): Promise<number> {
  const prepared = await prepareSweep(opts, newSweepId());
  if (!prepared) return 1;
  const { spec, runs } = prepared;
  const out = sweepOutDir(opts.out, spec.id);
  const outcomes = new Map<number, RunOutcome>();
  const progress = new SweepProgress(process.stderr, spec.id, systemClock.now);
  const counts = { done: 0, failed: 0, total: runs.length };
  const finished = (index: number, outcome: RunOutcome) => {
    outcomes.set(index, outcome);
    counts.done++;
    if (outcome.status !== 'ok') counts.failed++;
    progress.update(counts);
  };
  progress.update(counts);
  let broken: string | undefined;
  if (opts.tape && opts.eventCacheDir) {
    // The tape is decoded once, here; every thread then reads the cached events. A tape broken
    // past its header fails every run with the reason, as it would on the queue.
    try {
      await prepareEventCache(opts.tape, opts.eventCacheDir);
    } catch (err) {
      if (!(err instanceof TapeFormatError)) throw err;
      broken = err.message;
    }
  }
  if (broken !== undefined) {
    runs.forEach((_, i) => finished(i, { status: 'failed', reason: broken }));
    progress.finish();
    return writeSweepReport(buildSweepReport(spec, outcomes), out, opts.rank);
  }
  const rank = opts.rank ?? 'pnl';
  const pool = new ThreadPool(Math.max(1, Math.min(opts.concurrency ?? availableParallelism(), runs.length)));
  try {
    const job = (index: number, window: TapeWindow | undefined) => ({ configText: runs[index]!.configText, label: runs[index]!.label, tapePath: opts.tape, durationMs: opts.durationMs, window, eventCacheDir: opts.eventCacheDir, cwd: process.cwd() });
    await Promise.all(
      runs.map(async (_, index) => {
        const { outcome, report } = await pool.run(job(index, opts.window));
        if (report) writeRunReport(out, index, report);
        finished(index, outcome);
      }),
    );
    progress.finish();
    const report = buildSweepReport(spec, outcomes);
    if (!opts.holdout) return writeSweepReport(report, out, rank);
    const picks = holdoutPicks(report, rank, opts.holdout.top);
    process.stderr.write(`holdout: the best ${picks.length} by ${rank} again over ${windowText(opts.holdout.window)}\n`);
    const held = new Map<number, RunOutcome>();
    await Promise.all(
      picks.map(async ({ index }) => {
        const { outcome, report: run } = await pool.run(job(index, opts.holdout!.window));
        if (run) writeRunReport(join(out, 'holdout'), index, run);
        held.set(index, outcome);
      }),
    );
    return writeSweepReport(amend(report, { holdout: holdoutSection(opts.holdout, rank, picks, held) }), out, rank);
  } finally {
    await pool.close();
  }
}
