// Protective exits in backtests: the same engine path as live, so a sweep can tune them.
// `--sweep strategies.0.exits.stopLossPct=...` goes through the sweep's own parameter path
// (resolveAxes, paramKinds, sweepRuns, the worker threads) on a base config without exits, and
// two values give different reports; the report counts the exits and the fills hold their orders.
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config/index.js';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { paramKinds, parseSweep, resolveAxes, runSweep, sweepRuns } from '../../src/commands/sweep.js';
import { loadStrategies } from '../../src/strategy/index.js';
import { readTape } from '../../src/tape/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SAMPLE = join(ROOT, 'backtest/tapes/sample.jsonl.gz');

const GRID = `
mode: paper
sim: { seed: 3 }
strategies:
  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { spacingPct: "0.02" } }
`;

async function backtest(yaml: string) {
  const { config } = await parseConfig(yaml, { env: {} });
  const strategies = await loadStrategies(config.strategies, ROOT);
  return runBacktest({ config, strategies, log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), tape: await readTape(SAMPLE), tapeName: 'sample' });
}

describe('protective exits in backtests and sweeps', () => {
  it('strategies.0.exits.stopLossPct sweeps as a quoted decimal; two values give different reports; the report counts the exits', async () => {
    const axes = await resolveAxes(GRID, [parseSweep('strategies.grid1.exits.stopLossPct=0.01,50')], ROOT);
    const runs = sweepRuns(GRID, axes, await paramKinds(GRID, axes, ROOT));
    expect(runs.map((r) => r.label)).toEqual(['strategies.grid1.exits.stopLossPct=0.01', 'strategies.grid1.exits.stopLossPct=50']);
    expect(runs.map((r) => (parse(r.configText) as { strategies: Array<{ exits: unknown }> }).strategies[0]!.exits)).toEqual([{ stopLossPct: '0.01' }, { stopLossPct: '50' }]);

    const rows = await runSweep(runs.map((r) => ({ configText: r.configText, label: r.label, tapePath: SAMPLE, cwd: ROOT })), 2);
    expect(rows.map((r) => r.error)).toEqual([undefined, undefined]);
    expect([rows[0]!.pnl, rows[0]!.fills, rows[0]!.ordersSent]).not.toEqual([rows[1]!.pnl, rows[1]!.fills, rows[1]!.ordersSent]);

    const tight = await backtest(runs[0]!.configText);
    expect(tight.report.exits?.stop_loss).toBeGreaterThan(0);
    expect(tight.report.refusals?.find((r) => r.rule === 'exits')?.first).toMatch(/^exits: a stop_loss exit of BTCUSDT is under way/);
    // Each exit's MARKET sell is among the run's fills.
    const markets = tight.app.journal.orders().filter((o) => o.type === 'MARKET' && o.status === 'filled');
    expect(markets.length).toBe(tight.report.exits!.stop_loss);
    expect(tight.input.fills.filter((f) => markets.some((o) => o.venueOrderId === f.venueOrderId)).length).toBeGreaterThanOrEqual(markets.length);
    const loose = await backtest(runs[1]!.configText);
    expect(loose.report.exits).toBeUndefined();
    expect(rows[0]).toMatchObject({ pnl: tight.report.pnl.total, fills: tight.report.trades.fills });
  }, 180_000);
});
