// A backtest of a tape recorded on another venue and symbol: the simulator lists what the tape's
// venue listed (its precisions, its older subset of fields), and the account starts with the
// config's balances, so a SOLUSDT strategy trades its recorded market.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { runBacktest } from '../../src/app/backtest.js';
import { d, dec } from '../../src/core/decimal.js';
import { createLogger } from '../../src/app/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { TAPE_VERSION } from '../../src/tape/index.js';
import { loadStrategies } from '../../src/strategy/index.js';
import { call, T0 } from '../unit/tape/helpers.js';
import { JsonLines } from '../fixtures/engine-parts.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'sluice-bt-venue-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Ten minutes of SOLUSDT on a venue listing the older subset of symbol fields (no minimums),
 * its numbers with trailing zeros: a book each second around a mid that swings by 0.6, and a
 * trade on each side every 5 s that sweeps the book to 0.4% past the mid.
 */
function solTape(qqz = false, account?: string): string {
  const lines = [JSON.stringify({ tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta: {} })];
  let seq = 0;
  const qqzListing = ',{"symbol":"qqzusdt","baseAsset":"QQZ","quoteAsset":"USDT","pricePrecision":"4","quantityPrecision":"0"}';
  const listing = `{"symbols":[{"symbol":"solusdt","baseAsset":"SOL","quoteAsset":"USDT","pricePrecision":3,"quantityPrecision":2}${qqz ? qqzListing : ''}]}`;
  lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/symbols', { at: T0, ms: 3, response: listing })));
  if (account) lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/account', { at: T0 + 5, ms: 3, response: account })));
  for (let s = 1; s <= 600; s++) {
    const at = T0 + s * 1000;
    const mid = 150 + 0.6 * Math.sin(s / 30);
    const px = (x: number) => x.toFixed(3);
    const book = `{"time":${at},"bids":[[${px(mid - 0.05)}00,"40.00"],["${px(mid - 0.3)}","80"]],"asks":[[${px(mid + 0.05)}00,"40.00"],["${px(mid + 0.3)}","80"]]}`;
    lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=SOLUSDT&limit=20', at, ms: 2, response: book })));
    lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=SOLUSDT', at: at + 1, ms: 2, response: JSON.stringify({ high: '151', low: '149', last: px(mid), vol: '1000', buy: px(mid - 0.05), sell: px(mid + 0.05), rose: '0.01', time: at }) })));
    // QQZUSDT's books come 3 ms after SOLUSDT's: the run starts before its first.
    const q = (0.544 + 0.01 * Math.sin(s / 20)).toFixed(4);
    if (qqz) lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=QQZUSDT&limit=20', at: at + 3, ms: 2, response: `{"time":${at},"bids":[["${(Number(q) - 0.0005).toFixed(4)}","900"]],"asks":[["${(Number(q) + 0.0005).toFixed(4)}","900"]]}` })));
    if (s % 5 === 0) {
      const trades = [
        { id: 2 * s, price: px(mid * 0.996), qty: '200.00', time: at, side: 'SELL' },
        { id: 2 * s + 1, price: px(mid * 1.004), qty: '200.00', time: at, side: 'BUY' },
      ];
      lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=SOLUSDT&limit=100', at: at + 2, ms: 2, response: JSON.stringify(trades) })));
    }
  }
  const path = join(dir, `sol${qqz ? '-qqz' : ''}${account ? '-account' : ''}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const CONFIG = `
mode: paper
sim: { balances: { USDT: "5000", sol: "20" } }
strategies:
  - { id: sol, use: strategies/grid/index.ts, symbols: [SOLUSDT], params: { levels: 2, spacingPct: "0.2", orderVolume: "0.5", maxInventory: "5" } }
`;

describe('a backtest of a tape from another venue', () => {
  it.each([false, true])('lists the tape venue’s own symbol and trades it from the configured balances (streamed: %s)', async (streamed) => {
    const tapePath = solTape();
    const { config } = await parseConfig(CONFIG, { env: {} });
    expect(config.sim.balances).toEqual({ USDT: '5000', SOL: '20' });
    const strategies = await loadStrategies(config.strategies, ROOT);
    const { readTape } = await import('../../src/tape/index.js');
    const source = streamed ? { tapePath, eventCacheDir: join(dir, 'cache') } : { tape: await readTape(tapePath) };
    const { report, sim, app, untaped } = await runBacktest({ config, strategies, log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), tapeName: 'sol', ...source });

    // The venue's listing, read as the live client reads it: the older subset gets one tick and one lot as minimums.
    expect(sim.symbols.get('SOLUSDT')).toMatchObject({ baseAsset: 'SOL', quoteAsset: 'USDT', pricePrecision: 3, quantityPrecision: 2, limitVolumeMin: '0.01', limitPriceMin: '0.001', marketBuyMin: '0' });
    expect([...sim.symbols.keys()]).toEqual(['SOLUSDT']);
    expect(untaped).toEqual([]);
    const fills = app.journal.fills();
    expect(fills.length).toBeGreaterThan(10);
    expect(report.trades.fills).toBe(fills.length);
    for (const f of fills) {
      expect(f.symbol).toBe('SOLUSDT');
      expect(f.price).toMatch(/^1[45]\d(\.\d{1,3})?$/);
      expect(f.volume).toBe('0.5');
    }
    // Both sides traded, and nothing the strategy sent was refused (no price from before the tape's first book).
    expect(new Set(fills.map((f) => f.side))).toEqual(new Set(['BUY', 'SELL']));
    expect(report.orders.riskRejected).toBe(0);
    expect(report.orders.rejected).toBe(0);
  }, 60_000);
});

describe("a backtest's starting equity", () => {
  it("values an asset whose market the tape has not quoted yet at its first price, never at the simulator's one-tick placeholder", async () => {
    const tapePath = solTape(true);
    const yaml = `
mode: paper
sim: { balances: { USDT: "5000", SOL: "20", QQZ: "5000" } }
strategies:
  - { id: sol, use: strategies/grid/index.ts, symbols: [SOLUSDT], params: { levels: 2, spacingPct: "0.2", orderVolume: "0.5", maxInventory: "5" } }
  - { id: qqz, use: strategies/grid/index.ts, symbols: [QQZUSDT], params: { levels: 2, spacingPct: "0.5", orderVolume: "50", maxInventory: "500" } }
`;
    const { config } = await parseConfig(yaml, { env: {} });
    const strategies = await loadStrategies(config.strategies, ROOT);
    const { report, input } = await runBacktest({ config, strategies, log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), tapeName: 'sol-qqz', tapePath, eventCacheDir: join(dir, 'cache') });
    // The run starts at SOLUSDT's first book (149.970 / 150.070), 3 ms before QQZUSDT's.
    expect(input.startedAt).toBe(T0 + 1002);
    const qqz = input.prices!.find((p) => p.symbol === 'QQZUSDT')!.samples;
    expect(qqz.length).toBeGreaterThan(50);
    for (const p of qqz) expect(p.price).toMatch(/^0\.5[3-5]\d+$/);
    expect(report.pnl.startingEquity).toBe(dec.add(d('5000'), dec.add(dec.mul(d('20'), d('150.02')), dec.mul(d('5000'), qqz[0]!.price))));
  }, 60_000);
});

describe('a backtest that starts from the account the tape recorded (sim.recordedBalances)', () => {
  // The first account answer of the recording: 40 SOL free and 2 locked in an order, asset names in lower case.
  const ACCOUNT = '{"balances":[{"asset":"usdt","free":"4000","locked":"1000"},{"asset":"sol","free":"40","locked":"2"}]}';
  const yaml = (recorded: boolean) => `
mode: paper
sim: { balances: { USDT: "5000", SOL: "20" }, recordedBalances: ${recorded} }
strategies:
  - { id: sol, use: strategies/grid/index.ts, symbols: [SOLUSDT], params: { levels: 2, spacingPct: "0.2", orderVolume: "0.5", maxInventory: "5" } }
`;
  async function run(recorded: boolean, account: string | undefined) {
    const { config } = await parseConfig(yaml(recorded), { env: {} });
    const strategies = await loadStrategies(config.strategies, ROOT);
    const logs = new JsonLines();
    const result = await runBacktest({ config, strategies, log: pino({ level: 'warn' }, logs.stream), tapeName: 'sol', tapePath: solTape(false, account), eventCacheDir: join(dir, 'cache') });
    return { ...result, logs };
  }
  const warning = "the tape's account held other amounts of the traded coins than sim.balances starts this backtest with; sim.recordedBalances: true starts from the recorded account";

  it('each asset free and locked together, in place of sim.balances', async () => {
    const { report, logs } = await run(true, ACCOUNT);
    // SOLUSDT's first book: 149.970 / 150.070.
    expect(report.pnl.startingEquity).toBe(dec.add(d('5000'), dec.mul(d('42'), d('150.02'))));
    expect(logs.withMsg(warning)).toEqual([]);
  }, 60_000);

  it('without it, sim.balances, and the difference in the traded coins said once', async () => {
    const { report, logs } = await run(false, ACCOUNT);
    expect(report.pnl.startingEquity).toBe(dec.add(d('5000'), dec.mul(d('20'), d('150.02'))));
    expect(logs.withMsg(warning).map((l) => [l.recorded, l.simBalances])).toEqual([[{ SOL: '42' }, { SOL: '20' }]]);
  }, 60_000);

  it('a tape without an account answer, or no tape, is a config problem naming the setting', async () => {
    await expect(run(true, undefined)).rejects.toThrow(/sim\.recordedBalances: the tape recorded no readable spot account answer in its first 10 minutes/);
    const { config } = await parseConfig(yaml(true), { env: {} });
    const strategies = await loadStrategies(config.strategies, ROOT);
    await expect(runBacktest({ config, strategies, log: pino({ level: 'silent' }), durationMs: 60_000 })).rejects.toThrow(/sim\.recordedBalances: needs a tape/);
  }, 60_000);
});
