import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.js';
import { loadStrategies, type StrategyEntry } from '../../../src/strategy/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const entry = (over: Partial<StrategyEntry>): StrategyEntry => ({ id: 'x', use: 'strategies/grid/index.ts', enabled: true, market: 'spot', symbols: ['BTCUSDT'], everyMs: 1000, params: {}, ...over });

describe('loadStrategies', () => {
  it('loads TypeScript plugins with no build step and applies param defaults', async () => {
    const [grid] = await loadStrategies([entry({ params: { levels: 2 } })], ROOT);
    expect(grid!.definition.name).toBe('grid');
    expect(grid!.params).toMatchObject({ levels: 2, spacingPct: '0.1', orderVolume: '0.001' });
  });

  it('hints at the param meant when a key is a typo, as core config keys do', async () => {
    const err = (await loadStrategies([entry({ params: { maxInventroy: '0.02', levls: 2 } })], ROOT).catch((e: unknown) => e)) as ConfigError;
    expect(err.problems).toEqual([
      { path: 'strategies[0].params.maxInventroy', message: 'unknown key; did you mean maxInventory? (plugin grid)' },
      { path: 'strategies[0].params.levls', message: 'unknown key; did you mean levels? (plugin grid)' },
    ]);
  });

  it('refuses at the door a plugin whose create() returns a handler sluice never calls, naming the likely one', async () => {
    const err = (await loadStrategies([entry({ use: 'test/fixtures/plugins/stray-handler.ts' }), entry({ id: 'y', params: { levels: 2 } })], ROOT).catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems).toEqual([
      {
        path: 'strategies[0].use',
        message: 'test/fixtures/plugins/stray-handler.ts: create returned onTik, a handler sluice never calls (did you mean onTick?); the handlers are onStart, onTick, onMarketData, onFill, onOrderUpdate, onOrderEvent, onStop, onSave, onLoad',
      },
    ]);
    // A create() that throws over the check's empty view is left for the start to judge.
    const [loaded] = await loadStrategies([entry({ use: 'test/fixtures/plugins/stray-handler.ts', params: { throwInCreate: true } })], ROOT);
    expect(loaded!.definition.name).toBe('stray-handler');
  });

  it('skips disabled entries', async () => {
    expect(await loadStrategies([entry({ enabled: false, use: 'nope.ts' })], ROOT)).toEqual([]);
  });

  it('reports every problem at once with its YAML path', async () => {
    const err = await loadStrategies(
      [
        entry({ use: 'strategies/missing/index.ts' }),
        entry({ use: 'test/fixtures/plugins/not-a-strategy.ts' }),
        entry({ use: 'test/fixtures/plugins/old-api.ts' }),
        entry({ params: { levels: 0, orderVolume: 0.5, typo: 1 } }),
      ],
      ROOT,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const text = (err as ConfigError).message;
    expect(text).toMatch(/strategies\[0\]\.use: no plugin at .*strategies\/missing\/index\.ts; fix the path/);
    expect(text).toMatch(/strategies\[1\]\.use: test\/fixtures\/plugins\/not-a-strategy\.ts must default-export defineStrategy/);
    expect(text).toMatch(/strategies\[2\]\.use: .*old-api\.ts was written for plugin API version 0; this sluice speaks versions 1 and 2 \(the newest: 2\)/);
    expect(text).toMatch(/strategies\[3\]\.params\.levels: .*\(plugin grid\)/);
    expect(text).toMatch(/strategies\[3\]\.params\.orderVolume: .*expected string/);
    expect(text).toMatch(/strategies\[3\]\.params\.orderVolume: .*: write it quoted, e\.g\. "0\.5"/);
    expect(text).toContain('strategies[3].params.typo: unknown key; remove it (known params here: levels, spacingPct, orderVolume, maxInventory, requotePct) (plugin grid)');
    expect((err as ConfigError).problems.length).toBe(6);
  });
});
