// `sluice sweep --queue redis://...`: submits the sweep as one BullMQ flow, watches it with a
// progress line and ETA on stderr, and writes the report once the parent has gathered every
// run. `--attach ID` watches a sweep submitted earlier (its submitter may have died: the sweep
// lives in Redis); `--cancel ID` cancels one.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import { systemClock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { buildSweepReport, SweepProgress, type RunOutcome, type SweepSpec } from '../report/index.js';
import {
  cancelSweep,
  checkServer,
  connect,
  MAX_STALLED,
  parseQueueUrl,
  submitSweep,
  SweepNotFoundError,
  uploadTape,
  watchSweep,
  type GatheredSweep,
  type PluginRef,
  type QueueAddress,
  type RunJobData,
  type SweepJobData,
  type TapeRef,
} from '../queue/index.js';
import type { QueuedOutcome } from './sweep-pool.js';
import { checkSweepId, fail, newSweepId, prepareSweep, sweepOutDir, writeRunReport, writeSweepReport, type PreparedSweep, type SweepCommandOptions } from './sweep-setup.js';

/** The plugins a run's config loads, each with the sha256 of the file here (null where there is none). */
export function pluginRefs(configText: string, cwd: string): PluginRef[] {
  const strategies = (parse(configText) as { strategies?: { use?: unknown }[] } | null)?.strategies;
  const uses = [...new Set((Array.isArray(strategies) ? strategies : []).map((s) => s?.use).filter((u): u is string => typeof u === 'string'))];
  return uses.map((use) => {
    const file = isAbsolute(use) ? use : resolve(cwd, use);
    return { use, sha256: existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : null };
  });
}

/** BullMQ's reason for a run it gave up on, said as what happened. */
export function lostReason(reason: string): string {
  return /stalled more than allowable limit/.test(reason)
    ? `the worker running it stopped ${MAX_STALLED + 1} times (killed, or out of memory); the queue gave up on it (${reason})`
    : `the queue gave up on it: ${reason}`;
}

/** One outcome per run, without the report a run carried back (that goes to runs/<index>/report.json). */
export function outcomesOf(gathered: GatheredSweep<QueuedOutcome>): Map<number, RunOutcome> {
  const outcomes = new Map<number, RunOutcome>();
  for (const r of gathered.results) {
    const { report: _report, ...outcome } = r.outcome;
    outcomes.set(r.index, outcome as RunOutcome);
  }
  for (const l of gathered.lost) outcomes.set(l.index, { status: 'failed', reason: lostReason(l.reason) });
  return outcomes;
}

/** The sweep as its parent job in Redis describes it. */
export function specOf(data: SweepJobData): SweepSpec {
  return { id: data.sweepId, config: data.config, tape: data.tape?.name ?? null, durationMs: data.durationMs, window: data.window, sample: data.sample, axes: data.axes, runs: data.runs };
}

export async function queueSweepCommand(opts: SweepCommandOptions): Promise<number> {
  if (opts.queue === undefined) return fail(`--${opts.attach !== undefined ? 'attach' : 'cancel'} needs --queue redis://HOST:PORT (where the sweep was submitted)`);
  let address: QueueAddress;
  try {
    address = parseQueueUrl(opts.queue);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return fail(err.message);
  }
  const id = opts.cancel ?? opts.attach;
  if (id !== undefined) {
    const bad = checkSweepId(id);
    if (bad) return fail(`${opts.cancel !== undefined ? '--cancel' : '--attach'}: ${bad}`);
  }
  try {
    const server = await checkServer(address);
    if (server.evictionPolicy !== null && server.evictionPolicy !== 'noeviction') {
      process.stderr.write(`warning: Redis at ${address.display} evicts keys under memory pressure (maxmemory-policy ${server.evictionPolicy}): a sweep's jobs could vanish; set maxmemory-policy noeviction\n`);
    }
  } catch (err) {
    return fail((err as Error).message);
  }
  try {
    if (opts.cancel !== undefined) return await cancel(address, opts.cancel);
    if (opts.attach !== undefined) return await watch(address, opts.attach, opts);
    const submitted = await submit(address, opts);
    if (submitted === undefined) return 1;
    return opts.detach ? 0 : await watch(address, submitted, opts, true);
  } catch (err) {
    if (err instanceof SweepNotFoundError) return fail(err.message);
    // Redis answered with an error (out of memory under noeviction, a read-only replica, ...).
    if (err instanceof Error && err.name === 'ReplyError') return fail(`Redis at ${address.display} refused: ${err.message}`);
    throw err;
  }
}

