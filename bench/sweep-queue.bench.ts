// Issue 15: the same 24-run sweep (the grid of config/backtest.yaml over a 1 h tape) run
//   (a) one after another in this process,
//   (b) on local worker threads (`sluice sweep` without --queue),
//   (c) through the queue (BullMQ on a real redis-server) with 1, then 2 `sluice worker`
//       processes (each with a cache of its own, as separate machines would have);
// the speed-ups, the queue's costs per job (submit to start, result to report), the queue's own
// ceiling (1,000 trivial runs through the same code), and from those a paper estimate of 1,000
// runs on 10 and 50 worker machines.
// Run: npx tsx bench/sweep-queue.bench.ts [--smoke] [--write]   (--smoke: 4 short runs, nothing
// written; --write replaces "## Distributed sweeps (issue 15)" in bench/RESULTS.md).
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { backtestOnce } from '../src/commands/backtest.js';
import { ThreadPool } from '../src/commands/sweep-pool.js';
import { prepareSweep } from '../src/commands/sweep-setup.js';
import { runFigures, type RunOutcome } from '../src/report/index.js';
import { prepareEventCache } from '../src/tape/index.js';
import { simTape } from './fixtures/backtest-tapes.js';
import { queueCeiling, queueSweep, type QueueRun } from './fixtures/sweep-queue-runs.js';
import { writeSection } from './results.js';

const ROOT = resolve(import.meta.dirname, '..');
const smoke = process.argv.includes('--smoke');
const THREADS = availableParallelism();
const AXES = smoke
  ? ['strategies.0.params.levels=2,3', 'strategies.0.params.spacingPct=0.02,0.05']
  : ['strategies.0.params.spacingPct=0.02,0.03,0.05,0.08', 'strategies.0.params.levels=2,3,5', 'strategies.0.params.requotePct=0.05,0.1'];
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const load = () => loadavg()[0]!.toFixed(1);
const loadBefore = load();

// The 1 h tape of bench/backtest.bench.ts (the simulator's density), generated once into the temp dir.
async function hourTape(): Promise<string> {
  if (smoke) return join(ROOT, 'backtest/tapes/sample.jsonl.gz');
  const dir = join(tmpdir(), 'sluice-bench-backtest');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'sim-1h.v1.jsonl.gz');
  if (!existsSync(path)) {
    await simTape(`${path}.part`, 3600);
    renameSync(`${path}.part`, path);
  }
  return path;
}

