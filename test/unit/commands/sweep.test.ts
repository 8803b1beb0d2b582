import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { d } from '../../../src/core/decimal.js';
import { ConfigError } from '../../../src/core/errors.js';
import { oneLine, paramKinds, parseSweep, resolveAxes, rowOf, sweepRuns, sweepTable } from '../../../src/commands/sweep.js';
import { holdoutPicks, holdoutSection } from '../../../src/commands/sweep-holdout.js';
import { checkSweepId, holdoutTable, newSweepId, rankedTable, withoutUnusedSections } from '../../../src/commands/sweep-setup.js';
import { buildSweepReport } from '../../../src/report/index.js';
import { loadStrategies, type StrategyEntry } from '../../../src/strategy/index.js';
import { sweepArgumentProblem } from '../../../src/commands/sweep-command.js';
import { lostReason, outcomesOf, pluginRefs, specOf, sweepJobs } from '../../../src/commands/sweep-queue.js';
import { pluginProblem } from '../../../src/commands/worker.js';
import type { RunOutcome } from '../../../src/report/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const GRID = readFileSync(join(ROOT, 'strategies/grid/index.ts'));
const gridSha = createHash('sha256').update(GRID).digest('hex');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const BASE = `mode: paper
# the grid
strategies:
  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { spacingPct: "0.02", levels: 3 } }
  - { id: grid2, use: strategies/grid/index.ts, symbols: [ETHUSDT] }
  - { id: mine, use: strategies/not-here.ts, symbols: [BTCUSDT] }
alerts: { webhookUrl: "https://hooks.example/T0KEN-in-the-path" }
credentials: { file: /etc/sluice/key }
record: { path: tapes/x.jsonl }
`;

describe('sweep axes', () => {
  it('refuses a value given twice, or a key swept twice, saying what to write instead', () => {
    expect(() => parseSweep('strategies.0.params.levels=3,5,3')).toThrow(/--sweep: "strategies.0.params.levels=3,5,3" lists 3 twice; give each value once/);
    const axes = [parseSweep('strategies.0.params.levels=3'), parseSweep('strategies.0.params.levels=5')];
    expect(() => sweepRuns(BASE, axes)).toThrow(ConfigError);
    expect(() => sweepRuns(BASE, axes)).toThrow(/strategies.0.params.levels is swept twice; give all its values in one --sweep strategies.0.params.levels=a,b,c/);
  });

  it('keeps each run\'s parameters beside its label, the last axis varying fastest', () => {
    const runs = sweepRuns(BASE, [parseSweep('strategies.0.params.levels=3,5'), parseSweep('strategies.0.params.spacingPct=0.02,0.05')]);
    expect(runs.map((r) => r.params)).toEqual([
      { 'strategies.0.params.levels': '3', 'strategies.0.params.spacingPct': '0.02' },
      { 'strategies.0.params.levels': '3', 'strategies.0.params.spacingPct': '0.05' },
      { 'strategies.0.params.levels': '5', 'strategies.0.params.spacingPct': '0.02' },
      { 'strategies.0.params.levels': '5', 'strategies.0.params.spacingPct': '0.05' },
    ]);
    expect((parse(runs[3]!.configText) as { strategies: { params: unknown }[] }).strategies[0]!.params).toEqual({ spacingPct: '0.05', levels: 5 });
  });

  it('--sample: that many distinct combinations, in grid order, the same ones for the same seed; the whole grid when it asks for as many', () => {
    const axes = [parseSweep('strategies.0.params.levels=2,3,4,5'), parseSweep('strategies.0.params.spacingPct=0.01,0.02,0.03,0.04,0.05')];
    const grid = sweepRuns(BASE, axes).map((r) => r.label);
    const drawn = (seed: number, count = 6) => sweepRuns(BASE, axes, new Map(), { count, seed }).map((r) => r.label);
    const first = drawn(1);
    expect(first).toHaveLength(6);
    expect(new Set(first).size).toBe(6);
    // Grid order: each drawn run's place in the grid rises.
    const places = first.map((l) => grid.indexOf(l));
    expect(places.every((p) => p >= 0)).toBe(true);
    expect(places).toEqual([...places].sort((a, b) => a - b));
    expect(drawn(1)).toEqual(first);
    expect(drawn(2)).not.toEqual(first);
    // Every combination can be drawn: one at a time over 200 seeds reaches all 20.
    expect(new Set(Array.from({ length: 200 }, (_, seed) => drawn(seed, 1)[0])).size).toBe(20);
    expect(drawn(1, 20)).toEqual(grid);
    expect(drawn(1, 50)).toEqual(grid);
    // The config of a drawn run is that combination's.
    const run = sweepRuns(BASE, axes, new Map(), { count: 6, seed: 1 })[0]!;
    expect(run.configText).toBe(sweepRuns(BASE, axes)[grid.indexOf(run.label)]!.configText);
  });
});

