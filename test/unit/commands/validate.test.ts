// `sluice validate` loads the plugins and checks their params as run and plan do, with the
// lines and hints the config's own problems get.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateCommand } from '../../../src/commands/validate.js';
import { locateProblems, parsePath } from '../../../src/config/locate.js';

const ROOT = resolve(import.meta.dirname, '../../..');

async function configFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-validate-'));
  const path = join(dir, 'sluice.yaml');
  await writeFile(path, text);
  return path;
}

describe('sluice validate', () => {
  it('in paper mode, refuses a symbol the built-in simulator does not list, with its line and what it lists', async () => {
    const path = await configFile(['mode: paper', 'strategies:', '  - id: doge', '    use: strategies/grid/index.ts', '    symbols: [DOGEUSDT]', ''].join('\n'));
    const { ok, output } = await validateCommand(path, {}, ROOT);
    expect(ok).toBe(false);
    expect(output).toBe(`${path} has 1 problem:\n  - strategies[0].symbols[0] (line 5): DOGEUSDT is not listed by the venue's spot market: fix or remove it (the venue's spot market lists BTCUSDT, ETHUSDT)`);
  });

  it('refuses a float param, a typo and a missing plugin file, each with its line and fix', async () => {
    const path = await configFile(
      [
        'mode: paper',
        'strategies:',
        '  - id: grid',
        '    use: strategies/grid/index.ts',
        '    symbols: [BTCUSDT]',
        '    params:',
        '      orderVolume: 0.5',
        '      maxInventroy: "0.02"',
        '  - id: gone',
        '    use: strategies/nope/index.ts',
        '    symbols: [ETHUSDT]',
        '',
      ].join('\n'),
    );
    const { ok, output } = await validateCommand(path, {}, ROOT);
    expect(ok).toBe(false);
    expect(output).toContain(`${path} has 3 problems:`);
    const lines = output.split('\n').slice(1);
    expect(lines).toEqual([
      expect.stringMatching(/^ {2}- strategies\[0\]\.params\.orderVolume \(line 7\): .*expected string.*: write it quoted, e\.g\. "0\.5" .*\(plugin grid\)$/),
      '  - strategies[0].params.maxInventroy (line 8): unknown key; did you mean maxInventory? (plugin grid)',
      expect.stringMatching(/^ {2}- strategies\[1\]\.use \(line 10\): no plugin at .*strategies\/nope\/index\.ts; fix the path/),
    ]);
  });

  it("quotes the value of a plugin's choice param, unless it came from the environment", async () => {
    const entry = (id: string, side: string) => `  - { id: ${id}, use: strategies/twap/index.ts, symbols: [BTCUSDT], params: { side: ${side} } }`;
    const path = await configFile(['strategies:', entry('t1', 'BYU'), entry('t2', '"${SIDE}"'), ''].join('\n'));
    const { ok, output } = await validateCommand(path, { SIDE: 'not-a-side-secret' }, ROOT);
    expect(ok).toBe(false);
    expect(output.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^ {2}- strategies\[0\]\.params\.side \(line 2\): .*expected one of "BUY"\|"SELL" \(got "BYU"; did you mean BUY\?\) \(plugin twap\)$/),
      expect.stringMatching(/^ {2}- strategies\[1\]\.params\.side \(line 3\): .*expected one of "BUY"\|"SELL" \(plugin twap\)$/),
    ]);
    expect(output).not.toContain('not-a-side-secret');
  });

  it('says the plugins were loaded and their params checked when all is well', async () => {
    const path = await configFile('strategies:\n  - { id: g1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { levels: 2 } }\n');
    const { ok, output } = await validateCommand(path, {}, ROOT);
    expect(ok, output).toBe(true);
    expect(output).toMatch(/^config OK: 1 strategy, mode paper\n/);
    expect(output).toContain('plugins OK: g1 (grid): loaded, params checked');
    expect(output).not.toContain('checked when `sluice run`');
  });

  it('still lists config problems first and does not load plugins past them', async () => {
    const path = await configFile('mode: papr\nstrategies:\n  - { id: g1, use: strategies/nope.ts, symbols: [BTCUSDT] }\n');
    const { ok, output } = await validateCommand(path, {}, ROOT);
    expect(ok).toBe(false);
    expect(output).toContain('mode (line 1)');
    expect(output).not.toContain('no plugin at');
  });
});

describe('locating problems found after loading', () => {
  it('reads back the paths formatPath writes', () => {
    expect(parsePath('strategies[0].params.levels')).toEqual(['strategies', 0, 'params', 'levels']);
    expect(parsePath('venue.limits["spot.order"]')).toEqual(['venue', 'limits', 'spot.order']);
    expect(parsePath('strategies[12]')).toEqual(['strategies', 12]);
  });

  it('gives each problem the line of its path (the deepest part present), in file order', () => {
    const text = 'strategies:\n  - id: a\n    params:\n      x: 1\n  - id: b\n';
    const located = locateProblems(text, [
      { path: 'strategies[1].params.y', message: 'm1' },
      { path: 'strategies[0].params.x', message: 'm2' },
      { path: '(file)', message: 'm3' },
    ]);
    expect(located).toEqual([
      { path: 'strategies[0].params.x', message: 'm2', line: 4 },
      { path: 'strategies[1].params.y', message: 'm1', line: 5 },
      { path: '(file)', message: 'm3', line: undefined },
    ]);
  });
});
