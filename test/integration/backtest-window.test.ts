// --from and --to: a backtest over a part of a tape. The tape before the window sets the market
// the run starts on (no strategy hears it); the run's clock, its fills, its report and the
// recorded venue troubles it meets are the window's; a window outside the tape is refused,
// saying what the tape covers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import type { TapeWindow } from '../../src/core/types.js';
import { parseConfig } from '../../src/config/index.js';
import { defineStrategy, z } from '../../src/strategy/api.js';
import { loadStrategies } from '../../src/strategy/index.js';
import { readTape, TAPE_VERSION, type TapeCall } from '../../src/tape/index.js';
import { loaded } from '../fixtures/engine-parts.js';
import { call, T0 } from '../unit/tape/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'sluice-bt-window-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FROM = T0 + 200_000;
const TO = T0 + 400_000;
const ORDER_503 = T0 + 90_000;
const RESET = T0 + 240_000;
/** The tape's first and last market events: answers count when they arrived. */
const FIRST = T0 + 1002;
const LAST = T0 + 600_004;
const midAt = (s: number) => 30000 + 10 * (s % 40);

/** Ten minutes of BTCUSDT (a book and a ticker each second, a trade each side every 5 s) and two recorded troubles: one before the window, one in it. */
function tape(): string {
  const calls: TapeCall[] = [];
  let seq = 0;
  for (let s = 1; s <= 600; s++) {
    const at = T0 + s * 1000;
    const mid = midAt(s);
    calls.push(call(seq++, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT&limit=20', at, ms: 2, response: JSON.stringify({ time: at, bids: [[`${mid - 5}`, '1'], [`${mid - 60}`, '3']], asks: [[`${mid + 5}`, '1'], [`${mid + 60}`, '3']] }) }));
    calls.push(call(seq++, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT', at: at + 1, ms: 2, response: JSON.stringify({ high: '30500', low: '29500', last: `${mid}`, vol: '100', buy: `${mid - 5}`, sell: `${mid + 5}`, rose: '0.01', time: at }) }));
    if (s % 5 === 0) {
      const trades = [
        { id: 2 * s, price: `${mid - 30}`, qty: '0.5', time: at, side: 'SELL' },
        { id: 2 * s + 1, price: `${mid + 30}`, qty: '0.5', time: at, side: 'BUY' },
      ];
      calls.push(call(seq++, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=BTCUSDT&limit=100', at: at + 2, ms: 2, response: JSON.stringify(trades) }));
    }
  }
  calls.push(
    call(seq++, 'spot', 'POST', '/sapi/v1/order', { at: ORDER_503, ms: 3, status: 503, response: '{"code":-1016,"msg":"Service unavailable"}' }),
    call(seq++, 'spot', 'GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT', at: RESET, ms: 1, failure: { message: 'read ECONNRESET', maybeDelivered: false } }),
  );
  calls.sort((a, b) => a.at + a.ms - (b.at + b.ms) || a.seq - b.seq);
  const path = join(dir, 'ten-minutes.jsonl');
  writeFileSync(path, `${[JSON.stringify({ tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta: {} }), ...calls.map((c) => JSON.stringify(c))].join('\n')}\n`);
  return path;
}

/** What a strategy saw at its start: the time and the last price. */
function probe() {
  const seen: { at?: number; last?: string } = {};
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'probe',
    params: z.object({}),
    subscribe: () => [{ kind: 'ticker' }],
    create: (ctx) => ({
      onStart() {
        seen.at = ctx.now();
        seen.last = ctx.lastPrice('BTCUSDT');
      },
    }),
  });
  return { definition, seen };
}

const CONFIG = `
mode: paper
strategies:
  - { id: grid, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { levels: 3, spacingPct: "0.05", orderVolume: "0.001", maxInventory: "1", requotePct: "0.05" } }
risk: { maxPosition: { BTCUSDT: "1" } }
`;
const tapePath = tape();

async function backtest(window: TapeWindow | undefined, source: 'memory' | 'stream' = 'stream') {
  const { config } = await parseConfig(CONFIG, { env: {} });
  const p = probe();
  const strategies = [...(await loadStrategies(config.strategies, ROOT)), loaded('probe', p.definition, { everyMs: 1000 })];
  const from = source === 'memory' ? { tape: await readTape(tapePath) } : { tapePath };
  const result = await runBacktest({ config, strategies, log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), tapeName: 'ten', window, ...from });
  return { ...result, seen: p.seen };
}

describe('a backtest over a window of a tape', () => {
  it('starts at --from on the market the tape had then, ends at --to, and meets only the window’s recorded troubles', async () => {
    for (const source of ['stream', 'memory'] as const) {
      const { report, sim, seen, input } = await backtest({ from: FROM, to: TO }, source);
      expect([report.period.startedAt, report.period.endedAt], source).toEqual([FROM, TO]);
      // The strategies start at --from, on the price of the tape's last ticker before it (second 199's).
      expect(seen.at, source).toBe(FROM);
      expect(seen.last, source).toBe(`${midAt(199)}`);
      // Every request and fill of the run is in the window (the stop's own after its end).
      const arrivals = sim.arrivals();
      expect(arrivals.length).toBeGreaterThan(100);
      expect(Math.min(...arrivals.map((a) => a.at))).toBeGreaterThanOrEqual(FROM);
      expect(input.fills.length).toBeGreaterThan(0);
      for (const f of input.fills) expect(f.time >= FROM && f.time <= TO + 30_000, `fill at ${f.time - T0}`).toBe(true);
      // The 503 recorded before the window is not met at its start; the reset in it is.
      expect(arrivals.filter((a) => a.incident).map((a) => [a.endpoint, a.incident])).toEqual([['spot.openOrders', 'reset']]);
      expect(report.recordedIncidents).toMatchObject({ onTape: 1, played: 1 });
    }
  }, 120_000);

  it('the whole tape without a window; the same window twice gives the same report', async () => {
    const whole = await backtest(undefined);
    expect([whole.report.period.startedAt, whole.report.period.endedAt]).toEqual([FIRST, LAST]);
    expect(whole.report.recordedIncidents).toMatchObject({ onTape: 2 });
    const a = await backtest({ from: FROM });
    const b = await backtest({ from: FROM });
    expect(JSON.stringify(a.report)).toBe(JSON.stringify(b.report));
    expect([a.report.period.startedAt, a.report.period.endedAt]).toEqual([FROM, whole.report.period.endedAt]);
  }, 120_000);

  it('refuses a window outside the tape, saying what the tape covers', async () => {
    await expect(backtest({ from: LAST + 60_000 })).rejects.toThrow(`--from ${new Date(LAST + 60_000).toISOString()} leaves nothing of the tape: it covers ${new Date(FIRST).toISOString()} to ${new Date(LAST).toISOString()}`);
    await expect(backtest({ to: T0 - 60_000 })).rejects.toThrow(`--to ${new Date(T0 - 60_000).toISOString()} is not after the tape's first market event, at ${new Date(FIRST).toISOString()}`);
  }, 60_000);
});
