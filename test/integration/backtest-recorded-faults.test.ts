// A backtest of a tape meets the venue's troubles the tape recorded, where it recorded them: a
// 418 with Retry-After, a 503 on spot.order, a 504 on spot.batchOrders, a reset on
// spot.openOrders and a 429 on spot.myTrades. The engine is the live one; only the simulator's
// answers change: it journals the orders whose outcome it cannot know as unknown, the
// reconciler settles them (none placed twice, none lost), nothing leaves during the ban, and
// the report counts what was played. The same tape gives the same report, whichever way it is read.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { incidentsLine } from '../../src/report/index.js';
import { parseConfig } from '../../src/config/index.js';
import { eventCachePath, incidentsOf, readTape, TAPE_VERSION, type TapeCall } from '../../src/tape/index.js';
import { loadStrategies } from '../../src/strategy/index.js';
import { call, T0 } from '../unit/tape/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'sluice-bt-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BATCH_504 = T0 + 60_000;
const ORDER_503 = T0 + 90_000;
const BAN = T0 + 150_000;
/** The recorded 418 arrived 3 ms after it left and said Retry-After: 30. */
const BAN_END = BAN + 3 + 30_000;
const RESET = T0 + 240_000;
const TRADES_429 = T0 + 300_000;

/** A recorded call whose answer has `status`, `body` and `headers` (call() records content-type only). */
function answered(seq: number, method: 'GET' | 'POST', path: string, at: number, status: number, body: string, headers: Record<string, string> = {}): TapeCall {
  const c = call(seq, 'spot', method, path, { at, ms: 3, status, response: body, ...(method === 'GET' ? { query: 'symbol=BTCUSDT' } : {}) });
  if ('response' in c) Object.assign(c.response.headers, headers);
  return c;
}

/**
 * Ten minutes of BTCUSDT: a book and a ticker each second around a mid that swings by 150, a
 * trade on each side every 5 s that sweeps 0.1% past the mid; no market data while the session
 * was banned. And the recording's own troubles at known times.
 */
