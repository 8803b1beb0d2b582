// `sluice validate` loads the plugins and checks their params as run and plan do, with the
// lines and hints the config's own problems get.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { chmod } from 'node:fs/promises';
import { prepare } from '../../../src/commands/prepare.js';
import { validateCommand } from '../../../src/commands/validate.js';
import { locateProblems, parsePath } from '../../../src/config/locate.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const LOCAL = 'checked: the config, the credentials (present and readable), the enabled plugins and their params, the feeds they ask for';
const SIMULATOR = 'asked the built-in simulator: the symbols and feeds the strategies need (paper mode trades with its own key, not yours)';

async function configFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-validate-'));
  const path = join(dir, 'sluice.yaml');
  await writeFile(path, text);
  return path;
}

describe('sluice validate', () => {
  it('refuses a spot klines interval the venue does not serve (4h) at the door, naming the field with its line and every interval spot serves; 1h passes (asked as 60min)', async () => {
    const config = (interval: string) => configFile(['mode: paper', 'strategies:', '  - id: c', '    use: test/fixtures/plugins/candles.ts', '    symbols: [BTCUSDT]', `    params: { interval: ${interval} }`, ''].join('\n'));
    const path = await config('4h');
    const { ok, output } = await validateCommand(path, {}, ROOT, { offline: true });
    expect(ok).toBe(false);
    expect(output.split('\n')).toEqual([
      `${path} has 1 problem:`,
      '  - strategies[0].params (line 6): the plugin candles subscribes to klines interval 4h: spot serves 1min, 5min, 15min, 30min, 60min, 1h, 1day, 1week, 1month',
      `${LOCAL}; not the venue: fix the problems above first`,
    ]);
    // sluice run's door (prepare) refuses it the same way, before anything is built or asked.
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await prepare(path)).toBeUndefined();
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toContain('strategies[0].params (line 6): the plugin candles subscribes to klines interval 4h: spot serves 1min, 5min, 15min, 30min, 60min, 1h, 1day, 1week, 1month');
    } finally {
      stderr.mockRestore();
    }
    const hourly = await validateCommand(await config('1h'), {}, ROOT, { offline: true });
    expect(hourly.ok, hourly.output).toBe(true);
  });

  it('in paper mode, refuses a symbol the built-in simulator does not list, with its line and what it lists', async () => {
    const path = await configFile(['mode: paper', 'strategies:', '  - id: doge', '    use: strategies/grid/index.ts', '    symbols: [DOGEUSDT]', ''].join('\n'));
    const { ok, output } = await validateCommand(path, {}, ROOT);
    expect(ok).toBe(false);
    expect(output).toBe(`${path} has 1 problem:\n  - strategies[0].symbols[0] (line 5): DOGEUSDT is not listed by the venue's spot market: fix or remove it (the venue's spot market lists BTCUSDT, ETHUSDT)\n${LOCAL}; ${SIMULATOR}`);
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
      `${LOCAL}; not the venue: fix the problems above first`,
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
      `${LOCAL}; not the venue: fix the problems above first`,
    ]);
    expect(output).not.toContain('not-a-side-secret');
  });

  it('refuses a plugin whose create() returns a handler sluice never calls (run would disable it at once), with its line', async () => {
    const path = await configFile(['mode: paper', 'strategies:', '  - id: mine', '    use: test/fixtures/plugins/stray-handler.ts', '    symbols: [BTCUSDT]', ''].join('\n'));
    const { ok, output } = await validateCommand(path, {}, ROOT, { offline: true });
    expect(ok).toBe(false);
    expect(output.split('\n')[1]).toBe('  - strategies[0].use (line 4): test/fixtures/plugins/stray-handler.ts: create returned onTik, a handler sluice never calls (did you mean onTick?); the handlers are onStart, onTick, onMarketData, onFill, onOrderUpdate, onOrderEvent, onStop, onSave, onLoad');
  });

  it('says the plugins were loaded and their params checked when all is well', async () => {
    const path = await configFile('strategies:\n  - { id: g1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { levels: 2 } }\n');
    const { ok, output } = await validateCommand(path, {}, ROOT);
    expect(ok, output).toBe(true);
    expect(output).toMatch(/^config OK: 1 strategy, mode paper\n/);
    expect(output).toContain('plugins OK: g1 (grid): loaded, params checked');
    expect(output).not.toContain('checked when `sluice run`');
  });

  it('says which checks ran: the simulator asked in paper mode, nothing with --offline', async () => {
    const path = await configFile('strategies:\n  - { id: g1, use: strategies/grid/index.ts, symbols: [BTCUSDT] }\n');
    const asked = await validateCommand(path, {}, ROOT);
    expect(asked.output.split('\n').slice(-2)).toEqual(['venue OK: it lists every symbol the strategies trade and serves their feeds', `${LOCAL}; ${SIMULATOR}`]);
    const offline = await validateCommand(path, {}, ROOT, { offline: true });
    expect(offline.ok).toBe(true);
    expect(offline.output.split('\n').slice(-1)).toEqual([`${LOCAL}; not the venue (--offline): the symbols it lists and whether it takes the key are checked when sluice run starts`]);
  });

  /** A config with problems of every kind found without the venue, and the list that names them. */
  async function everyKindOfProblem(): Promise<{ path: string; problems: unknown[] }> {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-validate-'));
    const creds = join(dir, 'creds.env');
    // Readable by others, and no secret line: both said at once.
    await writeFile(creds, 'SLUICE_API_KEY=not-a-real-key\n');
    await chmod(creds, 0o644);
    const path = join(dir, 'sluice.yaml');
    await writeFile(
      path,
      [
        'mode: live',
        'venue: { spotUrl: "http://127.0.0.1:1" }',
        `credentials: { file: ${creds} }`,
        'engine: { heap: tiny }',
        'strategies:',
        '  - { id: g1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { levels: "3" } }',
        '  - { id: gone, use: strategies/nope.ts, symbols: [ETHUSDT] }',
        '  - { id: Bad-Id, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { levls: 2 } }',
        '  - { id: sig, use: test/fixtures/plugins/candles.ts, market: futures, symbols: [E-BTC-USDT], params: { interval: 4h } }',
        '  - { id: nouse, use: 5, symbols: [BTCUSDT] }',
        '',
      ].join('\n'),
    );
    return {
      path,
      problems: [
        `${path} has 9 problems:`,
        `  - credentials.file (line 3): ${creds} is accessible to group or others (mode 644); it holds secrets: run chmod 600 ${creds}`,
        `  - credentials.file (line 3): ${creds} has no SLUICE_API_SECRET=... line (or it is empty): add it`,
        '  - engine.heap (line 4): must be one of fast | small (got "tiny")',
        expect.stringMatching(/^ {2}- strategies\[0\]\.params\.levels \(line 6\): .*expected number, received string: write it without quotes, e\.g\. 3 \(plugin grid\)$/),
        expect.stringMatching(/^ {2}- strategies\[1\]\.use \(line 7\): no plugin at .*strategies\/nope\.ts; fix the path/),
        expect.stringMatching(/^ {2}- strategies\[2\]\.id \(line 8\): must be 1-12 lower-case letters or digits/),
        // Its id is wrong, its plugin and params are still checked.
        '  - strategies[2].params.levls (line 8): unknown key; did you mean levels? (plugin grid)',
        '  - strategies[3].params (line 9): the plugin candles subscribes to klines interval 4h: futures serves 1min, 5min, 15min, 30min, 60min, 1h, 1day, 1week, 1month',
        expect.stringMatching(/^ {2}- strategies\[4\]\.use \(line 10\): must be the plugin module path, e\.g\. strategies\/grid\/index\.ts \(got a number\)$/),
      ],
    };
  }

  it('lists every problem found without the venue in one round: schema, credentials file, plugin path, plugin params, feeds', async () => {
    const { path, problems } = await everyKindOfProblem();
    const { ok, output } = await validateCommand(path, {}, ROOT);
    expect(ok).toBe(false);
    expect(output.split('\n')).toEqual([...problems, `${LOCAL}; not the venue: fix the problems above first`]);
  });

  it('run, plan and status stop at the door with the same one list', async () => {
    const { path, problems } = await everyKindOfProblem();
    const err: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((t) => (err.push(String(t)), true));
    vi.stubEnv('SLUICE_API_KEY', '');
    vi.stubEnv('SLUICE_API_SECRET', '');
    try {
      expect(await prepare(path)).toBeUndefined();
    } finally {
      vi.restoreAllMocks();
      vi.unstubAllEnvs();
    }
    expect(err.join('').split('\n')).toEqual([...problems, '']);
  });

  it('refuses a config whose strategies are all disabled, as run does, with the config\'s other problems', async () => {
    const path = await configFile('engine: { heap: tiny }\nstrategies:\n  - { id: g1, use: strategies/grid/index.ts, symbols: [BTCUSDT], enabled: false }\n');
    const { ok, output } = await validateCommand(path, {}, ROOT);
    expect(ok).toBe(false);
    expect(output.split('\n').slice(0, 3)).toEqual([
      `${path} has 2 problems:`,
      '  - engine.heap (line 1): must be one of fast | small (got "tiny")',
      '  - strategies (line 2): no enabled strategy: add one (see strategies/README.md) or set enabled: true',
    ]);
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
