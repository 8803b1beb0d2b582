// What only the venue can tell is refused at start-up, naming the config field: a symbol it does
// not list, a feed its market cannot poll. A failure that repeats every poll or pass is logged
// once, then counted. Against a stand-in venue over real HTTP on 127.0.0.1.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import type { App } from '../../src/app/build.js';
import { defineStrategy, z, type MarketSubscription } from '../../src/strategy/api.js';
import { liveApp, passes } from '../fixtures/app.js';
import { childEnv, DaemonProcess } from '../fixtures/daemon-process.js';
import { startVenueServer, type Answer, type Arrival, type VenueServer } from '../fixtures/venue-server.js';

const KEY = 'refusals-key-7Hq2';
const SECRET = 'refusals-secret-0123456789abcdef';

let server: VenueServer | undefined;
let app: App | undefined;
afterEach(async () => {
  await app?.stop();
  await server?.close();
  app = undefined;
  server = undefined;
});

const subscriber = (subscriptions: MarketSubscription[]) => defineStrategy({ apiVersion: 1, name: 'listener', params: z.object({}), subscribe: () => subscriptions, create: () => ({}) });
const journal = () => join(mkdtempSync(join(tmpdir(), 'sluice-refusals-')), 'journal.db');
const routeOf = (a: Arrival) => `${a.method} ${a.path}`;
/** Nothing to cancel at stop, so stop() need not wait out drift's grace period. */
const QUICK_STOP = { engine: { shutdown: { cancelOpenOrders: false } } };

async function venue(respond?: (a: Arrival) => Answer | undefined) {
  server = await startVenueServer({ apiKey: KEY, apiSecret: SECRET, respond });
  return { url: server.url, apiKey: KEY, apiSecret: SECRET };
}

describe('start-up refuses what the venue cannot do', () => {
  it('a symbol the venue does not list, naming the field and what the venue lists; nothing is polled or placed', async () => {
    const built = await liveApp(await venue(), journal(), [{ id: 'doge', definition: subscriber([{ kind: 'ticker' }]), symbols: ['BTCUSDT', 'DOGEUSDT'] }], QUICK_STOP);
    app = built.app;
    const err = (await app.start().catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems).toEqual([{ path: 'strategies[0].symbols[1]', message: "DOGEUSDT is not listed by the venue's spot market: fix or remove it (the venue's spot market lists BTCUSDT)" }]);
    expect(server!.arrivals.map(routeOf).filter((r) => /ticker|order/i.test(r))).toEqual([]);
  });

  it('a futures strategy subscribing to trades, which the futures REST API does not serve, or to klines in an interval futures lacks; nothing is polled', async () => {
    const built = await liveApp(await venue(), journal(), [
      { id: 'fut', market: 'futures', definition: subscriber([{ kind: 'klines', interval: '4h' }, { kind: 'klines', interval: '1min', history: 5 }, { kind: 'depth' }, { kind: 'trades' }]), symbols: ['E-BTC-USDT'] },
    ], QUICK_STOP);
    app = built.app;
    const err = (await app.start().catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems).toEqual([
      { path: 'strategies[0].market', message: "futures: the plugin listener subscribes to trades, which this market cannot poll (futures trades are not served by the venue's REST API; subscribe to ticker, depth or klines)" },
      { path: 'strategies[0].params', message: 'the plugin listener subscribes to klines interval 4h: futures serves 1min, 5min, 15min, 30min, 60min, 1h, 1day, 1week, 1month' },
    ]);
    expect(server!.arrivals.map(routeOf).filter((r) => /depth|klines|trades/.test(r))).toEqual([]);
  });

  it('a futures strategy whose klines warm-up is longer than one page', async () => {
    const built = await liveApp(await venue(), journal(), [{ id: 'fut', market: 'futures', definition: subscriber([{ kind: 'klines', interval: '1h', history: 300 }]), symbols: ['E-BTC-USDT'] }], QUICK_STOP);
    app = built.app;
    const err = (await app.start().catch((e: unknown) => e)) as ConfigError;
    expect(err.problems).toEqual([{ path: 'strategies[0].params', message: 'the plugin listener subscribes to klines history 300: one request gives at most 300 candles, the forming one among them; ask for 299 or fewer' }]);
  });
});

