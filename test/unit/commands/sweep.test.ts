import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { d } from '../../../src/core/decimal.js';
import { ConfigError } from '../../../src/core/errors.js';
import { parseSweep, rowOf, sweepRuns } from '../../../src/commands/sweep.js';
import { withoutUnusedSections } from '../../../src/commands/sweep-setup.js';
import { sweepArgumentProblem } from '../../../src/commands/sweep-command.js';
import { lostReason, outcomesOf, pluginRefs } from '../../../src/commands/sweep-queue.js';
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
});

describe('what a run carries', () => {
  it('drops the sections a backtest never uses: alerts (a webhook token), credentials, recording', () => {
    const text = withoutUnusedSections(BASE);
    expect(text).not.toContain('T0KEN');
    expect(text).not.toContain('/etc/sluice/key');
    expect(text).not.toContain('tapes/x.jsonl');
    expect(parse(text)).toEqual({ mode: 'paper', strategies: (parse(BASE) as { strategies: unknown }).strategies });
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
    expect(rowOf('levels=0', { status: 'failed', reason: 'levels: too small' }).error).toBe('levels: too small');
    expect(rowOf('levels=5', { status: 'cancelled', reason: 'cancelled while running' }).error).toBe('cancelled (cancelled while running)');
  });
});

describe('sluice sweep arguments', () => {
  it.each([
    [{ attach: 'a1', cancel: 'a1', queue: 'redis://h' }, 'give --attach ID or --cancel ID, not both'],
    [{ attach: 'a1', queue: 'redis://h', config: 'c.yaml' }, '--attach takes the sweep as it was submitted, from Redis: drop --config, --tape, --duration and --sweep'],
    [{ cancel: 'a1', queue: 'redis://h', sweep: ['a=1'] }, '--cancel takes the sweep as it was submitted, from Redis: drop --config, --tape, --duration and --sweep'],
    [{ config: 'c.yaml', detach: true }, '--detach needs --queue redis://HOST:PORT (a local sweep runs here and now)'],
    [{ config: 'c.yaml', concurrency: 0 }, '--concurrency must be at least 1 (backtests at once on this machine)'],
    [{ config: 'c.yaml', concurrency: 2, queue: 'redis://h' }, '--concurrency is for a local sweep; with --queue, give it to each `sluice worker`'],
  ])('%j: %s', (opts, problem) => {
    expect(sweepArgumentProblem(opts)).toBe(problem);
  });

  it('accepts what makes sense', () => {
    expect(sweepArgumentProblem({ config: 'c.yaml', sweep: ['a=1,2'], concurrency: 2 })).toBeUndefined();
    expect(sweepArgumentProblem({ config: 'c.yaml', sweep: ['a=1,2'], queue: 'redis://h', detach: true })).toBeUndefined();
    expect(sweepArgumentProblem({ queue: 'redis://h', attach: 'a1', out: 'dir' })).toBeUndefined();
  });
});
