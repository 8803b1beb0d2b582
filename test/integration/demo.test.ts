// `npm start` is a demo: the shipped config/default.yaml trades the example grid strategy on the
// built-in simulator, and a newcomer sees a fill within 10 s. Checked on the backtest's manual
// clock (the same engine, strategy, risk, pacing rules and simulator as paper mode; virtual time,
// so no test waits) from the shipped seed and a few others, so the demo is not one lucky seed.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { loadConfig, opsEnabled } from '../../src/config/index.js';
import { loadStrategies } from '../../src/strategy/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const START = Date.UTC(2026, 0, 1);

describe('npm start (config/default.yaml) on the built-in simulator', () => {
  it('is paper mode with the dashboard on', async () => {
    const { config } = await loadConfig(resolve(ROOT, 'config/default.yaml'), {});
    expect(config.mode).toBe('paper');
    expect(opsEnabled(config)).toBe(true);
    expect(config.http.host).toBe('127.0.0.1');
  });

  it.each([1, 2, 3, 4])('fills within 10 s of simulated time (sim.seed %i)', async (seed) => {
    const { config: shipped } = await loadConfig(resolve(ROOT, 'config/default.yaml'), {});
    const config = seed === shipped.sim.seed ? shipped : { ...shipped, sim: { ...shipped.sim, seed } };
    const strategies = await loadStrategies(config.strategies, ROOT);
    const run = await runBacktest({ config, strategies, log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), durationMs: 10_000, startAt: START });
    const first = run.input.fills[0];
    expect(first, 'no fill in the first 10 s').toBeDefined();
    expect(first!.time - START).toBeLessThanOrEqual(10_000);
    expect(first!.symbol).toBe('BTCUSDT');
    expect(run.report.trades.fills).toBeGreaterThan(0);
  }, 30_000);
});