describe('spot market data as the venue serves it', () => {
  it('refuses a page larger than the venue gives and an interval spot lacks, naming the strategy\'s field; nothing is polled', async () => {
    const built = await liveApp(await venue(), journal(), [
      { id: 'big', definition: subscriber([{ kind: 'klines', interval: '4h' }, { kind: 'depth', limit: 500 }, { kind: 'trades', limit: 1000 }]), symbols: ['BTCUSDT'] },
    ], QUICK_STOP);
    app = built.app;
    const err = (await app.start().catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems).toEqual([
      { path: 'strategies[0].params', message: 'the plugin listener subscribes to klines interval 4h: spot serves 1min, 5min, 15min, 30min, 60min, 1h, 1day, 1week, 1month' },
      { path: 'strategies[0].params', message: 'the plugin listener subscribes to depth limit 500: the venue gives 1 to 100 a request; ask for 100 or fewer' },
    ]);
    expect(server!.arrivals.map(routeOf).filter((r) => /depth|klines|trades/.test(r))).toEqual([]);
  });

  it('asks spot for the hour as 60min', async () => {
    const built = await liveApp(await venue(), journal(), [{ id: 'hourly', definition: subscriber([{ kind: 'klines', interval: '1h' }]), symbols: ['BTCUSDT'] }], QUICK_STOP);
    app = built.app;
    await app.start();
    const klines = server!.arrivals.filter((a) => routeOf(a) === 'GET /sapi/v1/klines');
    expect(klines.length).toBeGreaterThan(0);
    for (const a of klines) expect(new URLSearchParams(a.query).get('interval')).toBe('60min');
  });
});

describe('repeated failures', () => {
  it('a feed and a reconcile that fail every time are each logged once, then counted, not once per poll or pass', async () => {
    let depthAsked = 0;
    let sixthDepth!: () => void;
    const sixDepths = new Promise<void>((r) => (sixthDepth = r));
    const failing: Answer = { status: 500, body: '{"code":-1000,"msg":"internal error"}' };
    // The trades fail once the daemon runs: strategies start only after a start-up pass that read them.
    let tradesFail = false;
    const access = await venue((a) => {
      if (routeOf(a) === 'GET /sapi/v1/depth' && ++depthAsked === 6) sixthDepth();
      return routeOf(a) === 'GET /sapi/v1/depth' || (tradesFail && routeOf(a) === 'GET /sapi/v1/myTrades') ? failing : undefined;
    });
    const built = await liveApp(access, journal(), [{ id: 'depth', definition: subscriber([{ kind: 'depth', limit: 5 }]), symbols: ['BTCUSDT'] }], {
      venue: { retry: { retries: 0 } },
      engine: { shutdown: { cancelOpenOrders: false } },
    });
    app = built.app;
    await app.start();
    tradesFail = true;
    await sixDepths;
    await passes(app, 5);
    const failed = (msg: RegExp) => built.tap.lines.map((l) => JSON.parse(l) as { msg: string; symbol?: string }).filter((l) => msg.test(l.msg));
    expect(depthAsked).toBeGreaterThanOrEqual(6);
    expect(failed(/^market data poll failed/)).toEqual([expect.objectContaining({ msg: 'market data poll failed', symbol: 'BTCUSDT' })]);
    expect(failed(/^reconcile failed/)).toEqual([expect.objectContaining({ msg: 'reconcile failed; will retry', symbol: 'BTCUSDT' })]);
  });
});

describe('sluice run in paper mode: the dashboard URL only once the daemon has started', () => {
  const ROOT = resolve(import.meta.dirname, '../..');
  /** `sluice run` on a paper config trading `symbols`, its ops endpoint on a free port. */
  function run(symbols: string) {
    const path = join(mkdtempSync(join(tmpdir(), 'sluice-run-refusal-')), 'sluice.yaml');
    writeFileSync(path, ['mode: paper', 'http: { port: 0 }', 'strategies:', `  - { id: g1, use: strategies/grid/index.ts, symbols: [${symbols}] }`, ''].join('\n'));
    const child = spawn(process.execPath, [resolve(ROOT, 'bin/sluice.js'), 'run', '--config', path], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    // 'close': the child exited and both of its streams were read to their end.
    const closed = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    return { daemon: new DaemonProcess(child), closed };
  }

  it('a start the simulator refuses (a symbol it does not list) prints no dashboard URL and exits 1', async () => {
    const { daemon, closed } = run('BTCUSDT, DOGEUSDT');
    expect(await closed).toBe(1);
    const fatal = daemon.lines.find((l) => l.msg === 'could not start');
    expect(String(fatal?.err), daemon.stdout + daemon.stderr).toContain("DOGEUSDT is not listed by the venue's spot market");
    expect(daemon.stderr).not.toContain('dashboard:');
    expect(daemon.stderr).not.toMatch(/https?:\/\//);
    // The listening line named the endpoint's URL; the last line says it closed.
    expect(daemon.lines.at(-1)?.msg).toMatch(/^ops endpoint closed/);
  }, 60_000);

  it('a start that succeeds prints the dashboard URL, and the dashboard answers there', async () => {
    const { daemon, closed } = run('BTCUSDT');
    await daemon.waitFor((l) => l.msg === 'running; Ctrl-C stops', 'running');
    const url = await new Promise<string>((r) => {
      const look = () => {
        const m = /^dashboard: (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(daemon.stderr);
        if (m) r(m[1]!);
        else daemon.child.stderr!.once('data', () => setImmediate(look));
      };
      look();
    });
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>sluice dashboard</title>');
    daemon.child.kill('SIGTERM');
    expect(await closed).toBe(0);
  }, 60_000);
});
