// A local sweep as a user runs it: values typed by the plugin's schema, runs ranked by the
// figure asked for, and each run's own report kept beside the sweep's.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import type { SweepReport } from '../../src/report/index.js';
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
});