function faultyTape(): string {
  const calls: TapeCall[] = [];
  let seq = 0;
  for (let s = 1; s <= 600; s++) {
    const at = T0 + s * 1000;
    if (at >= BAN && at < BAN_END) continue;
    const mid = 30000 + 150 * Math.sin(s / 20);
    const px = (x: number) => x.toFixed(2);
    const book = `{"time":${at},"bids":[["${px(mid - 5)}","1"],["${px(mid - 60)}","3"]],"asks":[["${px(mid + 5)}","1"],["${px(mid + 60)}","3"]]}`;
    calls.push(call(seq++, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT&limit=20', at, ms: 2, response: book }));
    calls.push(call(seq++, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT', at: at + 1, ms: 2, response: JSON.stringify({ high: '30200', low: '29800', last: px(mid), vol: '100', buy: px(mid - 5), sell: px(mid + 5), rose: '0.01', time: at }) }));
    if (s % 5 === 0) {
      const trades = [
        { id: 2 * s, price: px(mid * 0.999), qty: '0.5', time: at, side: 'SELL' },
        { id: 2 * s + 1, price: px(mid * 1.001), qty: '0.5', time: at, side: 'BUY' },
      ];
      calls.push(call(seq++, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=BTCUSDT&limit=100', at: at + 2, ms: 2, response: JSON.stringify(trades) }));
    }
  }
  const banned = '{"code":-1003,"msg":"Way too many requests; IP banned."}';
  calls.push(
    answered(seq++, 'POST', '/sapi/v1/batchOrders', BATCH_504, 504, '{"code":-1007,"msg":"Timeout waiting for response from backend server."}'),
    answered(seq++, 'POST', '/sapi/v1/order', ORDER_503, 503, '{"code":-1016,"msg":"Service unavailable"}'),
    // The three market-data loops met the ban at once: one ban.
    answered(seq++, 'GET', '/sapi/v1/depth', BAN, 418, banned, { 'retry-after': '30' }),
    answered(seq++, 'GET', '/sapi/v1/ticker', BAN, 418, banned, { 'retry-after': '30' }),
    answered(seq++, 'GET', '/sapi/v1/trades', BAN + 1, 418, banned, { 'retry-after': '30' }),
    call(seq++, 'spot', 'GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT', at: RESET, ms: 1, failure: { message: 'read ECONNRESET', maybeDelivered: false } }),
    answered(seq++, 'GET', '/sapi/v1/myTrades', TRADES_429, 429, '{"code":-1003,"msg":"Too many requests"}', { 'retry-after': '2' }),
  );
  // Lines are written as answers arrive.
  calls.sort((a, b) => a.at + a.ms - (b.at + b.ms) || a.seq - b.seq);
  const path = join(dir, 'faults.jsonl');
  writeFileSync(path, `${[JSON.stringify({ tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta: {} }), ...calls.map((c) => JSON.stringify(c))].join('\n')}\n`);
  return path;
}

// Six levels a side: twelve places at each requote, ten of them one batch, two single orders.
const CONFIG = `
mode: paper
strategies:
  - { id: grid, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { levels: 6, spacingPct: "0.05", orderVolume: "0.001", maxInventory: "1", requotePct: "0.05" } }
risk: { maxPosition: { BTCUSDT: "1" } }
`;

const log = createLogger({ level: 'fatal', pretty: false, secrets: [] });
const tapePath = faultyTape();

/** `cacheDir`: the event cache a streamed run reads or writes (the shared one for 'cache'); `thread`: a first run decodes on a thread of its own, as a large tape's does. */
async function backtest(source: 'memory' | 'stream' | 'cache', configText = CONFIG, opts: { cacheDir?: string; thread?: boolean } = {}) {
  const { config } = await parseConfig(configText, { env: {} });
  const strategies = await loadStrategies(config.strategies, ROOT);
  const cacheDir = opts.cacheDir ?? (source === 'cache' ? join(dir, 'cache') : undefined);
  const from = source === 'memory' ? { tape: await readTape(tapePath) } : { tapePath, ...(cacheDir !== undefined ? { eventCacheDir: cacheDir } : {}), ...(opts.thread !== undefined ? { decodeThread: opts.thread } : {}) };
  return runBacktest({ config, strategies, log, tapeName: 'faults', ...from });
}

describe('a backtest of a tape that recorded the venue’s troubles', () => {
  it('meets each where the recording met it, settles every order whose outcome was lost, and counts them in the report', async () => {
    const { report, sim, app } = await backtest('stream');
    const arrivals = sim.arrivals();
    const met = arrivals.filter((a) => a.incident);
    // Each incident met the first request on its endpoint at or after its time; the ban, every request in its window.
    const first = (endpoint: string, from: number) => arrivals.find((a) => a.endpoint === endpoint && a.at >= from);
    for (const [endpoint, at, kind, status] of [
      ['spot.batchOrders', BATCH_504, 'unknown_outcome', 504],
      ['spot.order', ORDER_503, 'error', 503],
      ['spot.openOrders', RESET, 'reset', 0],
      ['spot.myTrades', TRADES_429, 'rate_limit', 429],
    ] as const) {
      expect(first(endpoint, at), endpoint).toMatchObject({ incident: kind, status });
      expect(met.filter((a) => a.incident === kind), kind).toHaveLength(1);
    }
    const inBan = arrivals.filter((a) => a.at >= BAN && a.at < BAN_END);
    expect(inBan.length).toBeGreaterThan(0);
    // Only the requests already on their way when it began: nothing was sent after the 418.
    for (const a of inBan) expect(a).toMatchObject({ at: inBan[0]!.at, status: 418, incident: 'ban' });
    expect(arrivals.find((a) => a.at >= BAN_END)!.at - BAN_END).toBeLessThan(1000);

    // The batch's ten orders and the single one were journaled unknown; none is unknown now.
    const orders = app.journal.orders();
    const wasUnknown = orders.filter((o) => app.journal.history(o.clientOrderId).some((e) => e.status === 'unknown'));
    expect(wasUnknown).toHaveLength(11);
    expect(report.orders.unknown).toBe(11);
    expect(orders.filter((o) => o.status === 'unknown')).toEqual([]);
    // The venue placed the batch (it acted before the 504) and never saw the 503's order.
    const placed = new Map(sim.orderLog().map((o) => [o.clientOrderId!, o]));
    const byAnswer = (status: number) => wasUnknown.filter((o) => placed.has(o.clientOrderId) === (status === 504));
    expect(byAnswer(504)).toHaveLength(10);
    for (const o of byAnswer(504)) expect(o).toMatchObject({ venueOrderId: placed.get(o.clientOrderId)!.orderId });
    expect(byAnswer(503).map((o) => o.status)).toEqual(['rejected']);
    // Never placed twice, never lost: the venue's orders are the journal's, one each.
    expect(placed.size).toBe(sim.orderLog().length);
    for (const o of sim.orderLog()) expect(app.journal.order(o.clientOrderId!)?.venueOrderId, o.clientOrderId).toBe(o.orderId);
    for (const o of orders) if (o.venueOrderId) expect(placed.get(o.clientOrderId)?.orderId).toBe(o.venueOrderId);

    expect(report.recordedIncidents).toEqual({
      onTape: 5,
      played: 5,
      byKind: { ban: { onTape: 1, played: 1 }, error: { onTape: 1, played: 1 }, rate_limit: { onTape: 1, played: 1 }, reset: { onTape: 1, played: 1 }, unknown_outcome: { onTape: 1, played: 1 } },
    });
    expect(incidentsLine(report)).toBe('recorded venue incidents played 5 of 5 (ban 1/1, error 1/1, rate limit 1/1, reset 1/1, unknown outcome 1/1)');
  }, 120_000);

  it('gives a byte-identical report twice, from memory, streamed, and from the event cache', async () => {
    const reports: string[] = [];
    for (const source of ['memory', 'stream', 'stream', 'cache', 'cache'] as const) reports.push(JSON.stringify((await backtest(source)).report));
    for (const r of reports.slice(1)) expect(r).toBe(reports[0]);
    expect(JSON.parse(reports[0]!)).toMatchObject({ recordedIncidents: { onTape: 5, played: 5 } });
  }, 300_000);

  it('a first run, decoded in process or on a thread, gives the report and the incidents a cached run gives', async () => {
    const inMemory = JSON.stringify((await backtest('memory')).report);
    const want = incidentsOf((await readTape(tapePath)).calls);
    expect(want).toHaveLength(5);
    for (const thread of [false, true]) {
      const cacheDir = mkdtempSync(join(dir, `first-${thread}-`));
      const first = await backtest('stream', CONFIG, { cacheDir, thread });
      // The events and, beside them, the incidents the run met: the same list the tape in memory gives.
      const events = await eventCachePath(tapePath, cacheDir);
      expect(readdirSync(cacheDir).sort()).toEqual([events, events.replace(/\.events$/, '.incidents'), events.replace(/\.events$/, '.listings')].map((p) => p.slice(cacheDir.length + 1)));
      expect(JSON.parse(readFileSync(events.replace(/\.events$/, '.incidents'), 'utf8'))).toEqual({ version: 2, payload: want });
      expect(first.sim.troubles.incidents().given).toEqual({ ban: 1, rate_limit: 1, error: 1, unknown_outcome: 1, reset: 1 });
      const cached = await backtest('stream', CONFIG, { cacheDir, thread });
      expect(JSON.stringify(first.report)).toBe(inMemory);
      expect(JSON.stringify(cached.report)).toBe(inMemory);
      expect(cached.sim.arrivals()).toEqual(first.sim.arrivals());
    }
  }, 300_000);

  it('with sim.recordedFaults false, meets none and says nothing of them', async () => {
    const { report, sim } = await backtest('stream', `${CONFIG}\nsim: { recordedFaults: false }\n`);
    expect(sim.arrivals().filter((a) => a.incident)).toEqual([]);
    expect(report.recordedIncidents).toBeUndefined();
    expect(report.orders.unknown).toBe(0);
  }, 120_000);
});
