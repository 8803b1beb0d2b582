// Issue 14's open regression, measured again: the two backtest figures the new layout made worse
// (a whole backtest of the dense tape from the event cache, and the peak heap of the 24 h
// backtest), in the tree before the redesign and in this one, each run in fresh processes,
// the two trees alternating (before, this, this, before, ...) so the machine's load falls on both.
// Run: git worktree add /tmp/old 19d4982 && (cd /tmp/old && npm_config_nodedir=/usr npm ci)
//      npx tsx bench/backtest-layout.bench.ts --before /tmp/old [--rounds 2] [--write]
// (--write replaces "## Backtests before and after the new layout (issue 14)" in bench/RESULTS.md.)
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { MemoryResult } from './fixtures/backtest-memory-child.js';
import type { RunJob, RunResult } from './fixtures/backtest-run-child.js';
import { benchTapes } from './fixtures/backtest-tapes.js';
import { writeSection } from './results.js';

const ROOT = resolve(import.meta.dirname, '..');
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const BEFORE = arg('--before');
if (!BEFORE) throw new Error('--before DIR: a worktree of the commit before the redesign (19d4982), with its node_modules');
const ROUNDS = Number(arg('--rounds') ?? 2);
/** Timed whole backtests per process (after a warm-up): the process's median is its figure. */
const RUNS = 3;
/** The quiet grid of bench/backtest.bench.ts: the 24 h rows measure what the tape costs. */
const QUIET = readFileSync(join(ROOT, 'bench/backtest.bench.ts'), 'utf8').match(/const QUIET = `([^`]*)`/)![1]!;

/** What bisecting the redesign's commits with CPU and sampling heap profiles found. */
const CAUSE = [
  'Why the new layout was slower and held more garbage (bisected over the redesign\'s commits with `--cpu-prof` and sampling heap profiles that keep what outlived the young generation; the 1 h backtest promoted 25 MB to the old generation before, 35 MB after):',
  '- 08be3dc moved a strategy output\'s intake into engine/intake.ts, called as `admit({ ...this.parts, pipeline, riskInputs, onRejected, stats }, out)` for every strategy output (each tick, market-data event and order update). On Node 20 (V8 11.3) an object spread followed by more members takes a slow runtime path (3-5 µs, where the same members spelled out take 0.1) whose objects outlive the young generation: 11 MB of the 1 h run\'s garbage that the young generation could not collect. The Engine now builds that object once, in its constructor (315af83).',
  '- The same pattern in p-retry, which copies its options on every venue call (`{...options}`, then fills in defaults): 13 µs a call and 13 MB of that garbage, before and after the redesign alike. The executor now passes every option, so nothing is added after the copy (about 1 µs).',
  '- What else this work removed on the backtest path: signing and checking signatures, writing and parsing JSON (the trusted simulator), BigInts per print, a closure and an object per fill, a closure per request or tape line (tsx names every closure it makes), JSON.parse of the tape\'s trade and depth answers, and an object per logged request.',
].join('\n');

const trees = [
  { name: 'before', root: resolve(BEFORE) },
  { name: 'after', root: ROOT },
];
const commit = (root: string) => execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const CACHE = mkdtempSync(join(tmpdir(), 'sluice-bench-layout-'));
process.on('exit', () => rmSync(CACHE, { recursive: true, force: true }));

function child<T>(script: string, job: object): Promise<T> {
  return new Promise((done, fail) => {
    const p = fork(script, [JSON.stringify(job)], { cwd: ROOT, execArgv: [...process.execArgv, '--expose-gc'] });
    p.once('message', (m) => done(m as T));
    p.once('exit', (code) => fail(new Error(`${script} exited with ${code}`)));
  });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const load = () => loadavg()[0]!.toFixed(1);
const loadBefore = load();

const dense = await benchTapes.dense();
const day = await benchTapes.day();
const speed = new Map<string, { events: number; cpuMs: number[]; wallMs: number[] }>();
const memory = new Map<string, MemoryResult[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
    console.log(`round ${round + 1}: ${tree.name} (${tree.root})`);
    const job: RunJob = { root: tree.root, tapePath: dense, cacheDir: join(CACHE, tree.name), runs: RUNS };
    const r = await child<RunResult>(join(ROOT, 'bench/fixtures/backtest-run-child.ts'), job);
    const s = speed.get(tree.name) ?? { events: r.events, cpuMs: [], wallMs: [] };
    s.cpuMs.push(median(r.cpuMs));
    s.wallMs.push(median(r.wallMs));
    speed.set(tree.name, s);
    // Each tree's own memory child: it reports the same figures in both layouts.
    const m = await child<MemoryResult>(join(tree.root, 'bench/fixtures/backtest-memory-child.ts'), { tapePath: day, configText: QUIET, root: tree.root });
    memory.set(tree.name, [...(memory.get(tree.name) ?? []), m]);
    console.log(`  dense from the cache ${Math.round(r.events / (median(r.cpuMs) / 1000))} events/s (CPU); 24 h peak heap ${mb(m.peakHeap)} MB`);
  }
}

const perS = (events: number, ms: number) => Math.round(events / (ms / 1000));
const rows = trees.map(({ name, root }) => {
  const s = speed.get(name)!;
  const m = memory.get(name)!;
  const list = (xs: number[], f: (x: number) => string) => xs.map(f).join(' / ');
  return `| ${name} (${commit(root)}) | ${list(s.cpuMs, (ms) => String(perS(s.events, ms)))} | ${list(s.wallMs, (ms) => String(perS(s.events, ms)))} | ${list(m.map((x) => x.peakHeap), mb)} | ${list(m.map((x) => x.liveHeap), mb)} | ${list(m.map((x) => x.retainedHeap), mb)} | ${list(m.map((x) => x.maxRss), mb)} |`;
});
const table = [
  '| tree | dense tape from the cache, events/s (CPU), per round | the same, wall | 24 h tape streamed: peak heap used, MB | most heap live after a major GC, MB | heap kept after the run, MB | peak RSS, MB |',
  '|---|---|---|---|---|---|---|',
  ...rows,
];
const sum = (name: string) => ({ cpu: median(speed.get(name)!.cpuMs), peak: median(memory.get(name)!.map((m) => m.peakHeap)) });
const [b, a] = [sum('before'), sum('after')];
const section = [
  '## Backtests before and after the new layout (issue 14)',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} on this machine (${cpus().length} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}); load average ${loadBefore} at the start and ${load()} at the end. Run: \`npx tsx bench/backtest-layout.bench.ts --before <worktree of 19d4982> --rounds ${ROUNDS} --write\`.`,
  `The two figures "The new layout (issue 14): before and after" found worse, each tree in fresh processes, alternating (${ROUNDS} rounds, the order reversed every round): a whole backtest of the dense tape from the event cache with the grid of config/backtest.yaml (each tree's own; median of ${RUNS} runs after a warm-up per process), and the 24 h tape streamed with the quiet grid (each tree's own bench/fixtures/backtest-memory-child.ts). Between the trees lie other changes too (issues 13 and 18 changed what the engine and the grid do), so the runs are not the same work to the order. After, the simulator's request log sits in typed arrays outside the JS heap (about 27 bytes a request, some 3.5 MB for the 24 h run's 116,000 requests): peak RSS counts it, the heap figures do not.`,
  '',
  ...table,
  '',
  `Medians: dense tape ${perS(speed.get('before')!.events, b.cpu)} -> ${perS(speed.get('after')!.events, a.cpu)} events/s (CPU), ${(b.cpu / a.cpu).toFixed(2)}x; 24 h peak heap ${mb(b.peak)} -> ${mb(a.peak)} MB.`,
  '',
  CAUSE,
  '',
].join('\n');
console.log(`\n${section}`);
if (process.argv.includes('--write')) console.log(`wrote ${writeSection('Backtests before and after the new layout \\(issue 14\\)', section)}`);
