// A backtest serves a klines strategy the venue's history the tape recorded: live, the daemon's
// first klines read brought the strategy's warm-up at once, and the recorder kept that answer.
// Before, the simulator built candles only from the tape's trades, so a strategy wanting 20
// one-minute candles never started on a 3-minute tape, though it had traded live at once.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { parseConfig } from '../../src/config/index.js';
import type { Market } from '../../src/core/types.js';
import { defineStrategy, z, type Candle } from '../../src/strategy/api.js';
import { TAPE_VERSION } from '../../src/tape/index.js';
import { loaded } from '../fixtures/engine-parts.js';
import { call, T0 } from '../unit/tape/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-bt-klines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MINUTE = 60_000;
/** The minute the tape's first answers arrive in (T0 is 20 s into it). */
const FIRST_MINUTE = Math.floor((T0 + 1000) / MINUTE) * MINUTE;

/** The venue's 20 closed one-minute candles before the tape's first minute, as it answered them (trailing zeros, numbers and strings), and the forming one. */
function recordedKlines(): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (let i = 20; i >= 1; i--) {
    const open = 30000 + i;
    out.push({ idx: FIRST_MINUTE - i * MINUTE, open: `${open}.50`, close: `${open + 1}.25`, high: open + 2, low: `${open - 1}.75`, vol: `1.${String(i).padStart(3, '0')}00` });
  }
  out.push({ idx: FIRST_MINUTE, open: '30001.25', close: '30002', high: '30003', low: '30000', vol: '0.5' });
  return out;
}

/** The symbol each market's tape is of. */
const SYMBOL: Record<Market, string> = { spot: 'BTCUSDT', futures: 'E-BTC-USDT' };

/**
 * Three minutes of BTCUSDT: the klines answer first (with the first book), then a book a second
 * and a trade every 5 s. Of E-BTC-USDT (futures): the contract's klines answer (the family's
 * envelope), then a book a second (futures has no public trades).
 */