const work = mkdtempSync(join(tmpdir(), 'sluice-bench-sweepq-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const tape = await hourTape();
const cache = join(work, 'events');
const prepared = (await prepareSweep({ config: join(ROOT, 'config/backtest.yaml'), tape, sweep: AXES }, 'bench'))!;
const runs = prepared.runs;
console.log(`${runs.length} runs over ${tape} (${(statSync(tape).size / 1024 / 1024).toFixed(1)} MB)`);
// The events are decoded once before (a) and (b), as `sluice sweep` does before its threads start.
await prepareEventCache(tape, cache);

// (a) one after another in this process.
const seqStart = performance.now();
const sequential: RunOutcome[] = [];
const seqEach: number[] = [];
for (const run of runs) {
  const t = performance.now();
  const r = await backtestOnce({ configText: run.configText, source: run.label, cwd: ROOT, tapePath: tape, eventCacheDir: cache }, false);
  sequential.push(r ? { status: 'ok', figures: runFigures(r.report) } : { status: 'failed', reason: 'refused' });
  seqEach.push(performance.now() - t);
}
const seqMs = performance.now() - seqStart;
console.log(`one after another: ${s(seqMs)} (median run ${s(median(seqEach))})`);

// (b) local worker threads, one per core.
const pool = new ThreadPool(THREADS);
const thrStart = performance.now();
const threaded = await Promise.all(runs.map(async (run) => (await pool.run({ configText: run.configText, label: run.label, tapePath: tape, eventCacheDir: cache, cwd: ROOT })).outcome));
const thrMs = performance.now() - thrStart;
await pool.close();
console.log(`worker threads (${THREADS}): ${s(thrMs)}`);

// (c) through the queue, 1 and 2 worker processes.
const viaQueue: QueueRun[] = [];
for (const workers of smoke ? [1, 2] : [1, 2]) {
  const q = await queueSweep({ prepared, tape, workers, dir: join(work, `queue-${workers}`), root: ROOT });
  viaQueue.push(q);
  console.log(`queue, ${workers} worker process${workers > 1 ? 'es' : ''}: ${s(q.wallMs)} (submit ${ms(q.submitMs)}, result to report ${ms(q.resultToReportMs)})`);
}
const same = [threaded, ...viaQueue.map((q) => q.outcomes)].every((o) => JSON.stringify(o) === JSON.stringify(sequential)) && sequential.every((o) => o.status === 'ok');
if (!same) {
  // A failed run (a plugin the threads cannot load, a tape they cannot read) would time nothing.
  const odd = [sequential, threaded, ...viaQueue.map((q) => q.outcomes)].flat().find((o) => o.status !== 'ok');
  console.error(`the figures differ between the ways of running the sweep${odd?.status === 'failed' ? `; a run failed: ${odd.reason}` : ''}: nothing is written`);
  process.exit(1);
}

// The queue's own ceiling: trivial runs through the same submit, worker and gather code.
const CEILING_RUNS = smoke ? 100 : 1000;
const ceiling = await queueCeiling({ prepared, runs: CEILING_RUNS, concurrency: 50, dir: join(work, 'ceiling'), outcome: sequential[0] });
console.log(`queue ceiling: ${CEILING_RUNS} trivial runs: add ${ms(ceiling.addMs)}, through ${ms(ceiling.throughMs)} (${(CEILING_RUNS / (ceiling.throughMs / 1000)).toFixed(0)} runs/s), gather and report ${ms(ceiling.resultToReportMs)}`);

// ---------- the paper estimate ----------
const q2 = viaQueue[1]!;
const lanes = 2; // a machine like this one: 2 cores, `sluice worker --concurrency 2` (measured as 2 processes)
const perRunOnLane = (q2.wallMs - q2.submitMs - q2.resultToReportMs) / (runs.length / lanes);
const firstRunExtra = median(q2.firstRunExtraMs);
const estimate = (machines: number, n = 1000) => {
  const rounds = Math.ceil(n / (machines * lanes));
  const submit = ceiling.addMs * (n / CEILING_RUNS) + q2.uploadMs;
  return { rounds, ms: submit + firstRunExtra + rounds * perRunOnLane + ceiling.resultToReportMs * (n / CEILING_RUNS) };
};
const oneMachine = (1000 / runs.length) * thrMs;
const scaleRows = [1, 10, 50].map((m) => ({ m, ...estimate(m) }));

const row = (name: string, wall: number, note = '') => `| ${name} | ${s(wall)} | **${(seqMs / wall).toFixed(2)}x** | ${note} |`;
const section = [
  '## Distributed sweeps (issue 15)',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} on this machine (${cpus().length} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, redis-server from Debian on loopback); load average ${loadBefore} at the start and ${load()} at the end (other work shares the machine). Run: \`npx tsx bench/sweep-queue.bench.ts --write\`.`,
  `The sweep: config/backtest.yaml's grid, \`${AXES.map((a) => `--sweep ${a}`).join(' ')}\` = ${runs.length} runs, each over a 1 h tape at the simulator's density (bench/fixtures/backtest-tapes.ts). The same figures came out every way: ${same ? 'yes' : '**NO**'}. Each queued run is a child of one BullMQ flow; the workers are \`sluice worker --concurrency 1\` processes on this machine, each with an empty cache of its own (it fetches the tape from Redis and decodes it, as a new machine would); the submitter is this process, through the same code as \`sluice sweep --queue\`.`,
  '',
  '| how | wall | speed-up over one after another | |',
  '|---|---|---|---|',
  row('one after another, in one process', seqMs, `median run ${s(median(seqEach))}`),
  row(`local worker threads (${THREADS})`, thrMs, '`sluice sweep` without --queue'),
  ...viaQueue.map((q) => row(`queue, ${q.workers} worker process${q.workers > 1 ? 'es' : ''}`, q.wallMs, `submit to report; ${q.perWorker.map((n) => `${n} runs`).join(' / ')} per worker`)),
  '',
  '### What the queue costs per job',
  '',
  '| cost | 1 worker | 2 workers |',
  '|---|---|---|',
  `| submit: upload the tape (${(statSync(tape).size / 1024 / 1024).toFixed(1)} MB, once) + add the flow of ${runs.length} | ${viaQueue.map((q) => `${ms(q.uploadMs)} + ${ms(q.submitMs - q.uploadMs)}`).join(' | ')} |`,
  `| submit to start: the flow handed to Redis to the first run's processor starting on a worker | ${viaQueue.map((q) => ms(q.firstStartMs)).join(' | ')} |`,
  `| not the queue: the backtest itself, in the worker's thread (median; ${s(median(seqEach))} one after another in one process) | ${viaQueue.map((q) => s(median(q.ranMs))).join(' | ')} |`,
  `| job to job on a worker: a run's result sent to the next run's processor starting (median; the queue's dispatch) | ${viaQueue.map((q) => ms(median(q.pickupMs))).join(' | ')} |`,
  `| in the worker around the backtest (cancel check, plugin hash, thread hand-off), median | ${viaQueue.map((q) => ms(median(q.inWorkerMs))).join(' | ')} |`,
  `| a worker's first run: fetch the tape from Redis, decode it, start a thread (more than later runs, median of workers) | ${viaQueue.map((q) => ms(median(q.firstRunExtraMs))).join(' | ')} |`,
  `| result to report: the last run's result sent to report.json and report.html written (the parent gathers on a worker; the submitter hears it) | ${viaQueue.map((q) => ms(q.resultToReportMs)).join(' | ')} |`,
  '',
  `The queue's own ceiling, measured with ${CEILING_RUNS} runs that return at once through the same submit, worker (one process, 50 at once) and gather code: adding the flow ${ms(ceiling.addMs)} (${ms(ceiling.addMs / CEILING_RUNS)} per run), every run through ${ms(ceiling.throughMs)} (${(CEILING_RUNS / (ceiling.throughMs / 1000)).toFixed(0)} runs/s), gathering ${CEILING_RUNS} results and writing the report ${ms(ceiling.resultToReportMs)}.`,
  '',
  '### 1,000 runs on 10 and 50 machines, on paper',
  '',
  `From the costs above: machines like this one (2 cores, 2 runs at once), each run taking what it took here through the queue with 2 workers (${s(perRunOnLane)} a run on each of the 2 lanes, the dispatch included), plus the submit (the flow's add cost per run x 1,000, one tape upload), one first-run cost (every machine fetches and decodes the tape at the same time) and the gather of 1,000 results. Not measured: the network (a 1 h tape is ${(statSync(tape).size / 1024 / 1024).toFixed(1)} MB, a 24 h one about 63 MB: 0.5 s per machine on 1 Gbit/s, 25 s for 50 machines fetching from one Redis at once) and machines of other speeds.`,
  '',
  '| machines | rounds of runs | estimated wall | vs one machine on local threads (' + s(oneMachine) + ') |',
  '|---|---|---|---|',
  ...scaleRows.map((r) => `| ${r.m} | ${r.rounds} | ${s(r.ms)} | ${(oneMachine / r.ms).toFixed(1)}x |`),
  '',
  `Reading: the queue's cost per job (${ms(median(q2.pickupMs))} dispatch and ${ms(median(q2.inWorkerMs))} around the backtest, medians with 2 workers) is ${((100 * (median(q2.pickupMs) + median(q2.inWorkerMs))) / median(seqEach)).toFixed(2)}% of a run here (${s(median(seqEach))}); its ceiling (${(CEILING_RUNS / (ceiling.throughMs / 1000)).toFixed(0)} runs/s) is ${((CEILING_RUNS / (ceiling.throughMs / 1000)) / ((50 * lanes) / (perRunOnLane / 1000))).toFixed(0)} times the ${((50 * lanes) / (perRunOnLane / 1000)).toFixed(1)} runs/s 50 such machines would finish. What does not shrink with more machines: each machine's first run (the tape fetched and decoded: ${ms(firstRunExtra)} here), the last round (runs do not split), and with 1,000 runs the add and the gather (${ms(ceiling.addMs * (1000 / CEILING_RUNS))} and ${ms(ceiling.resultToReportMs * (1000 / CEILING_RUNS))}). On this 2-core machine the local rows compete with each other's helper threads (see the Backtest section's sweep table), so the speed-ups measured here are not what separate machines give: the paper estimate takes one machine's measured throughput and multiplies it.`,
  '',
].join('\n');
console.log(`\n${section}`);
if (process.argv.includes('--write') && !smoke) console.log(`wrote ${writeSection('Distributed sweeps \\(issue 15\\)', section)}`);
process.exit(0);
