// Loading good configs: defaults, the shipped files, interpolation, credentials, freezing, and
// that no secret ever shows up in what the loader returns or says.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inspect } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.js';
import { ENDPOINT_IDS, ENDPOINTS, endpointLimits } from '../../../src/exchange/endpoints.js';
import { DEFAULTS, loadConfig, parseConfig, type LoadedConfig } from '../../../src/config/index.js';
import { validateCommand } from '../../../src/commands/validate.js';
import { DEFAULT_CONNECTIONS } from '../../../src/exchange/transport/http.js';
import { DEFAULT_SAFETY_MARGIN_MS } from '../../../src/limiter/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const shipped = (name: string) => resolve(ROOT, 'config', name);
// Obviously fake values: a failing assertion may print them.
const KEY = 'test-key-not-real-7f3a';
const SECRET = 'test-secret-not-real-9c1e';
const CREDS = { SLUICE_API_KEY: KEY, SLUICE_API_SECRET: SECRET };
const LIVE = 'mode: live\nvenue: { spotUrl: "https://openapi.example.com" }\n';

async function problemsOf(text: string, env: NodeJS.ProcessEnv = {}, baseDir?: string): Promise<ConfigError> {
  const err = await parseConfig(text, { env, baseDir }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

/** Every string a user or a log could see from a load. */
function visible(loaded: LoadedConfig): string {
  return `${JSON.stringify(loaded)}\n${inspect(loaded, { depth: null })}`;
}

describe('defaults', () => {
  it('an empty file is the built-in defaults, with no strategies', async () => {
    const { config, credentials } = await parseConfig('', { env: {} });
    expect(config).toEqual(DEFAULTS);
    expect(config.mode).toBe('paper');
    expect(config.strategies).toEqual([]);
    expect(credentials).toBeUndefined();
  });

  it('config/default.yaml holds exactly the built-in defaults (plus the example strategy npm start trades)', async () => {
    const { config } = await loadConfig(shipped('default.yaml'), {});
    expect({ ...config, strategies: [] }).toEqual(DEFAULTS);
    // The example entry spells out each per-strategy default: same as writing only the required
    // keys, and the demo's grid spacing (npm start fills within seconds: test/integration/demo.test.ts).
    const minimal = await parseConfig('strategies: [{ id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { spacingPct: "0.01" } }]', { env: {} });
    expect(config.strategies).toEqual(minimal.config.strategies);
  });

  it('config/default.yaml names every knob, each with a comment', async () => {
    const text = await readFile(shipped('default.yaml'), 'utf8');
    const raw = parse(text) as Record<string, unknown>;
    const leaves = (v: unknown, path: string): string[] =>
      v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0
        ? Object.entries(v).flatMap(([k, x]) => leaves(x, path ? `${path}.${k}` : k))
        : [path];
    const has = (path: string) => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], raw) !== undefined;
    for (const path of leaves(DEFAULTS, '')) expect(has(path), path).toBe(true);
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      // A `key: value` line explains itself at its end or in the comment line just above it.
      if (/^\s*-?\s*[A-Za-z]\w*:\s*[^\s#]/.test(line)) {
        expect(line.includes('#') || /^\s*#/.test(lines[i - 1] ?? ''), `line ${i + 1}: ${line}`).toBe(true);
      }
    });
  });
});

