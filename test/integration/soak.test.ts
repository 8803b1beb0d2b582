// The soak (issue 13), short: sluice's promise "never lose or duplicate an order" at the venue's
// ceiling on the strict profile. The daemon runs as a child process in live mode against the
// simulator (2% lost answers, 2% errors after the venue acted, 2% 503s, 20% late fills after
// 1500 ms, 2-25 ms latency), trading test/fixtures/soak/soak-strategy.ts (bursts beyond 300
// orders/s, hundreds resting, marketable orders, self-trades on purpose); it is killed with
// SIGKILL every 15-25 s for 75 s and restarted at once on the same journal, then a final run
// trades 5 s and stops on SIGTERM, cancelling its open orders. The venue's records judge the
// journal. The 10-minute version: bench/soak.bench.ts. How: test/fixtures/soak/harness.ts.
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.js';
import { runSoak } from '../fixtures/soak/harness.js';
import { describeSoak, requiredZeros } from '../fixtures/soak/report.js';

const SEED = Number(process.env.SOAK_SEED ?? 20_251_313);

describe('soak at the venue ceiling, strict profile, faults and kill -9', () => {
  it(
    'never duplicates an order, never loses or double-counts a fill, never drifts falsely, never exceeds a rate window, and stops clean',
    async () => {
      const report = await runSoak({ seed: SEED, durationMs: 75_000, killEveryMs: { min: 15_000, max: 25_000 }, finalTradeMs: 5000 });
      const summary = describeSoak(report);
      console.log(summary);
      const v = report.verdict;

      // The harness did what it claims (otherwise the zeros below prove little).
      expect(report.unexpectedExits, summary).toEqual([]);
      expect(report.kills, summary).toBeGreaterThanOrEqual(3);
      expect(report.survived, summary).toBe(report.kills);
      expect(report.ordersPlaced, summary).toBeGreaterThan(500);
      expect(report.requests['spot.batchOrders'] ?? 0, summary).toBeGreaterThan(50);
      expect(report.requests['spot.batchCancel'] ?? 0, summary).toBeGreaterThan(5);
      expect(report.fills, summary).toBeGreaterThan(0);
      expect(report.selfTrades, summary).toBeGreaterThan(0);
      expect(report.faults.lostResponses, summary).toBeGreaterThan(0);
      expect(Object.values(report.faults.errorAfterAct).reduce((a, b) => a + b, 0), summary).toBeGreaterThan(0);
      expect(report.faults.lateFills, summary).toBeGreaterThan(0);
      expect(report.maxOpenOnVenue, summary).toBeGreaterThan(100);
      expect(report.restartToFirstOrderMs.length, summary).toBeGreaterThanOrEqual(3);
      expect(report.final.running, summary).toBe(true);
      expect(report.final.stopTimedOut, summary).toBe(false);
      expect(report.final.exitCode, summary).toBe(0);

      // Every required zero, with what was found.
      expect.soft(v.duplicated, summary).toEqual([]);
      expect.soft(v.foreignOrders, summary).toEqual([]);
      expect.soft(v.lostFills, summary).toEqual([]);
      expect.soft(v.doubleFills, summary).toEqual([]);
      expect.soft(v.phantomFills, summary).toEqual([]);
      expect.soft(v.mismatchedFills, summary).toEqual([]);
      expect.soft(report.driftAlerts, summary).toEqual([]);
      expect.soft(v.openOnVenueOnly, summary).toEqual([]);
      expect.soft(v.openInJournalOnly, summary).toEqual([]);
      expect.soft(report.rateLimited, summary).toBe(0);
      expect.soft(report.banned, summary).toBe(0);
      expect.soft(dec.eq(v.journalPosition, v.venuePosition), `BTC position: journal ${v.journalPosition}, venue ${v.venuePosition}\n${summary}`).toBe(true);
      // Not asserted, reported (describeSoak lists them): identical orders whose answers were
      // all lost may swap venue ids where the venue could not name them in time (a storm beyond
      // the query budget, or a kill -9 with hundreds in flight). Positions and fills stay exact;
      // see the README's "Lost answers".
      expect.soft(requiredZeros(report), summary).toEqual(Object.fromEntries(Object.keys(requiredZeros(report)).map((k) => [k, 0])));
    },
    240_000,
  );
});
