// A local sweep as a user runs it: values typed by the plugin's schema, runs ranked by the
// figure asked for, and each run's own report kept beside the sweep's.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { sortEntries, type SweepReport } from '../../src/report/index.js';
import { CliProcess } from '../fixtures/cli-process.js';
import { childEnv } from '../fixtures/daemon-process.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('sluice sweep on local threads', () => {
  it('types bare whole numbers for a decimal param not in the YAML, ranks by --rank and writes runs/<#>/report.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-sweep-local-'));
    // The case: spacingPct (a decimalParam) is not written in the YAML at all.
    const doc = parseDocument(readFileSync(join(ROOT, 'config/backtest.yaml'), 'utf8'));
    doc.setIn(['strategies', 0, 'params'], doc.createNode({ levels: 3 }));
    const config = join(dir, 'base.yaml');
    writeFileSync(config, doc.toString());
    const out = join(dir, 'out');
    const sweep = new CliProcess(['sweep', '-c', config, '-d', '1', '--sweep', 'strategies.0.params.spacingPct=1,2', '--rank', 'fills', '--concurrency', '2', '-o', out], { env: childEnv() });
    const code = await sweep.exited;
    expect(code, sweep.stdout + sweep.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as SweepReport;
    expect(report.runs.map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(sweep.stdout).toContain('ranked by fills, most first');
    // The table lists the runs most fills first.
    const fills = report.runs.map((r) => (r.status === 'ok' ? r.figures.fills : -1));
    const printed = sweep.lines.filter((l) => /^#\d /.test(l)).map((l) => Number(/^#(\d+)/.exec(l)![1]));
    expect(printed.map((i) => fills[i])).toEqual([...fills].sort((a, b) => b - a));
    for (const run of report.runs) {
      const file = join(out, 'runs', String(run.index), 'report.json');
      expect(existsSync(file), file).toBe(true);
      const own = JSON.parse(readFileSync(file, 'utf8')) as { trades: { fills: number } };
      expect(own.trades.fills).toBe(run.status === 'ok' ? run.figures.fills : undefined);
    }
  });

  it('--sample and --seed: a random search runs that many of the grid, says so, and the same seed draws the same runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-sweep-sample-'));
    const args = (out: string, seed: string) => ['sweep', '-c', 'config/backtest.yaml', '-d', '1', '--sweep', 'strategies.0.params.levels=2,3', '--sweep', 'strategies.0.params.spacingPct=1,2,3', '--sample', '2', '--seed', seed, '-o', join(dir, out)];
    const labels: string[][] = [];
    for (const [out, seed] of [['a', '7'], ['b', '7']]) {
      const sweep = new CliProcess(args(out!, seed!), { env: childEnv() });
      expect(await sweep.exited, sweep.stdout + sweep.stderr).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, out!, 'report.json'), 'utf8')) as SweepReport;
      expect(report.sweep.sample).toEqual({ count: 2, seed: 7, of: 6 });
      expect(report.runs.map((r) => r.status)).toEqual(['ok', 'ok']);
      expect(sweep.stdout).toContain("2 runs (a random search: 2 of the grid's 6 combinations, --seed 7): 2 ok");
      labels.push(report.runs.map((r) => r.label));
    }
    expect(labels[1]).toEqual(labels[0]);
    const lone = new CliProcess(['sweep', '-c', 'config/backtest.yaml', '-d', '1', '--sweep', 'strategies.0.params.levels=2,3', '--seed', '3'], { env: childEnv() });
    expect(await lone.exited).toBe(1);
    expect(lone.stderr).toContain('--seed chooses the runs --sample draws: give --sample N as well');
  }, 120_000);

  it('--from and --to: every run covers that part of the tape, and the sweep report says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-sweep-window-'));
    const out = join(dir, 'out');
    const args = ['sweep', '-c', 'config/backtest.yaml', '-t', 'backtest/tapes/sample.jsonl.gz', '--from', '2026-01-01T00:10', '--to', '2026-01-01T00:20', '--sweep', 'strategies.0.params.levels=3,5', '--concurrency', '1', '-o', out, '--no-cache'];
    const sweep = new CliProcess(args, { env: childEnv() });
    expect(await sweep.exited, sweep.stdout + sweep.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as SweepReport;
    expect(report.sweep.window).toEqual({ from: Date.UTC(2026, 0, 1, 0, 10), to: Date.UTC(2026, 0, 1, 0, 20) });
    expect(report.runs.map((r) => r.status)).toEqual(['ok', 'ok']);
    for (const run of report.runs) {
      const own = JSON.parse(readFileSync(join(out, 'runs', String(run.index), 'report.json'), 'utf8')) as { period: { start: string; end: string } };
      expect(own.period).toMatchObject({ start: '2026-01-01T00:10:00.000Z', end: '2026-01-01T00:20:00.000Z' });
    }
    // A time it cannot read stops at the door, naming the option and the form.
    const bad = new CliProcess(['backtest', '-c', 'config/backtest.yaml', '-t', 'backtest/tapes/sample.jsonl.gz', '--from', 'yesterday'], { env: childEnv() });
    expect(await bad.exited).toBe(1);
    expect(bad.stderr).toContain('--from "yesterday": give a time as 2026-11-20 or 2026-11-20T14:30');
  }, 120_000);

  it('--holdout-from: the best runs by --rank go again over a part of the tape the sweep did not rank on, with the figures a run over that window alone gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-sweep-holdout-'));
    const out = join(dir, 'out');
    const tape = ['-c', 'config/backtest.yaml', '-t', 'backtest/tapes/sample.jsonl.gz', '--concurrency', '2', '--no-cache'];
    const args = ['sweep', ...tape, '--to', '2026-01-01T00:20', '--holdout-from', '2026-01-01T00:20', '--holdout-top', '2', '--sweep', 'strategies.0.params.spacingPct=0.02,0.03,0.05,0.08', '-o', out];
    const sweep = new CliProcess(args, { env: childEnv() });
    expect(await sweep.exited, sweep.stdout + sweep.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as SweepReport;
    const holdout = report.holdout!;
    expect(holdout).toMatchObject({ window: { from: Date.UTC(2026, 0, 1, 0, 20) }, rank: 'pnl', top: 2 });
    // The two best in sample by PnL, best first.
    const best = sortEntries(report.runs, 'pnl').slice(0, 2);
    expect(holdout.runs.map((r) => r.index)).toEqual(best.map((r) => r.index));
    expect(sweep.stdout).toContain("out of sample: the best 2 by PnL, highest first, again over 2026-01-01T00:20:00.000Z to the tape's end");
    for (const run of holdout.runs) {
      expect(run.status).toBe('ok');
      const own = JSON.parse(readFileSync(join(out, 'holdout', 'runs', String(run.index), 'report.json'), 'utf8')) as { period: { start: string }; pnl: { total: string } };
      expect(own.period.start).toBe('2026-01-01T00:20:00.000Z');
      expect(run.status === 'ok' && run.figures.pnl).toBe(own.pnl.total);
    }
    // The best run's holdout figures are what a sweep of its value alone over that window gives.
    const top = holdout.runs[0]!;
    const alone = join(dir, 'alone');
    const check = new CliProcess(['sweep', ...tape, '--from', '2026-01-01T00:20', '--sweep', `strategies.0.params.spacingPct=${top.params['strategies.0.params.spacingPct']}`, '-o', alone], { env: childEnv() });
    expect(await check.exited, check.stdout + check.stderr).toBe(0);
    const [same] = (JSON.parse(readFileSync(join(alone, 'report.json'), 'utf8')) as SweepReport).runs;
    expect(same!.status === 'ok' && same!.figures).toEqual(top.status === 'ok' && top.figures);
    // A holdout inside the part the sweep ranks on is not out of sample: refused at the door.
    const overlap = new CliProcess(['sweep', ...tape, '--to', '2026-01-01T00:20', '--holdout-from', '2026-01-01T00:15', '--sweep', 'strategies.0.params.levels=3,5', '-o', join(dir, 'no')], { env: childEnv() });
    expect(await overlap.exited).toBe(1);
    expect(overlap.stderr).toContain("overlaps the part of the tape the sweep ranks its runs on (the tape's start to 2026-01-01T00:20:00.000Z)");
  }, 180_000);
});