describe('shipped configs', () => {
  it('live.example.yaml validates with credentials and the URL from the environment, and shows no secret', async () => {
    const env = { ...CREDS, SLUICE_SPOT_URL: 'https://openapi.example.com' };
    const loaded = await loadConfig(shipped('live.example.yaml'), env);
    expect(loaded.config.mode).toBe('live');
    expect(loaded.config.venue.spotUrl).toBe('https://openapi.example.com');
    expect(loaded.config.venue.futuresUrl).toBe('https://futuresopenapi.example.com');
    expect(loaded.config.strategies.map((s) => s.id)).toEqual(['gridbtc', 'twapeth']);
    expect(loaded.credentials).toEqual({ apiKey: KEY, apiSecret: SECRET });
    const seen = visible(loaded);
    expect(seen).not.toContain(KEY);
    expect(seen).not.toContain(SECRET);

    const { ok, output } = await validateCommand(shipped('live.example.yaml'), env, ROOT, { offline: true });
    expect(ok).toBe(true);
    expect(output).toMatch(/^config OK: 2 strategies, mode live\n/);
    expect(output).not.toContain(KEY);
    expect(output).not.toContain(SECRET);
  });

  it('live.example.yaml without its environment names what is missing, and nothing secret', async () => {
    const { ok, output } = await validateCommand(shipped('live.example.yaml'), { SLUICE_API_KEY: KEY }, ROOT);
    expect(ok).toBe(false);
    expect(output).toContain('venue.spotUrl (line 18): environment variable SLUICE_SPOT_URL is not set');
    expect(output).toContain('SLUICE_API_KEY is set but SLUICE_API_SECRET is not');
    expect(output).not.toContain(KEY);
  });

  it('backtest.yaml and default.yaml validate in paper mode without credentials', async () => {
    for (const name of ['backtest.yaml', 'default.yaml']) {
      const { ok, output } = await validateCommand(shipped(name), {}, ROOT);
      expect(ok, output).toBe(true);
      expect(output).toMatch(/^config OK: 1 strategy, mode paper\n/);
    }
  });

  it('validate reports a missing file as a config problem', async () => {
    const { ok, output } = await validateCommand('no/such/file.yaml', {}, ROOT);
    expect(ok).toBe(false);
    expect(output.split('\n').slice(0, 2)).toEqual(['no/such/file.yaml has 1 problem:', '  - (file): cannot read no/such/file.yaml (ENOENT): check the --config path']);
  });
});

