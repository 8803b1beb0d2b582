// Determinism: the same seed and the same requests at the same times give byte-identical
// answers, over HTTP and in-process alike; and the `sluice sim` command's lifecycle.
import { EventEmitter } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { SimExchange, SimTransport, type SimOptions } from '../../src/sim/index.js';
import { runSimCommand } from '../../src/commands/sim.js';
import { hmacHex, NoAnswer, send, startVenue, T0, type Venue } from './sim-client.js';

const venues: Venue[] = [];
afterAll(async () => {
  await Promise.all(venues.map((v) => v.server.close()));
});

type Step = { advance: number } | { method: 'GET' | 'POST'; path: string; query?: string; body?: object; signed?: boolean };

const SCRIPT: Step[] = [
  { method: 'GET', path: '/sapi/v1/depth', query: 'symbol=BTCUSDT&limit=10' },
  { method: 'POST', path: '/sapi/v1/order', body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '30050', volume: '0.3', newClientOrderId: 'd1' }, signed: true },
  { advance: 777 },
  { method: 'POST', path: '/sapi/v1/order', body: { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', price: '29990', volume: '0.05' }, signed: true },
  { method: 'POST', path: '/sapi/v1/order', body: { symbol: 'ETHUSDT', side: 'BUY', type: 'MARKET', volume: '500' }, signed: true },
  { advance: 60_000 },
  { method: 'GET', path: '/sapi/v1/ticker', query: 'symbol=BTCUSDT' },
  { method: 'GET', path: '/sapi/v1/trades', query: 'symbol=ETHUSDT&limit=20' },
  { method: 'POST', path: '/fapi/v1/order', body: { contractName: 'E-BTC-USDT', side: 'BUY', type: 'MARKET', volume: '7', open: 'OPEN', positionType: 1 }, signed: true },
  { advance: 30_000 },
  { method: 'GET', path: '/sapi/v1/myTrades', query: 'symbol=BTCUSDT', signed: true },
  { method: 'GET', path: '/sapi/v1/account', signed: true },
  { method: 'GET', path: '/fapi/v1/account', signed: true },
  { method: 'GET', path: '/sapi/v1/klines', query: 'symbol=BTCUSDT&interval=1min', signed: false },
  { method: 'GET', path: '/sapi/v1/openOrders', query: 'symbol=BTCUSDT', signed: true },
];

function request(step: Exclude<Step, { advance: number }>, ex: { apiKey: string; apiSecret: string }, now: number) {
  const body = step.method === 'POST' ? JSON.stringify(step.body ?? {}) : '';
  const query = step.query ?? '';
  const headers: Record<string, string> = step.method === 'POST' ? { 'Content-Type': 'application/json' } : {};
  if (step.signed) {
    const ts = String(now);
    headers['X-CH-APIKEY'] = ex.apiKey;
    headers['X-CH-TS'] = ts;
    headers['X-CH-SIGN'] = hmacHex(ex.apiSecret, `${ts}${step.method}${step.path}${query ? `?${query}` : ''}${body}`);
  }
  return { method: step.method, path: step.path, query, body, headers };
}

const FAULTS = { error5xxRate: 0.1, lostResponseRate: 0.2, lateFillRate: 0.5, lateFillDelayMs: 20_000 };

/** The strict profile, with the fault that acts and then answers an error on top. */
const STRICT: SimOptions = { profile: 'strict', faults: { ...FAULTS, errorAfterActRate: 0.3 } };

async function overHttp(seed: number, opts: SimOptions = {}): Promise<string[]> {
  const v = await startVenue({ seed, rateLimits: false, faults: FAULTS, ...opts });
  venues.push(v);
  const out: string[] = [];
  for (const step of SCRIPT) {
    if ('advance' in step) {
      await v.clock.advance(step.advance);
      continue;
    }
    const r = request(step, v.server, v.clock.now());
    try {
      const res = await send(v.server.url, r.method, r.query ? `${r.path}?${r.query}` : r.path, r.headers, r.method === 'POST' ? r.body : undefined);
      out.push(`${res.status} ${res.body}`);
    } catch (e) {
      out.push(e instanceof NoAnswer ? 'no answer' : String(e));
    }
  }
  return out;
}

async function inProcess(seed: number, opts: SimOptions = {}): Promise<string[]> {
  const clock = new ManualClock(T0);
  const ex = new SimExchange({ seed, clock, rateLimits: false, faults: FAULTS, profile: 'lenient', ...opts });
  const t = new SimTransport(ex);
  const out: string[] = [];
  for (const step of SCRIPT) {
    if ('advance' in step) {
      await clock.advance(step.advance);
      continue;
    }
    try {
      const res = await t.send(request(step, ex, clock.now()));
      out.push(`${res.status} ${res.body}`);
    } catch {
      out.push('no answer');
    }
  }
  return out;
}

describe('determinism', () => {
  it('same seed, same requests at the same times: identical answers, over HTTP and in-process', async () => {
    const a = await overHttp(42);
    const b = await overHttp(42);
    expect(b).toEqual(a);
    expect(await inProcess(42)).toEqual(a);
    // The script exercises fills and faults, not only errors.
    expect(a.some((x) => x.startsWith('200') && x.includes('"FILLED"'))).toBe(true);
    expect(a.every((x) => x === 'no answer' || x.startsWith('200') || x.startsWith('503'))).toBe(true);
  });

  it('the strict profile too (live shapes, error-after-act answers), and it answers otherwise than lenient', async () => {
    const a = await overHttp(42, STRICT);
    expect(await overHttp(42, STRICT)).toEqual(a);
    expect(await inProcess(42, STRICT)).toEqual(a);
    expect(a).not.toEqual(await inProcess(42));
    // Strict shapes are on the wire: 8-place decimals in the account, and nulls in futures.
    expect(a.some((x) => x.startsWith('200 {"balances":[{"asset":"BTC","free":') && /"free":\d+\.\d{8}/.test(x))).toBe(true);
    expect(a.some((x) => x.includes('"achievedAmount":null'))).toBe(true);
    // The script's writes met the fault, in each of its shapes' statuses or in none (seeded).
    expect(a.some((x) => /^(500|502) /.test(x) || x.startsWith('200 {"code":-1001'))).toBe(true);
    expect(a.every((x) => x === 'no answer' || /^(200|500|502|503) /.test(x))).toBe(true);
  });

  it('another seed gives another market', async () => {
    expect(await inProcess(43)).not.toEqual(await inProcess(42));
  });

  it('credentials generated from the seed are stable; given ones are used as they are', () => {
    const a = new SimExchange({ seed: 5, clock: new ManualClock(T0) });
    const b = new SimExchange({ seed: 5, clock: new ManualClock(T0) });
    expect([a.apiKey, a.apiSecret]).toEqual([b.apiKey, b.apiSecret]);
    expect(a.apiKey).not.toBe(new SimExchange({ seed: 6, clock: new ManualClock(T0) }).apiKey);
    const c = new SimExchange({ apiKey: 'k', apiSecret: 's', clock: new ManualClock(T0) });
    expect([c.apiKey, c.apiSecret]).toEqual(['k', 's']);
  });
});

describe('sluice sim (runSimCommand)', () => {
  it('prints its URL and credentials, serves, and stops cleanly on SIGTERM', async () => {
    const lines: string[] = [];
    const signals = new EventEmitter();
    let listening!: () => void;
    const started = new Promise<void>((r) => (listening = r));
    const done = runSimCommand(
      { port: 0, seed: 3, apiKey: 'my-key', apiSecret: 'my-secret' },
      {
        out: (l) => {
          lines.push(l);
          if (l.startsWith('api secret:')) listening();
        },
        signals,
      },
    );
    await started;
    const url = /^sluice sim listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[0]!)?.[1];
    expect(url).toBeDefined();
    expect(lines.slice(1)).toEqual(['api key: my-key', 'api secret: my-secret']);
    expect((await send(url!, 'GET', '/sapi/v1/ping', {})).json).toEqual({});
    // Hours of market before it started, as a live venue has: a klines warm-up is met at once.
    const candles = (await send(url!, 'GET', '/sapi/v1/klines?symbol=BTCUSDT&interval=5min', {})).json as { idx: number }[];
    expect(candles.length).toBeGreaterThanOrEqual(36);
    expect(Date.now() - candles[0]!.idx).toBeGreaterThanOrEqual(3 * 3_600_000 - 5 * 60_000);
    // Oldest first, one candle per 5 minutes (the market's opening minute sorted among its past).
    for (let i = 1; i < candles.length; i++) expect(candles[i]!.idx - candles[i - 1]!.idx).toBe(300_000);
    signals.emit('SIGTERM');
    await done;
    expect(lines[lines.length - 1]).toBe('sluice sim stopped');
    await expect(send(url!, 'GET', '/sapi/v1/ping', {})).rejects.toBeInstanceOf(NoAnswer);
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
  });
});