describe('sweep values typed by the plugin schema', () => {
  const TYPED = `strategies:
  - { id: t, use: test/fixtures/plugins/typed-params.ts, symbols: [BTCUSDT] }
  - { id: g, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { levels: 2 } }
`;
  const paramsOf = (text: string, i = 0) => (parse(text) as { strategies: { params?: Record<string, unknown> }[] }).strategies[i]!.params;

  it('a z.number() gets a number, a decimalParam a string, booleans and enums their own, keys absent from the YAML too', async () => {
    const axes = ['strategies.0.params.count=0,3', 'strategies.0.params.size=0,3,8', 'strategies.0.params.aggressive=true', 'strategies.0.params.side=SELL', 'strategies.0.params.nested.ratio=0.5'].map(parseSweep);
    const kinds = await paramKinds(TYPED, axes, ROOT);
    expect(Object.fromEntries(kinds)).toEqual({
      'strategies.0.params.count': 'number',
      'strategies.0.params.size': 'string',
      'strategies.0.params.aggressive': 'boolean',
      'strategies.0.params.side': 'string',
      'strategies.0.params.nested.ratio': 'number',
    });
    const runs = sweepRuns(TYPED, axes, kinds);
    expect(runs).toHaveLength(6);
    expect(paramsOf(runs[5]!.configText)).toEqual({ count: 3, size: '8', aggressive: true, side: 'SELL', nested: { ratio: 0.5 } });
    // Every run's params are what the plugin takes: none fails with "expected string, received number".
    for (const run of runs) {
      const strategies = (parse(run.configText) as { strategies: Record<string, unknown>[] }).strategies.map((e) => ({ enabled: true, market: 'spot', everyMs: 1000, params: {}, ...e }) as StrategyEntry);
      await expect(loadStrategies(strategies, ROOT)).resolves.toHaveLength(2);
    }
  });

  it('the issue\'s case: a decimal param not in the YAML, swept with bare numbers, and quoted values', async () => {
    const axes = [parseSweep('strategies.1.params.spacingPct=0,3,8'), parseSweep(`strategies.1.params.levels='4',"5"`)];
    const runs = sweepRuns(TYPED, axes, await paramKinds(TYPED, axes, ROOT));
    expect(runs.map((r) => paramsOf(r.configText, 1))).toEqual([
      { levels: 4, spacingPct: '0' },
      { levels: 5, spacingPct: '0' },
      { levels: 4, spacingPct: '3' },
      { levels: 5, spacingPct: '3' },
      { levels: 4, spacingPct: '8' },
      { levels: 5, spacingPct: '8' },
    ]);
  });

  it('text the schema cannot take stays text, for the plugin to refuse by name; core keys keep the old rule', async () => {
    const axes = [parseSweep('strategies.0.params.count=many'), parseSweep('engine.marketDataEveryMs=500')];
    const kinds = await paramKinds(TYPED, axes, ROOT);
    expect([...kinds.keys()]).toEqual(['strategies.0.params.count']);
    const [run] = sweepRuns(TYPED, axes, kinds);
    expect(paramsOf(run!.configText)).toEqual({ count: 'many' });
    expect(parse(run!.configText)).toMatchObject({ engine: { marketDataEveryMs: 500 } });
  });

  it("a strategy's exits: percentages as quoted decimals, whole or not, on a base without exits; cooldownMs as a number", async () => {
    const axes = [parseSweep('strategies.0.exits.stopLossPct=1,2.5'), parseSweep('strategies.0.exits.cooldownMs=60000')];
    const kinds = await paramKinds(TYPED, axes, ROOT);
    expect(Object.fromEntries(kinds)).toEqual({ 'strategies.0.exits.stopLossPct': 'string', 'strategies.0.exits.cooldownMs': 'number' });
    const runs = sweepRuns(TYPED, axes, kinds);
    expect(runs.map((r) => (parse(r.configText) as { strategies: Array<{ exits: unknown }> }).strategies[0]!.exits)).toEqual([
      { stopLossPct: '1', cooldownMs: 60000 },
      { stopLossPct: '2.5', cooldownMs: 60000 },
    ]);
    expect(runs[0]!.configText).toContain('stopLossPct: "1"');
  });

  it("a strategy's loss limit: lossLimit.daily as a quoted decimal, whole or not", async () => {
    const axes = [parseSweep('strategies.0.lossLimit.daily=100,250.5')];
    const kinds = await paramKinds(TYPED, axes, ROOT);
    expect(Object.fromEntries(kinds)).toEqual({ 'strategies.0.lossLimit.daily': 'string' });
    const runs = sweepRuns(TYPED, axes, kinds);
    expect(runs.map((r) => (parse(r.configText) as { strategies: Array<{ lossLimit: unknown }> }).strategies[0]!.lossLimit)).toEqual([{ daily: '100' }, { daily: '250.5' }]);
    expect(runs[0]!.configText).toContain('daily: "100"');
  });
});