describe('values', () => {
  it('engine.heap is fast unless set to small, and names its choices when it is neither', async () => {
    expect((await parseConfig('', { env: {} })).config.engine.heap).toBe('fast');
    expect((await parseConfig('engine: { heap: small }', { env: {} })).config.engine.heap).toBe('small');
    await expect(parseConfig('engine: { heap: tiny }', { env: {} })).rejects.toThrow(/engine\.heap \(line 1\): must be one of fast \| small \(got "tiny"\)$/);
  });

  it('a choice given a value it does not have quotes that value, with a guess when one is close', async () => {
    const err = await problemsOf('mode: lve\nlog: { pretty: maybe }\nsim: { futuresPositionModel: 3 }\nengine: { heap: [small] }\n');
    expect(err.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'mode: must be one of paper | live (got "lve"; did you mean live?)',
      'log.pretty: must be auto, true or false (got "maybe")',
      'sim.futuresPositionModel: must be 1 (net: one position per contract) or 2 (hedge: long and short apart) (got 3)',
      'engine.heap: must be one of fast | small (got a list)',
    ]);
  });

  it('a choice whose value came from the environment names its kind and variable, never the value (it may be a secret)', async () => {
    const err = await problemsOf('reconcile: { foreignOrders: "${FOREIGN}" }\n', { FOREIGN: SECRET });
    expect(err.message).toContain('reconcile.foreignOrders (line 1): must be one of adopt | cancel (got text) (the value comes from ${FOREIGN})');
    expect(err.message).not.toContain(SECRET);
  });

  it('merges over the defaults, normalises symbols and fills futuresUrl from spotUrl', async () => {
    const { config } = await parseConfig(
      `mode: live
venue: { spotUrl: "https://openapi.example.com/", recvWindowMs: 3000 }
strategies:
  - { id: g1, use: strategies/grid/index.ts, symbols: [btcusdt, Ethusdt] }
  - { id: f1, use: strategies/grid/index.ts, market: futures, symbols: [e-btc-usdt], enabled: false }
risk: { maxPosition: { btcusdt: "0.50" }, maxNotionalPerOrder: "2500.00" }
`,
      { env: CREDS },
    );
    expect(config.venue).toMatchObject({ spotUrl: 'https://openapi.example.com', futuresUrl: 'https://openapi.example.com', recvWindowMs: 3000 });
    expect(config.venue.retry).toEqual(DEFAULTS.venue.retry);
    expect(config.strategies[0]?.symbols).toEqual(['BTCUSDT', 'ETHUSDT']);
    expect(config.strategies[1]).toMatchObject({ market: 'futures', symbols: ['E-BTC-USDT'], enabled: false, everyMs: 1000 });
    expect(config.risk.maxPosition).toEqual({ BTCUSDT: '0.5' });
    expect(config.risk.maxNotionalPerOrder).toBe('2500');
    expect(config.risk.priceBandPct).toBe(DEFAULTS.risk.priceBandPct);
  });

  it('takes a section whose lines are all commented out as "use the defaults"', async () => {
    const { config } = await parseConfig('venue:\n  # recvWindowMs: 3000\nrisk:\n  maxPosition:\nstrategies:\nsim: { seed: -7 }\n', { env: {} });
    expect({ ...config, sim: DEFAULTS.sim }).toEqual(DEFAULTS);
    expect(config.sim.seed).toBe(-7);
  });

  it('is deeply frozen', async () => {
    const { config } = await parseConfig('strategies: [{ id: g1, use: a.ts, symbols: [BTCUSDT], params: { nested: { a: [1] } } }]', { env: {} });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.venue.timeouts)).toBe(true);
    expect(Object.isFrozen(config.strategies)).toBe(true);
    expect(Object.isFrozen(config.strategies[0]?.symbols)).toBe(true);
    expect(Object.isFrozen((config.strategies[0]?.params as { nested: { a: number[] } }).nested.a)).toBe(true);
    expect(() => {
      (config as { mode: string }).mode = 'live';
    }).toThrow(TypeError);
  });

  it('leaves strategy params free-form (the plugin validates them), including key names like token', async () => {
    const { config } = await parseConfig('strategies: [{ id: g1, use: a.ts, symbols: [BTCUSDT], params: { token: BTC, anything: [1, { b: 2 }] } }]', { env: {} });
    expect(config.strategies[0]?.params).toEqual({ token: 'BTC', anything: [1, { b: 2 }] });
  });

  it('venue.limitShare takes that share of every endpoint limit, rounded down: shares summing to 1 never exceed a limit together', async () => {
    const { config } = await parseConfig('venue: { limitShare: 0.5, limits: { spot.order: 80 } }', { env: {} });
    const half = endpointLimits(config.venue.limits, config.venue.limitShare);
    expect([half['spot.order'], half['spot.batchOrders'], half['spot.queryOrder']]).toEqual([40, 25, 10]);
    for (const split of [[0.5, 0.5], [0.3, 0.7], [0.29, 0.71], [0.2, 0.3, 0.5], [1 / 3, 1 / 3, 1 / 3]]) {
      for (const id of ENDPOINT_IDS) {
        const together = split.reduce((sum, share) => sum + endpointLimits({}, share)[id], 0);
        expect(together, `${id} split ${split.join('+')}`).toBeLessThanOrEqual(ENDPOINTS[id].limitPer2s);
        expect(together, `${id} split ${split.join('+')}`).toBeGreaterThanOrEqual(ENDPOINTS[id].limitPer2s - split.length);
      }
    }
  });

  it('venue.limitShare out of range, or too small to leave an endpoint one request, is named with the fix', async () => {
    for (const bad of ['0', '1.5', '-0.2']) {
      const err = await problemsOf(`venue: { limitShare: ${bad} }`);
      expect(err.problems.map((p) => [p.path, p.message])).toEqual([['venue.limitShare', expect.stringContaining('must be above 0 and at most 1')]]);
    }
    const err = await problemsOf('venue: { limitShare: 0.01 }');
    expect(err.problems[0]!.path).toBe('venue.limitShare');
    expect(err.problems[0]!.message).toMatch(/spot\.queryOrder.*less than 1 request per 2 s: raise it to at least 0\.05/);
  });

  it('venue.recvWindowMs must stay below reconcile.unknownTimeoutMs - 1000 ms: a lost order is never given up while the venue may still take it', async () => {
    const { config } = await parseConfig('', { env: {} });
    expect([config.venue.recvWindowMs, config.reconcile.unknownTimeoutMs]).toEqual([5000, 30000]);
    const wide = await problemsOf('venue:\n  recvWindowMs: 30000\n');
    expect(wide.problems.map((p) => [p.path, p.line])).toEqual([['venue.recvWindowMs', 2]]);
    expect(wide.problems[0]!.message).toMatch(/^must be less than reconcile\.unknownTimeoutMs - 1000 ms: the venue may take a signed request up to venue\.recvWindowMs after its timestamp, .*given up as never placed.*; lower venue\.recvWindowMs \(default 5000\) or raise reconcile\.unknownTimeoutMs/);
    // The edge: 1000 ms under the timeout is refused, 1 ms more room passes.
    expect((await problemsOf('venue: { recvWindowMs: 29000 }')).problems.map((p) => p.path)).toEqual(['venue.recvWindowMs']);
    expect((await parseConfig('venue: { recvWindowMs: 28999 }', { env: {} })).config.venue.recvWindowMs).toBe(28999);
    expect((await parseConfig('venue: { recvWindowMs: 60000 }\nreconcile: { unknownTimeoutMs: 61001 }', { env: {} })).config.reconcile.unknownTimeoutMs).toBe(61001);
    // A timeout set too short against the default window is named at the timeout, with both fields.
    const short = await problemsOf('reconcile: { unknownTimeoutMs: 6000 }');
    expect(short.problems.map((p) => [p.path, p.message])).toEqual([['reconcile.unknownTimeoutMs', expect.stringMatching(/^must be more than venue\.recvWindowMs \+ 1000 ms: .*; raise reconcile\.unknownTimeoutMs \(default 30000\) or lower venue\.recvWindowMs$/)]]);
    // Listed with the others; a value the schema refuses is not judged again.
    const several = await problemsOf('venue: { recvWindowMs: 40000, connections: 0 }\nreconcile: { unknownTimeoutMs: 0 }');
    expect(several.problems.map((p) => p.path).sort()).toEqual(['reconcile.unknownTimeoutMs', 'venue.connections']);
    expect(several.problems.find((p) => p.path === 'reconcile.unknownTimeoutMs')!.message).toBe('must be a whole number >= 1000');
  });

  it('venue.connections: 64 by default, the transport\'s own default; out of range is named with the range', async () => {
    expect((await parseConfig('venue: {}', { env: {} })).config.venue.connections).toBe(64);
    expect(DEFAULT_CONNECTIONS).toBe(64); // config may not import the transport
    expect((await parseConfig('venue: { connections: 200 }', { env: {} })).config.venue.connections).toBe(200);
    for (const bad of ['0', '2.5', '2000']) {
      const err = await problemsOf(`venue: { connections: ${bad} }`);
      expect(err.problems.map((p) => [p.path, p.message])).toEqual([['venue.connections', 'must be a whole number from 1 to 1024']]);
    }
  });

  it('venue.safetyMarginMs: 10 ms by default, the pacers\' own default (config may not import the limiter)', async () => {
    expect((await parseConfig('venue: {}', { env: {} })).config.venue.safetyMarginMs).toBe(10);
    expect(DEFAULT_SAFETY_MARGIN_MS).toBe(10);
  });

  it('strategies[].leverage: futures only, 1 to 125, one value per contract across strategies', async () => {
    const { config } = await parseConfig('strategies: [{ id: f1, use: a.ts, market: futures, symbols: [E-BTC-USDT], leverage: 20 }]', { env: {} });
    expect(config.strategies[0]?.leverage).toBe(20);
    const spot = await problemsOf('strategies: [{ id: s1, use: a.ts, symbols: [BTCUSDT], leverage: 5 }]');
    expect(spot.problems.map((p) => [p.path, p.message])).toEqual([['strategies[0].leverage', expect.stringContaining('is for futures strategies only')]]);
    const clash = await problemsOf('strategies: [{ id: f1, use: a.ts, market: futures, symbols: [E-BTC-USDT], leverage: 20 }, { id: f2, use: b.ts, market: futures, symbols: [E-BTC-USDT], leverage: 10 }]');
    expect(clash.problems.map((p) => [p.path, p.message])).toEqual([['strategies[1].leverage', expect.stringContaining('E-BTC-USDT is set to 20x by another strategy')]]);
    const range = await problemsOf('strategies: [{ id: f1, use: a.ts, market: futures, symbols: [E-BTC-USDT], leverage: 200 }]');
    expect(range.problems[0]!.path).toBe('strategies[0].leverage');
  });

  it('a per-symbol cap or tolerance with no strategy at all says so (risk would cap nothing)', async () => {
    const err = await problemsOf('risk: { maxPosition: { BTCUSDT: "0.5" } }\nreconcile: { drift: { tolerance: { BTCUSDT: "0.001" } } }\n');
    expect(err.problems.map((p) => [p.path, p.line, p.message])).toEqual([
      ['risk.maxPosition.BTCUSDT', 1, 'no strategy trades BTCUSDT, so this cap limits nothing; no strategy is configured: remove it, or add the strategy that trades it'],
      ['reconcile.drift.tolerance.BTCUSDT', 2, 'no strategy trades BTCUSDT, so this tolerance applies to nothing; no strategy is configured: remove it, or add the strategy that trades it'],
    ]);
  });

  it('money with an exponent is refused with the plain text to write; a huge exponent is refused without being expanded', async () => {
    const small = await problemsOf('risk:\n  feeAllowance: "1e-3"\n');
    expect(small.message).toContain('risk.feeAllowance (line 2): must be plain decimal text: digits, one optional point, an optional leading minus, no exponent; write "0.001"');
    // Expanded, these took 25 s and 3.4 GB, or aborted the process out of memory.
    const huge = await problemsOf('risk:\n  maxNotionalPerOrder: "1e100000000"\n  maxNotionalPerMinute: "1e900000000"\n');
    expect(huge.problems.map((p) => [p.path, p.line, p.message])).toEqual([
      ['risk.maxNotionalPerOrder', 2, expect.stringContaining('(that exponent is beyond any amount)')],
      ['risk.maxNotionalPerMinute', 3, expect.stringContaining('write the digits out, e.g. "100000"')],
    ]);
  });

  it('accepts an override below the endpoint limit', async () => {
    const { config } = await parseConfig('venue: { limits: { spot.order: 80, futures.myTrades: 10 } }', { env: {} });
    expect(config.venue.limits).toEqual({ 'spot.order': 80, 'futures.myTrades': 10 });
  });
});

