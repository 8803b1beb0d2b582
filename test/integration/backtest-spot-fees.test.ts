// A spot buy's fee is taken in the base coin, so an account that held none of it before holds
// less than the buys' volume: the shipped examples that sell what they bought must sell what the
// fills left (netQuantity), or every sell is refused for want of the fee.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { d, dec } from '../../src/core/decimal.js';
import { parseConfig } from '../../src/config/index.js';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { loadStrategies } from '../../src/strategy/index.js';
import { readTape } from '../../src/tape/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SAMPLE = resolve(ROOT, 'backtest/tapes/sample.jsonl.gz');

async function backtest(yaml: string) {
  const { config } = await parseConfig(yaml, { env: {} });
  const strategies = await loadStrategies(config.strategies, ROOT);
  return runBacktest({ config, strategies, log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), tape: await readTape(SAMPLE), tapeName: 'sample' });
}

describe('example strategies on a spot account with none of the base coin', () => {
  it('ma-cross sells what its buys left after the base-coin fee, and its sells are not refused', async () => {
    const { report, input } = await backtest(`
mode: paper
sim: { balances: { USDT: "100000", BTC: "0" } }
strategies:
  - { id: ma1, use: strategies/ma-cross/index.ts, symbols: [BTCUSDT], params: { interval: 1min, fast: 2, slow: 3, buyQuote: "200" } }
`);
    const buys = input.fills.filter((f) => f.side === 'BUY');
    const sells = input.fills.filter((f) => f.side === 'SELL');
    // The fee of a buy is in BTC here: the case the fix is about.
    expect(buys.length).toBeGreaterThan(1);
    expect(buys.every((f) => f.feeAsset === 'BTC' && dec.isPositive(f.fee))).toBe(true);
    expect(report.refusals ?? []).toEqual([]);
    expect(sells.length).toBeGreaterThan(1);
    expect(report.trades.sells).toBe(sells.length);
    // Never more sold than bought less the fees: what was held (0 to start) never goes below zero.
    const bought = dec.sum(buys.map((f) => dec.sub(f.volume, f.fee)));
    const sold = dec.sum(sells.map((f) => f.volume));
    expect(dec.lte(sold, bought)).toBe(true);
    // What is left is dust below one step of BTCUSDT's quantity precision per round trip, or an open buy at the end.
    expect(dec.gte(dec.sub(bought, sold), d('0'))).toBe(true);
  }, 60_000);
});
