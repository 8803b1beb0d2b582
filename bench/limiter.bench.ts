// Limiter benchmarks, all measured in one run:
// (1) pacer overhead per job when capacity is free, against calling the job directly, and
//     against Bottleneck on every path (what BottleneckPacer would cost without its idle path);
// (2) exactness under a saturating burst: 500 jobs at 100 per 2000 ms, max starts in any
//     rolling 2 s window and achieved rate, against a naive fixed-refresh Bottleneck reservoir.
// Run: npx tsx bench/limiter.bench.ts   (replaces the "## Limiter" section of bench/RESULTS.md;
// --no-write only prints it). Takes about 40 s, most of it the two real-time bursts.
import { maxInRollingWindow } from '../test/fixtures/venue-server.js';
import { writeSection } from './results.js';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import Bottleneck from 'bottleneck';
import { ManualClock, systemClock } from '../src/core/clock.js';
import { BottleneckPacer, DEFAULT_SAFETY_MARGIN_MS, VirtualPacer } from '../src/limiter/index.js';

const us = (ms: number) => (ms * 1000).toFixed(1);
/** Sub-millisecond epoch time for start logs (Date.now has 1 ms steps). */
const preciseNow = () => performance.timeOrigin + performance.now();

function quantiles(samples: readonly number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: at(0.5), p99: at(0.99) };
}


async function perJob(n: number, warmup: number, run: () => Promise<unknown>) {
  for (let i = 0; i < warmup; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  return quantiles(samples);
}

const job = async () => 1;
const BIG = 1_000_000_000; // capacity that never runs out during the overhead runs

async function overhead() {
  const rows: { path: string; n: number; median: number; p99: number }[] = [];
  const N = 20_000;
  rows.push({ path: 'baseline: the job called directly', n: N, ...(await perJob(N, 2000, job)) });

  const live = new BottleneckPacer({ limits: { e: BIG } });
  rows.push({ path: 'BottleneckPacer.run, free capacity (idle path, no Bottleneck)', n: N, ...(await perJob(N, 2000, () => live.run('e', job))) });
  await live.stop();

  const clock = new ManualClock(0);
  const virtual = new VirtualPacer({ limits: { e: BIG }, clock });
  rows.push({ path: 'VirtualPacer.run on a ManualClock, free capacity', n: N, ...(await perJob(N, 2000, () => virtual.run('e', job))) });
  await virtual.stop();

  // What every job would cost if it went through Bottleneck (the design without an idle path).
  const bottleneck = new Bottleneck({ reservoir: BIG });
  const NB = 600;
  rows.push({ path: 'Bottleneck.schedule on every job (reservoir, free capacity)', n: NB, ...(await perJob(NB, 50, () => bottleneck.schedule(job))) });

  // Throughput when many jobs arrive at once with free capacity.
  const M = 2000;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: M }, () => bottleneck.schedule(job)));
  const bottleneckPerSecond = M / ((performance.now() - t0) / 1000);
  await bottleneck.stop();
  const many = new BottleneckPacer({ limits: { e: BIG } });
  const t1 = performance.now();
  await Promise.all(Array.from({ length: 100_000 }, () => many.run('e', job)));
  const pacerPerSecond = 100_000 / ((performance.now() - t1) / 1000);
  await many.stop();
  return { rows, bottleneckPerSecond, pacerPerSecond };
}

interface BurstResult {
  name: string;
  starts: number[];
  maxInWindow: number;
  ratio: number;
  seconds: number;
  /** For the exact pacers: how long after its slot came back each queued job started (jobs settle at once). */
  lateness?: { median: number; p99: number };
}

const LIMIT = 100;
const WINDOW = 2000;
const JOBS = 500;
/** The shipped venue.safetyMarginMs: a slot comes back WINDOW + MARGIN after its job settles. */
const MARGIN = DEFAULT_SAFETY_MARGIN_MS;
const SPAN = WINDOW + MARGIN;

/**
 * Achieved rate as a ratio of the limit: the first `limit` starts are a free burst; the rest
 * came at (n - limit) per (last - first) ms, compared with `limit` per window.
 */
function ratioOfLimit(starts: readonly number[]): number {
  const first = Math.min(...starts);
  const last = Math.max(...starts);
  return ((starts.length - LIMIT) / (last - first)) * (WINDOW / LIMIT);
}

function summarise(name: string, starts: number[], t0: number, span?: number): BurstResult {
  const sorted = [...starts].sort((a, b) => a - b);
  const result: BurstResult = { name, starts: sorted, maxInWindow: maxInRollingWindow(sorted, WINDOW), ratio: ratioOfLimit(sorted), seconds: (performance.now() - t0) / 1000 };
  if (span !== undefined) result.lateness = quantiles(sorted.slice(LIMIT).map((t, k) => t - (sorted[k]! + span)));
  return result;
}