describe('${VAR} interpolation', () => {
  it('substitutes variables and defaults in any string value, params included', async () => {
    const text = `
venue:
  spotUrl: \${SPOT}
  futuresUrl: "\${FUT:-https://f.example.com}"
journal: { path: "\${DIR:-.sluice}/j-\${NAME}.db" }
record: { path: "$\${literal}" }
strategies:
  - id: g1
    use: \${PLUGIN:-strategies/grid/index.ts}
    symbols: ["\${SYMBOL}"]
    params: { note: "\${NOTE:-none}" }
`;
    const { config } = await parseConfig(text, { env: { SPOT: 'https://s.example.com', DIR: '', NAME: 'x', SYMBOL: 'ethusdt' } });
    expect(config.venue.spotUrl).toBe('https://s.example.com');
    expect(config.venue.futuresUrl).toBe('https://f.example.com');
    expect(config.journal.path).toBe('.sluice/j-x.db'); // an empty variable takes the :- default, as in sh
    expect(config.record.path).toBe('${literal}');
    expect(config.strategies[0]).toMatchObject({ use: 'strategies/grid/index.ts', symbols: ['ETHUSDT'], params: { note: 'none' } });
  });

  it('types an unquoted whole reference as YAML would; a quoted one stays a string', async () => {
    const { config } = await parseConfig('http:\n  enabled: ${ON}\nvenue:\n  recvWindowMs: ${RW}\n  spotUrl: ${URL:-}\nrisk: { maxNotionalPerOrder: "${MAX}" }', {
      env: { ON: 'true', RW: '3000', MAX: '1500' },
    });
    expect(config.http.enabled).toBe(true);
    expect(config.venue.recvWindowMs).toBe(3000);
    expect(config.venue.spotUrl).toBeNull();
    expect(config.risk.maxNotionalPerOrder).toBe('1500');

    const err = await problemsOf('risk:\n  maxNotionalPerOrder: ${MAX}\n', { MAX: '1500' });
    expect(err.message).toContain('risk.maxNotionalPerOrder (line 2): write money as a quoted decimal string, e.g. "10000" (a bare YAML number is a float) (the value comes from ${MAX})');
  });

  it('never prints an interpolated value, only the variable it came from', async () => {
    const leaked = 'sk-live-not-real-3b9d';
    const err = await problemsOf('http:\n  port: ${PORT_FROM_ENV}\n  host: ""\nvenue:\n  spotUrl: "https://${HOST}"\n', { PORT_FROM_ENV: leaked, HOST: `${leaked}/x` });
    expect(err.message).toContain('http.port (line 2): must be a whole number from 0 to 65535 (got text) (the value comes from ${PORT_FROM_ENV})');
    expect(err.message).toContain('venue.spotUrl (line 5): must be an origin only');
    expect(err.message).not.toContain(leaked);
  });
});