describe('what a run carries', () => {
  it('drops the sections a backtest never uses: alerts (a webhook token), credentials, recording', () => {
    const text = withoutUnusedSections(BASE);
    expect(text).not.toContain('T0KEN');
    expect(text).not.toContain('/etc/sluice/key');
    expect(text).not.toContain('tapes/x.jsonl');
    expect(parse(text)).toEqual({ mode: 'paper', strategies: (parse(BASE) as { strategies: unknown }).strategies });
  });

  it('carries no comment, wherever it was, and keeps every value and the structure', () => {
    const commented = `# SLUICE_API_SECRET=secret-in-a-comment-1
mode: paper # secret-in-a-comment-2
# secret-in-a-comment-3
strategies:
  # secret-in-a-comment-4
  - id: grid1 # secret-in-a-comment-5
    use: strategies/grid/index.ts
    symbols: [BTCUSDT, # secret-in-a-comment-6
      ETHUSDT]
    params: { spacingPct: "0.02", note: "a # in a value stays", # secret-in-a-comment-7
      levels: 3 }
    everyMs: # secret-in-a-comment-8
      1000
  # secret-in-a-comment-9
sim: &sim
  seed: 7 # secret-in-a-comment-10
engine: { summaryEveryMs: 60000 }
journal:
  path: |
    not # a comment: block text
# secret-in-a-comment-11
`;
    const text = withoutUnusedSections(commented);
    expect(text).not.toMatch(/secret-in-a-comment/);
    expect(parse(text)).toEqual(parse(commented));
    // Each run's config, the job data a queued sweep puts in Redis, is made from it.
    const [run] = sweepRuns(text, [parseSweep('strategies.0.params.levels=5')]);
    expect(run!.configText).not.toMatch(/secret-in-a-comment|#(?! in a value| a comment)/);
  });

  it('a queued sweep carries its tape window in the sweep and in every run', () => {
    const window = { from: Date.UTC(2026, 0, 1, 0, 10), to: Date.UTC(2026, 0, 1, 0, 20) };
    const spec = { id: 'sw1', config: 'base.yaml', tape: 'sample.jsonl.gz', durationMs: null, window, axes: [{ key: 'strategies.0.params.levels', values: ['3', '5'] }], runs: [] };
    const runs = sweepRuns(withoutUnusedSections(BASE), [parseSweep('strategies.0.params.levels=3,5')]);
    const { data, jobs } = sweepJobs({ spec, runs }, null, ROOT, 0);
    expect(data.window).toEqual(window);
    expect(jobs.map((j) => j.window)).toEqual([window, window]);
  });

  it("a queued random search carries what was drawn, so an attached watcher's report says so", () => {
    const sample = { count: 2, seed: 9, of: 6 };
    const spec = { id: 'sw2', config: 'base.yaml', tape: null, durationMs: 60_000, sample, axes: [{ key: 'strategies.0.params.levels', values: ['2', '3', '4', '5', '6', '7'] }], runs: [] };
    const runs = sweepRuns(withoutUnusedSections(BASE), [parseSweep('strategies.0.params.levels=2,3,4,5,6,7')], new Map(), { count: 2, seed: 9 });
    const { data } = sweepJobs({ spec, runs }, null, ROOT, 0);
    expect(data.sample).toEqual(sample);
    expect(buildSweepReport(specOf(data), new Map()).sweep.sample).toEqual(sample);
  });

  it('names each plugin once, with the hash of the file the submitter has', () => {
    expect(pluginRefs(BASE, ROOT)).toEqual([
      { use: 'strategies/grid/index.ts', sha256: gridSha },
      { use: 'strategies/not-here.ts', sha256: null },
    ]);
  });

  it('a worker refuses a plugin that differs from the submitter\'s or that it does not have', () => {
    const here = mkdtempSync(join(tmpdir(), 'sluice-plugins-'));
    dirs.push(here);
    const refs = [{ use: 'strategies/grid/index.ts', sha256: gridSha }];
    expect(pluginProblem(refs, ROOT)).toBeUndefined();
    expect(pluginProblem([{ use: 'strategies/not-here.ts', sha256: null }], ROOT)).toBeUndefined();
    expect(pluginProblem(refs, here)).toBe(`the plugin strategies/grid/index.ts is not on this worker (looked for ${join(here, 'strategies/grid/index.ts')}): run every worker from a checkout holding the submitter's plugins`);
    const edited = join(here, 'grid.ts');
    writeFileSync(edited, `${GRID.toString()}\n// edited\n`);
    const other = createHash('sha256').update(readFileSync(edited)).digest('hex');
    expect(pluginProblem([{ use: edited, sha256: gridSha }], ROOT)).toBe(
      `the plugin ${edited} differs on this worker (sha256 ${other.slice(0, 12)} here, ${gridSha.slice(0, 12)} on the submitter): deploy the same plugin files to every worker`,
    );
  });
});

describe('gathered results', () => {
  const ok: RunOutcome = { status: 'ok', figures: { pnl: d('1.5'), pnlPct: 0.1, fees: d('0.2'), fills: 4, winRate: 0.5, maxDrawdown: d('0.3'), maxDrawdownPct: 0.02, sharpe: 1.2, ordersSent: 9 } };

  it('become one outcome per run; a run the queue gave up on is failed with what happened', () => {
    const outcomes = outcomesOf({
      results: [
        { index: 0, outcome: ok, worker: 'a:1', startedAt: 1, ranMs: 1, finishedAt: 2 },
        { index: 2, outcome: { status: 'failed', reason: 'bad' }, worker: 'b:2', startedAt: 1, ranMs: 1, finishedAt: 2 },
      ],
      lost: [{ index: 1, reason: 'job stalled more than allowable limit' }],
      gatheredAt: 3,
    });
    expect([...outcomes.keys()].sort()).toEqual([0, 1, 2]);
    expect(outcomes.get(1)).toEqual({ status: 'failed', reason: 'the worker running it stopped 3 times (killed, or out of memory); the queue gave up on it (job stalled more than allowable limit)' });
    expect(lostReason('Missing lock for job 7')).toBe('the queue gave up on it: Missing lock for job 7');
  });

  it('print as table rows', () => {
    expect(rowOf('levels=3', ok)).toEqual({ label: 'levels=3', pnl: '1.5', fees: '0.2', fills: 4, winRate: 0.5, maxDrawdown: '0.3', sharpe: 1.2, ordersSent: 9 });
    // A spot buy's fee taken in the base coin shows beside the quote's.
    expect(rowOf('levels=4', { status: 'ok', figures: { ...ok.figures, fees: d('0'), feesOther: { BTC: d('0.00001328') } } } as RunOutcome).fees).toBe('0 + 0.00001328 BTC');
    expect(rowOf('levels=0', { status: 'failed', reason: 'levels: too small' }).error).toBe('levels: too small');
    expect(rowOf('levels=5', { status: 'cancelled', reason: 'cancelled while running' }).error).toBe('cancelled (cancelled while running)');
  });
});

describe('the printed table', () => {
  const figures = (pnl: string, drawdown: string, sharpe: number | null, fills: number): RunOutcome => ({
    status: 'ok',
    figures: { pnl: d(pnl), pnlPct: 0, fees: d('0'), fills, winRate: null, maxDrawdown: d(drawdown), maxDrawdownPct: 0, sharpe, ordersSent: fills },
  });
  const report = buildSweepReport(
    { id: 's1', config: 'c.yaml', tape: null, durationMs: 60_000, axes: [{ key: 'x', values: ['0', '1', '2', '3'] }], runs: ['0', '1', '2', '3'].map((v, index) => ({ index, label: `x=${v}`, params: { x: v } })) },
    new Map<number, RunOutcome>([
      [0, figures('1', '5', 0.5, 10)],
      [1, { status: 'failed', reason: 'c.yaml has 2 problems:\n  - strategies[0].params.x: Invalid input: expected string, received number\n  - strategies[0].params.y: unknown key' }],
      [2, figures('3', '9', 0.1, 2)],
      [3, figures('-2', '1', null, 30)],
    ]),
  );
  const order = (text: string) => text.split('\n').slice(3).map((l) => /^#(\d+)/.exec(l)![1]);

  it('ranks runs by the chosen figure, best first, failed runs last, one line per run', () => {
    expect(rankedTable(report, 'pnl').split('\n')[0]).toBe('ranked by PnL, highest first');
    expect(order(rankedTable(report, 'pnl'))).toEqual(['2', '0', '3', '1']);
    expect(order(rankedTable(report, 'drawdown'))).toEqual(['3', '0', '2', '1']);
    expect(order(rankedTable(report, 'sharpe'))).toEqual(['0', '2', '3', '1']);
    expect(order(rankedTable(report, 'fills'))).toEqual(['3', '0', '2', '1']);
    const failed = rankedTable(report, 'pnl').split('\n').at(-1)!;
    expect(failed).toMatch(/^#1 x=1 +failed: c\.yaml has 2 problems: strategies\[0\]\.params\.x: Invalid input: expected string, received number strategies\[0\]\.params\.y: unknown key$/);
    // report.json keeps the whole reason.
    expect(report.runs[1]).toMatchObject({ status: 'failed', reason: expect.stringContaining('\n  - strategies[0].params.y') });
  });

  it('the holdout: the best runs in sample by the rank asked for, and their figures out of sample beside their in-sample PnL', () => {
    const picks = holdoutPicks(report, 'pnl', 2);
    expect(picks.map((e) => e.index)).toEqual([2, 0]);
    // Fewer finished runs than asked for: only those; a failed run is never picked.
    expect(holdoutPicks(report, 'drawdown', 5).map((e) => e.index)).toEqual([3, 0, 2]);
    const window = { from: Date.UTC(2026, 0, 2) };
    const section = holdoutSection({ window, top: 2 }, 'pnl', picks, new Map([[2, figures('-0.5', '1', 0.2, 4)]]));
    expect(section.runs.map((e) => [e.index, e.status])).toEqual([[2, 'ok'], [0, 'cancelled']]);
    const lines = holdoutTable(report, section).split('\n');
    expect(lines[0]).toBe("out of sample: the best 2 by PnL, highest first, again over 2026-01-02T00:00:00.000Z to the tape's end");
    expect(lines[3]).toMatch(/^#2 x=2 \(in sample: pnl 3\) +-0\.5 +0 +4 /);
    expect(lines[4]).toMatch(/^#0 x=0 \(in sample: pnl 1\) +failed: cancelled \(not run over the holdout\)$/);
  });

  it('cuts a long reason to one readable line', () => {
    const long = oneLine(`first line\n${'x'.repeat(400)}`);
    expect(long).not.toContain('\n');
    expect(long.length).toBe(160);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('sweep ids', () => {
  it('never read as an integer, which BullMQ refuses as a job id, and pass the id check', () => {
    for (let i = 0; i < 2000; i++) {
      const id = newSweepId();
      expect(String(Number.parseInt(id, 10))).not.toBe(id);
      expect(checkSweepId(id)).toBeUndefined();
    }
  });
});

describe('sluice sweep arguments', () => {
  it.each([
    [{ attach: 'a1', cancel: 'a1', queue: 'redis://h' }, 'give --attach ID or --cancel ID, not both'],
    [{ attach: 'a1', queue: 'redis://h', config: 'c.yaml' }, '--attach takes the sweep as it was submitted, from Redis: drop --config, --tape, --duration, --from, --to, --sweep and --sample'],
    [{ cancel: 'a1', queue: 'redis://h', sweep: ['a=1'] }, '--cancel takes the sweep as it was submitted, from Redis: drop --config, --tape, --duration, --from, --to, --sweep and --sample'],
    [{ config: 'c.yaml', detach: true }, '--detach needs --queue redis://HOST:PORT (a local sweep runs here and now)'],
    [{ config: 'c.yaml', concurrency: 0 }, '--concurrency must be at least 1 (backtests at once on this machine)'],
    [{ config: 'c.yaml', concurrency: 2, queue: 'redis://h' }, '--concurrency is for a local sweep; with --queue, give it to each `sluice worker`'],
    [{ config: 'c.yaml', rank: 'profit' as never }, '--rank profit: rank by one of pnl, drawdown, sharpe, fills'],
    [{ config: 'c.yaml', sample: { count: 0, seed: 1 } }, "--sample must be at least 1 (how many of the grid's combinations run)"],
    [{ attach: 'a1', queue: 'redis://h', sample: { count: 2, seed: 1 } }, '--attach takes the sweep as it was submitted, from Redis: drop --config, --tape, --duration, --from, --to, --sweep and --sample'],
    [{ config: 'c.yaml', queue: 'redis://h', window: { to: 10 }, holdout: { window: { from: 10 }, top: 3 } }, "--holdout-from/--holdout-to run on a local sweep (without --queue); for a queued sweep, sweep the best runs' values again with --from/--to set to the holdout"],
    [{ config: 'c.yaml', window: { to: 10 }, holdout: { window: { from: 10 }, top: 0 } }, '--holdout-top must be at least 1 (how many of the best runs go again over the holdout)'],
    [
      { config: 'c.yaml', holdout: { window: { from: Date.UTC(2026, 0, 2) }, top: 3 } },
      "the holdout (2026-01-02T00:00:00.000Z to the tape's end) overlaps the part of the tape the sweep ranks its runs on (the tape's start to the tape's end), so it would not be out of sample: give --from/--to for the part to rank on, ending before --holdout-from or starting after --holdout-to",
    ],
    [
      { config: 'c.yaml', window: { from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 3) }, holdout: { window: { from: Date.UTC(2026, 0, 2) }, top: 3 } },
      "the holdout (2026-01-02T00:00:00.000Z to the tape's end) overlaps the part of the tape the sweep ranks its runs on (2026-01-01T00:00:00.000Z to 2026-01-03T00:00:00.000Z), so it would not be out of sample: give --from/--to for the part to rank on, ending before --holdout-from or starting after --holdout-to",
    ],
  ])('%j: %s', (opts, problem) => {
    expect(sweepArgumentProblem(opts)).toBe(problem);
  });

  it('accepts what makes sense', () => {
    expect(sweepArgumentProblem({ config: 'c.yaml', sweep: ['a=1,2'], concurrency: 2 })).toBeUndefined();
    expect(sweepArgumentProblem({ config: 'c.yaml', sweep: ['a=1,2'], queue: 'redis://h', detach: true })).toBeUndefined();
    expect(sweepArgumentProblem({ queue: 'redis://h', attach: 'a1', out: 'dir' })).toBeUndefined();
    // A holdout before or after the ranked part, touching it or not.
    expect(sweepArgumentProblem({ config: 'c.yaml', window: { to: 10 }, holdout: { window: { from: 10 }, top: 3 } })).toBeUndefined();
    expect(sweepArgumentProblem({ config: 'c.yaml', window: { from: 20 }, holdout: { window: { from: 5, to: 20 }, top: 1 } })).toBeUndefined();
  });
});

describe('the printed table labels Sharpe (annualised only over 7 days)', () => {
  const run = (sharpe: number | null, sharpeBasis: string | null): RunOutcome => ({
    status: 'ok',
    figures: { pnl: d('0.01333333'), pnlPct: 0, fees: d('0.40004'), fills: 3, winRate: null, maxDrawdown: d('0.5'), maxDrawdownPct: 0, sharpe, sharpeBasis, ordersSent: 3 },
  });

  it('in the head when every run\'s Sharpe is alike, with money as the report wrote it', () => {
    const table = sweepTable([rowOf('x=1', run(-0.3521, 'per 10 s sample')), rowOf('x=2', run(0.1, 'per 10 s sample')), rowOf('x=3', { status: 'failed', reason: 'bad' })]);
    const [head, , first] = table.split('\n');
    expect(head).toMatch(/ sharpe \(per 10 s sample\) +orders$/);
    expect(first).toMatch(/^x=1 +0\.01333333 +0\.40004 +3 +- +0\.5 +-0\.35 +3$/);
  });

  it('a failed run\'s reason runs on past the columns without widening them', () => {
    const reason = 'strategy t1 was disabled at 2026-01-01T00:00:09.244Z (9 s into the run): onTick threw: bug in my requote';
    const table = sweepTable([rowOf('x=1', run(0.1, 'per 10 s sample')), rowOf('x=2', { status: 'failed', reason })]);
    const [head, , first, failed] = table.split('\n');
    expect(head).toMatch(/^run  pnl {9}fees {5}fills/);
    expect(first).toMatch(/^x=1  0\.01333333  0\.40004  3 /);
    expect(failed).toBe(`x=2  failed: ${reason}`);
  });

  it('with a column of the recorded venue troubles each run met, when the tape held any', () => {
    const met = (played: number): RunOutcome => {
      const r = run(0.1, 'per 10 s sample') as Extract<RunOutcome, { status: 'ok' }>;
      return { status: 'ok', figures: { ...r.figures, recordedIncidents: { played, onTape: 5 } } };
    };
    const table = sweepTable([rowOf('x=1', met(3)), rowOf('x=2', met(5)), rowOf('x=3', { status: 'failed', reason: 'bad' })]).split('\n');
    expect(table[0]).toMatch(/ orders +troubles met$/);
    expect(table[2]).toMatch(/ 3 +3 of 5$/);
    expect(table[3]).toMatch(/ 3 +5 of 5$/);
    expect(table[4]).toBe('x=3  failed: bad');
    // None held: no column.
    expect(sweepTable([rowOf('x=1', run(0.1, 'per 10 s sample'))]).split('\n')[0]).toMatch(/ orders$/);
  });

  it('in each cell when they differ', () => {
    const table = sweepTable([rowOf('a', run(1.2, 'annualised')), rowOf('b', run(-0.35, 'per 10 s sample')), rowOf('c', run(null, null))]);
    expect(table.split('\n')[0]).toMatch(/ sharpe +orders$/);
    expect(table).toContain('1.20 annualised');
    expect(table).toContain('-0.35 per 10 s sample');
  });
});

describe('sweep axes into strategies, checked before anything runs', () => {
  const config = `mode: paper
strategies:
  - { id: demo, use: strategies/grid/index.ts, enabled: false, symbols: [BTCUSDT] }
  - { id: mine, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { levels: 3 } }
`;
  const axes = (...specs: string[]) => resolveAxes(config, specs.map(parseSweep), ROOT);
  const refusal = async (spec: string) => ((await axes(spec).catch((e: unknown) => e)) as ConfigError).problems[0]!.message;

  it('a strategy may be named by its id: the axis then points at its index', async () => {
    const [axis] = await axes('strategies.mine.params.levels=2,4');
    expect(axis!.path).toEqual(['strategies', 1, 'params', 'levels']);
    expect(axis!.key).toBe('strategies.mine.params.levels');
    const runs = sweepRuns(config, [axis!], await paramKinds(config, [axis!], ROOT));
    expect(runs.map((r) => (parse(r.configText) as { strategies: { params: { levels: number } }[] }).strategies[1]!.params.levels)).toEqual([2, 4]);
  });

  it('a disabled strategy, an id or index that is not there, and a param its plugin does not have are refused, with the fix', async () => {
    expect(await refusal('strategies.0.params.levels=2,4')).toBe('strategies.0 (demo) is disabled (enabled: false): sweeping it changes nothing; sweep an enabled strategy or enable it');
    expect(await refusal('strategies.obmm.params.levels=2')).toBe('no strategy has the id obmm: the config lists 0 (demo), 1 (mine); write strategies.<index or id>.params.<name>');
    expect(await refusal('strategies.5.params.levels=2')).toMatch(/^there is no strategies\.5: the config lists 0 \(demo\), 1 \(mine\)/);
    expect(await refusal('strategies.mine.params.spasingPct=0.1')).toMatch(/^the plugin of strategies\.1 \(mine\) has no param spasingPct; did you mean spacingPct\? \(its params: .*spacingPct/);
    // Core config keys pass as they are.
    expect((await axes('risk.maxOpenOrders=10,20'))[0]!.path).toEqual(['risk', 'maxOpenOrders']);
  });
});