function klinesTape(withKlines: boolean, market: Market = 'spot'): string {
  const lines = [JSON.stringify({ tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta: {} })];
  let seq = 0;
  if (market === 'spot') {
    const listing = '{"symbols":[{"symbol":"btcusdt","baseAsset":"BTC","quoteAsset":"USDT","pricePrecision":2,"quantityPrecision":5}]}';
    lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/symbols', { at: T0, ms: 3, response: listing })));
    if (withKlines) lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/klines', { query: 'symbol=BTCUSDT&interval=1min&limit=21', at: T0 + 1000, ms: 2, response: JSON.stringify(recordedKlines()) })));
  } else {
    const listing = '[{"symbol":"E-BTC-USDT","contractId":1,"pricePrecision":1,"side":1,"multiplier":0.001,"multiplierCoin":"BTC","minOrderVolume":1,"type":"E","status":1}]';
    lines.push(JSON.stringify(call(seq++, 'futures', 'GET', '/fapi/v1/contracts', { at: T0, ms: 3, response: listing })));
    if (withKlines) lines.push(JSON.stringify(call(seq++, 'futures', 'GET', '/fapi/v1/klines', { query: 'contractName=E-BTC-USDT&interval=1min&limit=21', at: T0 + 1000, ms: 2, response: JSON.stringify({ code: '0', msg: 'success', data: recordedKlines() }) })));
  }
  for (let s = 1; s <= 180; s++) {
    const at = T0 + s * 1000;
    const mid = 30000 + (s % 7);
    const book = JSON.stringify({ time: at, bids: [[`${mid - 1}`, '1']], asks: [[`${mid + 1}`, '1']] });
    if (market === 'futures') {
      lines.push(JSON.stringify(call(seq++, 'futures', 'GET', '/fapi/v1/depth', { query: 'contractName=E-BTC-USDT&limit=20', at, ms: 2, response: book })));
      continue;
    }
    lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT&limit=20', at, ms: 2, response: book })));
    if (s % 5 === 0) lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=BTCUSDT&limit=100', at: at + 1, ms: 2, response: JSON.stringify([{ id: s, price: `${mid}`, qty: '0.01', time: at, side: 'BUY' }]) })));
  }
  const path = join(dir, `btc-${market}-${withKlines}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** A trend-style strategy that wants 20 closed one-minute candles before it decides: what it saw at its first decision. */
function warmUp(market: Market) {
  const seen: { at?: number; candles?: readonly Candle[]; decisions: number } = { decisions: 0 };
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'warm-up',
    params: z.object({}),
    subscribe: () => [{ kind: 'klines', interval: '1min', history: 20 }],
    create: (ctx) => ({
      onStart() {
        seen.decisions++;
        seen.at = ctx.now();
        seen.candles = ctx.klines(SYMBOL[market], '1min');
      },
    }),
  });
  return { definition, seen };
}

type How = 'in memory' | 'decoded in process' | 'decoded on a thread' | 'from the event cache';

async function run(tapePath: string, how: How, market: Market = 'spot') {
  const { config } = await parseConfig('mode: paper\nsim: { seed: 3 }\n', { env: {} });
  const probe = warmUp(market);
  const { readTape } = await import('../../src/tape/index.js');
  // The thread writes a cache of its own; the in-process decoding writes the one the last run reads.
  const cache = join(dir, how === 'decoded on a thread' ? 'thread-cache' : 'cache');
  const source = how === 'in memory' ? { tape: await readTape(tapePath) } : { tapePath, eventCacheDir: cache, decodeThread: how === 'decoded on a thread' };
  const result = await runBacktest({ config, strategies: [loaded('warm-up', probe.definition, { everyMs: 1000, market, symbols: [SYMBOL[market]] })], log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), tapeName: 'btc', ...source });
  return { seen: probe.seen, result };
}

describe('a backtest of a tape holding a klines answer', () => {
  // In this order: the last run reads the event cache the in-process decoding wrote.
  it.each<How>(['in memory', 'decoded in process', 'decoded on a thread', 'from the event cache'])('serves the recorded candles to a strategy’s warm-up at the tape’s start (%s)', async (how) => {
    const tapePath = klinesTape(true);
    if (how === 'from the event cache') expect(readdirSync(join(dir, 'cache')).filter((n) => n.endsWith('.events'))).toHaveLength(1);
    const { seen, result } = await run(tapePath, how);
    expect(seen.decisions).toBe(1);
    // It decided in the tape's first minute, before the simulator had closed a candle of its own.
    expect(Math.floor(seen.at! / MINUTE) * MINUTE).toBe(FIRST_MINUTE);
    const candles = seen.candles!;
    const closed = candles.filter((c) => c.closed);
    expect(closed).toHaveLength(20);
    // The venue's values, as the live client reads them (decimal strings, trailing zeros gone).
    expect(closed[0]).toEqual({ openTime: FIRST_MINUTE - 20 * MINUTE, open: '30020.5', close: '30021.25', high: '30022', low: '30019.75', vol: '1.02', closed: true });
    expect(closed[19]).toEqual({ openTime: FIRST_MINUTE - MINUTE, open: '30001.5', close: '30002.25', high: '30003', low: '30000.75', vol: '1.001', closed: true });
    expect(closed.map((c) => c.openTime)).toEqual(Array.from({ length: 20 }, (_, i) => FIRST_MINUTE - (20 - i) * MINUTE));
    // The forming candle is the simulator's own, built from the tape's market, not the recorded one.
    expect(candles.at(-1)).toMatchObject({ openTime: FIRST_MINUTE, closed: false });
    expect(candles).toHaveLength(21);
    // Later reads: the recorded history, then the candles the replayed trades built, one a minute.
    const m = result.sim.markets.get('BTCUSDT')!;
    expect(m.klines((t) => Math.floor(t / MINUTE) * MINUTE, { limit: 300 })[0]!.idx).toBe(FIRST_MINUTE);
    expect(result.untaped).toEqual([]);
  }, 60_000);

  it('of a futures contract: its recorded klines answer serves a futures strategy’s warm-up at the tape’s start; without it the strategy waits', async () => {
    const { seen } = await run(klinesTape(true, 'futures'), 'in memory', 'futures');
    expect(seen.decisions).toBe(1);
    expect(Math.floor(seen.at! / MINUTE) * MINUTE).toBe(FIRST_MINUTE);
    const closed = seen.candles!.filter((c) => c.closed);
    expect(closed.map((c) => c.openTime)).toEqual(Array.from({ length: 20 }, (_, i) => FIRST_MINUTE - (20 - i) * MINUTE));
    expect(closed[0]).toEqual({ openTime: FIRST_MINUTE - 20 * MINUTE, open: '30020.5', close: '30021.25', high: '30022', low: '30019.75', vol: '1.02', closed: true });
    expect((await run(klinesTape(false, 'futures'), 'in memory', 'futures')).seen.decisions).toBe(0);
  }, 60_000);

  it('the klines answer is all that differs: the same tape without it leaves the strategy waiting for its warm-up, as before', async () => {
    const without = await run(klinesTape(false), 'in memory');
    const withIt = await run(klinesTape(true), 'in memory');
    expect([without.seen.decisions, withIt.seen.decisions]).toEqual([0, 1]);
    // The market the tape drives is the same either way: recorded candles move nothing.
    const built = (r: typeof without) => r.result.sim.markets.get('BTCUSDT')!.klines((t) => Math.floor(t / MINUTE) * MINUTE, { limit: 300 });
    expect(built(withIt)).toEqual(built(without));
  }, 60_000);
});
