// `sluice plan` in live mode judges against the daemon's journal (a scratch copy: the real one is
// not written), and keeps stdout for the plan.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { planCommand } from '../../src/commands/plan.js';
import { d } from '../../src/core/decimal.js';
import { startSimServer } from '../../src/sim/index.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { fill } from '../fixtures/builders.js';

let sim: Awaited<ReturnType<typeof startSimServer>> | undefined;
const dir = mkdtempSync(join(tmpdir(), 'sluice-plan-'));
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('a live plan sees the journal’s position: sells past the cap are refused, the journal is left as it was', async () => {
  sim = await startSimServer({ port: 0, seed: 5 });
  const journalPath = join(dir, 'journal.db');
  const journal = SqliteJournal.open(journalPath);
  // The daemon sold 0.004 BTC: short at the cap below.
  journal.recordFill(fill('SELL', '0.004', '30000', { tradeId: 'p1', fee: d('0') }));
  journal.close();
  const before = readFileSync(journalPath);
  const configPath = join(dir, 'sluice.yaml');
  writeFileSync(
    configPath,
    `mode: live\nvenue: { spotUrl: ${sim.url} }\njournal: { path: ${journalPath} }\nrisk: { maxPosition: { BTCUSDT: "0.004" } }\nstrategies:\n  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { levels: 2, orderVolume: "0.001", maxInventory: "0.01" } }\n`,
  );
  vi.stubEnv('SLUICE_API_KEY', sim.apiKey);
  vi.stubEnv('SLUICE_API_SECRET', sim.apiSecret);
  const out: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((t) => (out.push(String(t)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  expect(await planCommand(configPath)).toBe(0);
  vi.restoreAllMocks();
  const text = out.join('');
  // Only the plan on stdout: no JSON log line among it.
  expect(text.split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
  expect(text).toMatch(/^plan: 2 intents accepted by risk, 2 rejected, 1 batch \(nothing sent\)$/m);
  const rejected = text.split('\n').filter((l) => l.startsWith('  rejected'));
  expect(rejected.length).toBe(2);
  for (const line of rejected) expect(line).toMatch(/^ {2}rejected slgrid1-\d+ SELL LIMIT 0\.001 BTCUSDT @ [\d.]+: max_position: /);
  expect(readFileSync(journalPath).equals(before)).toBe(true);
  expect(sim.exchange.arrivals().filter((a) => a.endpoint === 'spot.order' || a.endpoint === 'spot.batchOrders')).toEqual([]);
}, 30_000);
