// The chaos suite (issue 7): the whole engine trades for a simulated hour on a manual clock
// against the simulator with latency up to 1.5 s each way, 5% 5xx, 2% lost responses, three
// 429 storms, one 418 ban, and a venue clock 3 s off either way (constant, then jumping to the
// other side for five minutes). The simulator's own records are the judge; the harness is
// test/fixtures/chaos/run.ts, shared with bench/chaos.bench.ts.
import { describe, expect, it } from 'vitest';
import { HOUR, runChaos, type ChaosFigures } from '../fixtures/chaos/run.js';

function expectSurvived(f: ChaosFigures): void {
  // The faults really happened, so the checks below are not vacuous.
  expect(f.faults.error5xx).toBeGreaterThan(100);
  expect(f.faults.lostResponse).toBeGreaterThan(20);
  expect(f.faults.storm429).toBeGreaterThan(0);
  expect(f.faults.ban418).toBeGreaterThan(0);
  expect(f.resync.rejected1021).toBeGreaterThan(0);
  expect(f.ordersPlaced).toBeGreaterThan(1000);
  expect(f.venueTrades).toBeGreaterThan(300);

  expect(f.duplicateClientIds).toEqual([]);
  expect(f.lostFills).toEqual([]);
  expect(f.duplicateFills).toEqual([]);
  expect(f.phantomFills).toEqual([]);
  expect(f.journalFills).toBe(f.venueTrades);
  for (const p of f.positions) expect({ asset: p.asset, journal: p.journal }).toEqual({ asset: p.asset, journal: p.venue });
  expect(f.unknownOpenOrders).toEqual([]);

  // Banned: nothing leaves after the first 418 is heard until the ban ends.
  expect(f.ban.firstHeard.every((t) => t !== undefined)).toBe(true);
  expect(f.ban.sentWhileBanned).toEqual([]);
  // -1021: each clock jump costs the requests already in flight and one re-sync, no loop.
  expect(f.resync.max1021BetweenSyncs).toBeLessThanOrEqual(10);
  expect(f.resync.rejected1021).toBeLessThanOrEqual(20);
}

describe('chaos: a simulated hour of a bad venue', () => {
  it('venue clock 3 s ahead (then 3 s behind): no duplicate, no lost fill, positions equal, silent while banned, no -1021 loop', async () => {
    const { figures } = await runChaos({ seed: 7, skewMs: 3000, durationMs: HOUR });
    expectSurvived(figures);
  }, 180_000);

  it('venue clock 3 s behind (then 3 s ahead): the same', async () => {
    const { figures } = await runChaos({ seed: 11, skewMs: -3000, durationMs: HOUR });
    expectSurvived(figures);
  }, 180_000);
});
