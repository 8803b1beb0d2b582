// A backtest of a tape recorded on another venue and symbol: the simulator lists what the tape's
// venue listed (its precisions, its older subset of fields), and the account starts with the
// config's balances, so a SOLUSDT strategy trades its recorded market.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { TAPE_VERSION } from '../../src/tape/index.js';
import { loadStrategies } from '../../src/strategy/index.js';
import { call, T0 } from '../unit/tape/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'sluice-bt-venue-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Ten minutes of SOLUSDT on a venue listing the older subset of symbol fields (no minimums),
 * its numbers with trailing zeros: a book each second around a mid that swings by 0.6, and a
 * trade on each side every 5 s that sweeps the book to 0.4% past the mid.
 */
function solTape(): string {
  const lines = [JSON.stringify({ tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta: {} })];
  let seq = 0;
  const listing = '{"symbols":[{"symbol":"solusdt","baseAsset":"SOL","quoteAsset":"USDT","pricePrecision":3,"quantityPrecision":2}]}';
  lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/symbols', { at: T0, ms: 3, response: listing })));
  for (let s = 1; s <= 600; s++) {
    const at = T0 + s * 1000;
    const mid = 150 + 0.6 * Math.sin(s / 30);
    const px = (x: number) => x.toFixed(3);
    const book = `{"time":${at},"bids":[[${px(mid - 0.05)}00,"40.00"],["${px(mid - 0.3)}","80"]],"asks":[[${px(mid + 0.05)}00,"40.00"],["${px(mid + 0.3)}","80"]]}`;
    lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=SOLUSDT&limit=20', at, ms: 2, response: book })));
    lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=SOLUSDT', at: at + 1, ms: 2, response: JSON.stringify({ high: '151', low: '149', last: px(mid), vol: '1000', buy: px(mid - 0.05), sell: px(mid + 0.05), rose: '0.01', time: at }) })));
    if (s % 5 === 0) {
      const trades = [
        { id: 2 * s, price: px(mid * 0.996), qty: '200.00', time: at, side: 'SELL' },
        { id: 2 * s + 1, price: px(mid * 1.004), qty: '200.00', time: at, side: 'BUY' },
      ];
      lines.push(JSON.stringify(call(seq++, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=SOLUSDT&limit=100', at: at + 2, ms: 2, response: JSON.stringify(trades) })));
    }
  }
  const path = join(dir, 'sol.jsonl');
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