async function burstBottleneckPacer(): Promise<BurstResult> {
  const pacer = new BottleneckPacer({ limits: { e: LIMIT }, windowMs: WINDOW, safetyMarginMs: MARGIN });
  const starts: number[] = [];
  const t0 = performance.now();
  await Promise.all(Array.from({ length: JOBS }, () => pacer.run('e', async () => void starts.push(preciseNow()))));
  await pacer.stop();
  return summarise(`BottleneckPacer (slot back ${WINDOW} + ${MARGIN} ms after each job settles)`, starts, t0, SPAN);
}

async function burstVirtual(): Promise<BurstResult> {
  const clock = new ManualClock(0);
  const pacer = new VirtualPacer({ limits: { e: LIMIT }, windowMs: WINDOW, safetyMarginMs: MARGIN, clock });
  const starts: number[] = [];
  const t0 = performance.now();
  const all = Promise.all(Array.from({ length: JOBS }, () => pacer.run('e', async () => void starts.push(clock.now()))));
  while (await clock.step());
  await all;
  await pacer.stop();
  return summarise('VirtualPacer on a ManualClock (same rule, virtual time)', starts, t0, SPAN);
}

/**
 * The same rule with a plain FIFO instead of Bottleneck's queue: VirtualPacer on the system
 * clock. For comparison only (its window reads the wall clock; the live pacer's slots come back
 * on monotonic timers).
 */
async function burstPlainFifo(): Promise<BurstResult> {
  const pacer = new VirtualPacer({ limits: { e: LIMIT }, windowMs: WINDOW, safetyMarginMs: MARGIN, clock: systemClock });
  const starts: number[] = [];
  const t0 = performance.now();
  await Promise.all(Array.from({ length: JOBS }, () => pacer.run('e', async () => void starts.push(preciseNow()))));
  await pacer.stop();
  return summarise('for comparison: same rule, plain FIFO queue (VirtualPacer on the system clock)', starts, t0, SPAN);
}

/** The approximate design: a reservoir of 100 refilled every 2000 ms; traffic arrives mid-interval. */
async function burstFixedRefresh(): Promise<BurstResult> {
  const limiter = new Bottleneck({ reservoir: LIMIT, reservoirRefreshAmount: LIMIT, reservoirRefreshInterval: WINDOW });
  await new Promise((r) => setTimeout(r, WINDOW * 0.75)); // the burst starts 1.5 s into an interval
  const starts: number[] = [];
  const t0 = performance.now();
  await Promise.all(Array.from({ length: JOBS }, () => limiter.schedule(async () => void starts.push(preciseNow()))));
  await limiter.stop();
  return summarise('naive Bottleneck reservoir, fixed refresh every 2000 ms', starts, t0);
}

async function main() {
  const started = new Date();
  const loadStart = loadavg()[0]!.toFixed(2);
  const { rows, bottleneckPerSecond, pacerPerSecond } = await overhead();
  const baseline = rows[0]!;
  const bursts = [await burstBottleneckPacer(), await burstPlainFifo(), await burstVirtual(), await burstFixedRefresh()];

  const cpu = cpus();
  const lines = [
    '## Limiter',
    '',
    `Measured ${started.toISOString().slice(0, 10)} on this machine (${cpu.length} cores, ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}); load average ${loadStart} at the start and ${loadavg()[0]!.toFixed(2)} at the end. Run: \`npx tsx bench/limiter.bench.ts\`.`,
    '',
    '### Overhead per job with free capacity (µs, job awaited one at a time)',
    '',
    '| path | jobs | median | p99 | median over baseline |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.path} | ${r.n} | ${us(r.median)} | ${us(r.p99)} | +${us(r.median - baseline.median)} |`),
    '',
    `Many jobs at once with free capacity: BottleneckPacer ${Math.round(pacerPerSecond)} jobs/s (100000 jobs); Bottleneck on every job ${Math.round(bottleneckPerSecond)} jobs/s (2000 jobs).`,
    '',
    `### Exactness: a burst of ${JOBS} jobs at ${LIMIT} per ${WINDOW} ms`,
    '',
    `Max in any rolling 2 s window must be ≤ 100. Ratio of limit: (jobs − 100) / (last start − first start) × 2000 / 100; the ${MARGIN} ms safety margin (venue.safetyMarginMs, shipped default) caps the exact pacers at ${WINDOW}/${SPAN} = ${(WINDOW / SPAN).toFixed(3)}. Late: how long after its slot came back a queued job started (µs).`,
    '',
    '| pacer | max in any rolling 2 s | ratio of limit | seconds | late median | late p99 |',
    '|---|---|---|---|---|---|',
    ...bursts.map((b) => `| ${b.name} | ${b.maxInWindow} | ${b.ratio.toFixed(3)} | ${b.seconds.toFixed(1)} | ${b.lateness ? us(b.lateness.median) : '–'} | ${b.lateness ? us(b.lateness.p99) : '–'} |`),
    '',
  ];
  const section = lines.join('\n');
  console.log(section);

  if (!process.argv.includes('--no-write')) console.log(`wrote the Limiter section of ${writeSection('Limiter', section)}`);
}

await main();
