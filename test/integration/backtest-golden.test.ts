// `npm run backtest` (the grid strategy over the sample tape) gives the report it gave when this
// golden copy was taken, byte for byte: restructuring code must not change what a user sees.
// A deliberate change of behaviour updates the golden file in the same commit, saying why.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const GOLDEN = join(ROOT, 'test/fixtures/golden/backtest-sample.report.json');
const out = mkdtempSync(join(tmpdir(), 'sluice-golden-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('npm run backtest writes the golden report.json, byte for byte', async () => {
  const args = ['bin/sluice.js', 'backtest', '--config', 'config/backtest.yaml', '--tape', 'backtest/tapes/sample.jsonl.gz', '--out', out, '--no-cache'];
  await promisify(execFile)(process.execPath, args, { cwd: ROOT });
  expect(readFileSync(join(out, 'report.json'), 'utf8')).toBe(readFileSync(GOLDEN, 'utf8'));
  // Beside it, every fill as CSV, each with the strategy and order it belongs to.
  const report = JSON.parse(readFileSync(GOLDEN, 'utf8')) as { trades: { fills: number } };
  const rows = readFileSync(join(out, 'fills.csv'), 'utf8').trimEnd().split('\n');
  expect(rows[0]).toBe('time,timeMs,strategy,clientOrderId,market,symbol,side,price,volume,fee,feeAsset,maker,tradeId,venueOrderId');
  expect(rows).toHaveLength(report.trades.fills + 1);
  for (const row of rows.slice(1)) expect(row).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z,\d+,grid1,slgrid1-[0-9a-z]+,spot,BTCUSDT,(BUY|SELL),[\d.]+,[\d.]+,[\d.]+,(BTC|USDT),(true|false),\d+,\d+$/);
}, 60_000);