describe('a config for a backtest', () => {
  // The config a daemon runs live (and records its tape with): every daemon-only value from the
  // environment or from files that are not there, as on a laptop that backtests it.
  const DAEMON = `mode: live
venue: { spotUrl: "\${SPOT_URL}", futuresUrl: "\${FUTURES_URL}", recvWindowMs: 4000 }
credentials: { file: /nowhere/sluice.key }
http: { enabled: true, host: 0.0.0.0, tokenFile: /nowhere/token }
alerts: { webhookUrl: "\${HOOK_URL}" }
strategies:
  - { id: g, use: strategies/grid/index.ts, symbols: [BTCUSDT] }
`;

  it('backtests the live config as it stands: paper, nothing of the daemon read, the rest kept', async () => {
    const loaded = await parseConfig(DAEMON, { env: CREDS, backtest: true });
    expect(loaded.config.mode).toBe('paper');
    expect(loaded.credentials).toBeUndefined();
    expect(loaded.httpToken).toBeUndefined();
    expect(loaded.config.venue.spotUrl).toBeNull();
    expect(loaded.config.venue.recvWindowMs).toBe(4000);
    expect(loaded.config.alerts.webhookUrl).toBeNull();
    expect(loaded.config.strategies.map((s) => s.id)).toEqual(['g']);
    // The same text for a daemon: refused, each missing piece named.
    const err = await problemsOf(DAEMON, {});
    expect(err.problems.map((p) => p.path).sort()).toEqual(['alerts.webhookUrl', 'credentials.file', 'http.tokenFile', 'venue.futuresUrl', 'venue.spotUrl']);
  });

  it('a config without those sections, or with one that is not a map, is checked as before', async () => {
    expect((await parseConfig('strategies: []\n', { env: {}, backtest: true })).config.mode).toBe('paper');
    const err = await parseConfig('venue: 5\nstrategies: []\n', { env: {}, backtest: true }).catch((e: unknown) => e as ConfigError);
    expect((err as ConfigError).problems.map((p) => p.path)).toEqual(['venue']);
  });

  it('still refuses what a backtest uses, with the line', async () => {
    const err = await parseConfig(`${DAEMON}risk: { maxOpenOrders: 0 }\n`, { env: {}, backtest: true }).catch((e: unknown) => e as ConfigError);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => [p.path, p.line])).toEqual([['risk.maxOpenOrders', 8]]);
  });
});

