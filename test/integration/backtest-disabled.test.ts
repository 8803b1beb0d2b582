// A backtest in which a strategy is disabled (its onTick throws with a bid and an ask resting):
// its orders are cancelled, and the report, the page, the printed line and a sweep say so.
// A healthy run's report has none of it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { summaryLine } from '../../src/commands/backtest.js';
import { runSweep, sweepRuns, parseSweep } from '../../src/commands/sweep.js';
import { renderHtml, runOutcome } from '../../src/report/index.js';
import { loadStrategies } from '../../src/strategy/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DURATION = 60_000;
const config = (throwAt: number) => `
mode: paper
sim: { seed: 3 }
strategies:
  - { id: t1, use: test/fixtures/plugins/thrower.ts, symbols: [BTCUSDT], everyMs: 1000, params: { throwAt: ${throwAt} } }
`;

async function backtest(yaml: string) {
  const { config: c } = await parseConfig(yaml, { env: {} });
  const strategies = await loadStrategies(c.strategies, ROOT);
  return runBacktest({ config: c, strategies, log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), durationMs: DURATION, startAt: Date.UTC(2026, 0, 1) });
}

describe('a backtest whose strategy is disabled', () => {
  it('cancels its orders, and report.json, report.html and the printed line say which, when and why', async () => {
    const { report, input, app } = await backtest(config(10));
    const start = report.period.startedAt;
    expect(report.disabledStrategies).toHaveLength(1);
    const [x] = report.disabledStrategies!;
    expect(x).toMatchObject({ strategy: 't1', openOrders: 'cancelled' });
    expect(x!.reason).toMatch(/^onTick threw: bug in my requote \(at .*test\/fixtures\/plugins\/thrower\.ts:\d+:\d+\)$/);
    // The tenth tick, one a second from the first.
    expect(x!.at).toBeGreaterThanOrEqual(start + 9000);
    expect(x!.at).toBeLessThan(start + 11_000);
    expect(x!.time).toBe(new Date(x!.at).toISOString());
    // Both resting orders were cancelled once it was disabled, not left to fill or rest until the end.
    const orders = app.journal.orders({ strategyId: 't1' });
    expect(orders.map((o) => o.status)).toEqual(['canceled', 'canceled']);
    for (const o of orders) expect(o.updatedAt).toBeLessThan(start + 12_000);
    expect(report.orders).toMatchObject({ sent: 2, cancelsSent: 2 });

    expect(summaryLine(report)).toMatch(/^strategy t1 disabled during the run; pnl /);
    const page = renderHtml(report, input);
    expect(page).toContain(`<td>Strategy disabled</td><td>t1 was disabled at ${x!.time} (`);
    expect(page).toContain('its open orders were cancelled (engine.onStrategyFailure)');
    expect(runOutcome(report)).toEqual({ status: 'failed', reason: expect.stringMatching(/^strategy t1 was disabled at .* into the run\): onTick threw: bug in my requote/) as unknown as string });
  }, 60_000);

  it('a healthy run\'s report has no trace of it', async () => {
    const { report } = await backtest(config(0));
    expect('disabledStrategies' in report).toBe(false);
    expect(summaryLine(report)).toMatch(/^pnl /);
    expect(runOutcome(report).status).toBe('ok');
  }, 60_000);

  it('a sweep counts the run whose strategy was disabled as failed, with the reason', async () => {
    const runs = sweepRuns(config(10), [parseSweep('strategies.0.params.throwAt=10,0')]);
    const rows = await runSweep(runs.map((r) => ({ configText: r.configText, label: r.label, durationMs: DURATION, cwd: ROOT })), 2);
    expect(rows[0]!.error).toMatch(/^strategy t1 was disabled at .*: onTick threw: bug in my requote/);
    expect(rows[1]!.error).toBeUndefined();
  }, 90_000);

  it('the CLI sweep keeps its table on stdout, naming the plugin\'s own file, and a run\'s errors go to stderr named by run, on the run\'s clock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-disabled-'));
    try {
      writeFileSync(join(dir, 'c.yaml'), config(10).replace('test/fixtures', join(ROOT, 'test/fixtures')));
      const sweep = promisify(execFile)(process.execPath, [join(ROOT, 'bin/sluice.js'), 'backtest', '--config', join(dir, 'c.yaml'), '--duration', '1', '--out', join(dir, 'out'), '--sweep', 'strategies.0.params.throwAt=10,0'], { cwd: ROOT });
      const { stdout, stderr } = await sweep.catch((e: { stdout: string; stderr: string; code: number }) => {
        expect(e.code).toBe(2); // a failed run
        return e;
      });
      expect(stdout).toMatch(/^ranked by PnL/);
      expect(stdout).not.toContain('"level"');
      expect(stdout).toMatch(/failed: strategy t1 was disabled /);
      // The plugin's own file, not the copy compiled on the run's thread (source maps there too):
      // in the sweep's report, which keeps the whole reason (the table cuts it).
      const [run0] = (JSON.parse(readFileSync(join(dir, 'out/report.json'), 'utf8')) as { runs: { reason?: string }[] }).runs;
      expect(run0!.reason).toMatch(/^strategy t1 was disabled .*\(at \S*test\/fixtures\/plugins\/thrower\.ts:16:\d+\)/);
      const lines = stderr.split('\n').filter((l) => l.startsWith('{'));
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { run: string; time: number; msg: string };
      expect(line).toMatchObject({ run: 'strategies.0.params.throwAt=10', msg: 'strategy disabled' });
      const [disabled] = (JSON.parse(readFileSync(join(dir, 'out/runs/0/report.json'), 'utf8')) as { disabledStrategies: { at: number }[] }).disabledStrategies;
      expect(line.time).toBe(disabled!.at);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