/** The parent's data and one child per run: what goes into Redis for a prepared sweep. */
export function sweepJobs(prepared: PreparedSweep, tape: TapeRef | null, cwd: string, now: number): { data: SweepJobData; jobs: RunJobData[] } {
  const { spec, runs } = prepared;
  const data: SweepJobData = { sweepId: spec.id, config: spec.config, tape, durationMs: spec.durationMs, window: spec.window, sample: spec.sample, axes: spec.axes, runs: spec.runs, submittedAt: now };
  const jobs = runs.map((run, index) => ({ sweepId: spec.id, index, label: run.label, configText: run.configText, tape, durationMs: spec.durationMs, window: spec.window, plugins: pluginRefs(run.configText, cwd) }));
  return { data, jobs };
}

async function submit(address: QueueAddress, opts: SweepCommandOptions): Promise<string | undefined> {
  const id = newSweepId();
  const prepared = await prepareSweep(opts, id);
  if (!prepared) return undefined;
  let tape: SweepJobData['tape'] = null;
  if (opts.tape) {
    const redis = connect(address, 'sluice-sweep-submit');
    try {
      const up = await uploadTape(redis, opts.tape);
      tape = up.tape;
      process.stderr.write(up.uploaded ? `uploaded ${tape.name} (${(tape.bytes / 1024 / 1024).toFixed(1)} MB, sha256 ${tape.sha256.slice(0, 12)})\n` : `${tape.name} is in Redis already (sha256 ${tape.sha256.slice(0, 12)})\n`);
    } finally {
      redis.disconnect();
    }
  }
  const { data, jobs } = sweepJobs(prepared, tape, process.cwd(), systemClock.now());
  await submitSweep(address, data, jobs);
  process.stderr.write(
    `sweep ${id}: ${jobs.length} runs submitted to ${address.display}\n` +
      `  re-attach: sluice sweep --queue ${address.display} --attach ${id}\n` +
      `  cancel:    sluice sweep --queue ${address.display} --cancel ${id}\n`,
  );
  return id;
}

const vanished = (id: string) => fail(`sweep ${id} vanished from Redis while it was watched (Redis restarted without its data, or someone removed it): its results are lost; submit it again`);

async function watch(address: QueueAddress, id: string, opts: SweepCommandOptions, submittedHere = false): Promise<number> {
  const progress = new SweepProgress(process.stderr, id, systemClock.now);
  const stop = () => {
    progress.note(`stopped watching; sweep ${id} goes on in Redis: re-attach with sluice sweep --queue ${address.display} --attach ${id}, or cancel it with --cancel ${id}`);
    process.exit(130);
  };
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    const end = await watchSweep<QueuedOutcome>(address, id, {
      isFailed: (o) => o.status !== 'ok',
      onProgress: (counts) => progress.update(counts),
      onRedis: (up, detail) =>
        progress.note(
          up
            ? `Redis at ${address.display} is back: watching sweep ${id} again`
            : `Redis at ${address.display} is unreachable (${detail}): sweep ${id} waits for it; nothing is lost if Redis keeps its data (Ctrl-C stops watching; re-attach later with --attach ${id})`,
        ),
      clock: systemClock,
    });
    progress.finish();
    const spec = specOf(end.data);
    if (end.kind === 'gone' && !end.cancelled) return vanished(id);
    const outcomes = end.kind === 'completed' ? outcomesOf(end.gathered) : new Map<number, RunOutcome>();
    const out = sweepOutDir(opts.out, id);
    if (end.kind === 'completed') for (const r of end.gathered.results) if (r.outcome.report) writeRunReport(out, r.index, r.outcome.report);
    const code = writeSweepReport(buildSweepReport(spec, outcomes), out, opts.rank);
    if (end.cancelled) process.stderr.write(`sweep ${id} was cancelled: the report lists the runs that finished before\n`);
    return end.cancelled ? 1 : code;
  } catch (err) {
    // Submitted a moment ago and not found: Redis lost it before the watch began.
    if (err instanceof SweepNotFoundError && submittedHere) return vanished(id);
    throw err;
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop);
  }
}

async function cancel(address: QueueAddress, id: string): Promise<number> {
  const r = await cancelSweep(address, id);
  process.stdout.write(
    `sweep ${id} cancelled: ${r.removed} runs removed before they started, ${r.running} running runs told to stop` +
      (r.deleted ? '; nothing had finished, so the sweep is deleted\n' : '; a watching submitter writes the report of the runs that finished\n'),
  );
  return 0;
}