describe('credentials', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function credentialsFile(name: string, mode: number, text = `# sluice\nSLUICE_API_KEY=${KEY}\nexport SLUICE_API_SECRET="${SECRET}"\n`) {
    const file = join(dir, name);
    await writeFile(file, text);
    await chmod(file, mode);
    return file;
  }

  it('come from the environment (both), and paper mode needs none', async () => {
    expect((await parseConfig(LIVE, { env: CREDS })).credentials).toEqual({ apiKey: KEY, apiSecret: SECRET });
    expect((await parseConfig('mode: paper', { env: {} })).credentials).toBeUndefined();
  });

  it('one variable without the other is an error, in paper mode too, naming both and showing neither value', async () => {
    for (const env of [{ SLUICE_API_KEY: KEY }, { SLUICE_API_SECRET: SECRET }]) {
      const err = await problemsOf('mode: paper', env);
      expect(err.problems).toHaveLength(1);
      expect(err.message).toMatch(/credentials: SLUICE_API_(KEY|SECRET) is set but SLUICE_API_(KEY|SECRET) is not: set both/);
      expect(err.message).not.toContain(KEY);
      expect(err.message).not.toContain(SECRET);
    }
  });

  it('refuse a key or secret holding whitespace or a control character, naming the variable and never the value', async () => {
    // Each was accepted, and every signed call then failed in the HTTP client as "outcome unknown".
    for (const [name, env] of [
      ['SLUICE_API_KEY', { ...CREDS, SLUICE_API_KEY: `${KEY}\n` }],
      ['SLUICE_API_KEY', { ...CREDS, SLUICE_API_KEY: `${KEY}\r` }],
      ['SLUICE_API_SECRET', { ...CREDS, SLUICE_API_SECRET: ` ${SECRET}` }],
      ['SLUICE_API_SECRET', { ...CREDS, SLUICE_API_SECRET: `${SECRET.slice(0, 5)}\t${SECRET.slice(5)}` }],
      ['SLUICE_API_SECRET', { ...CREDS, SLUICE_API_SECRET: `${SECRET}\u0000` }],
      ['SLUICE_API_KEY', { ...CREDS, SLUICE_API_KEY: `${KEY}\u200b` }], // a zero-width space, invisible when pasted
    ] as const) {
      const err = await problemsOf(LIVE, env);
      expect(err.problems.map((p) => [p.path, p.message])).toEqual([
        ['credentials', `${name} contains whitespace or a control character (often a pasted line break, or a Windows line end): set it to the ${name === 'SLUICE_API_KEY' ? 'key' : 'secret'} alone, with no spaces, tabs or line breaks`],
      ]);
      expect(err.message).not.toContain(KEY);
      expect(err.message).not.toContain(SECRET.slice(5));
    }
    const both = await problemsOf('mode: paper', { SLUICE_API_KEY: `${KEY}\n`, SLUICE_API_SECRET: `${SECRET}\n` });
    expect(both.problems.map((p) => p.message.split(' ')[0])).toEqual(['SLUICE_API_KEY', 'SLUICE_API_SECRET']);
  });

  it('refuse a credentials file whose key or secret holds whitespace or a control character', async () => {
    const file = await credentialsFile('spaced', 0o600, `SLUICE_API_KEY="${KEY} "\nSLUICE_API_SECRET=${SECRET}\u0001\n`);
    const err = await problemsOf(`${LIVE}credentials: { file: ${file} }`);
    expect(err.problems.map((p) => [p.path, p.message])).toEqual([
      ['credentials.file', `${file}: SLUICE_API_KEY contains whitespace or a control character (often a pasted line break, or a Windows line end): write the value alone after SLUICE_API_KEY=`],
      ['credentials.file', `${file}: SLUICE_API_SECRET contains whitespace or a control character (often a pasted line break, or a Windows line end): write the value alone after SLUICE_API_SECRET=`],
    ]);
    expect(err.message).not.toContain(KEY);
    expect(err.message).not.toContain(SECRET);
  });

  it('come from a file only its owner can read (chmod 600)', async () => {
    const file = await credentialsFile('ok', 0o600);
    const loaded = await parseConfig(`${LIVE}credentials: { file: ${file} }`, { env: {} });
    expect(loaded.credentials).toEqual({ apiKey: KEY, apiSecret: SECRET });
    expect(visible(loaded)).not.toContain(SECRET);
    // Relative paths start at baseDir (process.cwd() when loading a file).
    expect((await parseConfig(`${LIVE}credentials: { file: ok }`, { env: {}, baseDir: dir })).credentials?.apiKey).toBe(KEY);
  });

  it.skipIf(process.platform === 'win32')('refuse a file that group or others can read, with the chmod fix', async () => {
    const file = await credentialsFile('open', 0o644);
    const err = await problemsOf(`${LIVE}credentials:\n  file: ${file}\n`);
    expect(err.message).toContain(`credentials.file (line 4): ${file} is accessible to group or others (mode 644); it holds secrets: run chmod 600 ${file}`);
    expect(err.message).not.toContain(KEY);
  });

  it('the environment wins over the file', async () => {
    const file = await credentialsFile('ignored', 0o644);
    const loaded = await parseConfig(`${LIVE}credentials: { file: ${file} }`, { env: { SLUICE_API_KEY: 'env-key-not-real', SLUICE_API_SECRET: 'env-secret-not-real' } });
    expect(loaded.credentials?.apiKey).toBe('env-key-not-real');
  });

  it('report a missing file, missing lines and stray lines without showing file contents', async () => {
    const missing = await problemsOf(`${LIVE}credentials: { file: ${join(dir, 'nope')} }`);
    expect(missing.message).toContain(`cannot open ${join(dir, 'nope')} (ENOENT)`);

    const file = await credentialsFile('partial', 0o600, `SLUICE_API_KEY=${KEY}\n${SECRET}\n`);
    const err = await problemsOf(`${LIVE}credentials: { file: ${file} }`);
    expect(err.message).toContain(`${file} line 2: expected SLUICE_API_KEY=... or SLUICE_API_SECRET=...`);
    expect(err.message).toContain(`${file} has no SLUICE_API_SECRET=... line`);
    expect(err.message).not.toContain(KEY);
    expect(err.message).not.toContain(SECRET);
  });

  it('can never be written in YAML, however the key is spelt', async () => {
    const err = await problemsOf('venue:\n  api_key: x\nSLUICE_API_SECRET: y\nhttp: { Token: z, password: w }\n', CREDS);
    expect(err.problems.map((p) => p.path)).toEqual(['venue.api_key', 'SLUICE_API_SECRET', 'http.Token', 'http.password']);
    for (const p of err.problems) expect(p.message).toMatch(/^credentials never go in YAML/);
  });
});
