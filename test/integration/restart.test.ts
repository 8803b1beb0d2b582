// The kill -9 restart suite: sluice's promise that it never loses or duplicates an order across
// crashes, proven against the simulated exchange. The daemon runs as a child process in live
// mode against the simulator (lost responses, 5xx, late fills, latency on), trading the churn
// strategy (test/fixtures/restart/churn.ts); it is killed with SIGKILL at seeded random moments
// (inside a write the venue acted on, mid-batch, between fills and their journal writes, in
// start-up reconciliation, at random) and restarted on the same journal, 22 times; a final run
// reconciles with trading halted and stops on SIGTERM. Then the venue judges the journal.
// The harness and the reasons for each choice: test/fixtures/restart/harness.ts.
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.js';
import { describeReport, runRestartSuite } from '../fixtures/restart/harness.js';

const SEED = 20_251_123;
const CYCLES = 22;

describe('kill -9 restarts', () => {
  it(
    `survives ${CYCLES} kill -9 cycles without losing or duplicating an order or a fill`,
    async () => {
      // A trigger (a batch in flight, after an answer) needs the restarted daemon trading: 9 s from the
      // spawn gives it that beside the other test files (6 s let 3-4 of 22 cycles fall back, at the limit below).
      const report = await runRestartSuite({ seed: SEED, cycles: CYCLES, fallbackMs: 9000, settleTimeoutMs: 12_000 });
      const summary = describeReport(report);
      console.log(summary);
      const v = report.verdict;

      // The harness did what it claims (otherwise the verdict below proves little).
      expect(report.cycles).toHaveLength(CYCLES);
      expect(report.unexpectedExits, summary).toEqual([]);
      expect(report.survived, summary).toBe(CYCLES);
      expect(report.cycles.filter((c) => c.trigger !== 'fallback').length, summary).toBeGreaterThanOrEqual(CYCLES - 3);
      expect(report.cycles.filter((c) => /in flight$/.test(c.trigger)).length, summary).toBeGreaterThanOrEqual(3);
      expect(report.ordersPlaced, summary).toBeGreaterThan(150);
      expect(report.requests['spot.batchOrders'] ?? 0, summary).toBeGreaterThan(5);
      expect(report.requests['spot.order'] ?? 0, summary).toBeGreaterThan(20);
      expect(report.venueTrades, summary).toBeGreaterThan(20);
      expect(report.faults.lostResponses + report.faults.errors5xx, summary).toBeGreaterThan(0);
      expect(report.final.exitCode, summary).toBe(0);

      // No client order id placed twice: the venue's order log is the judge.
      expect.soft(v.duplicated, summary).toEqual([]);
      expect.soft(v.foreignOrders, summary).toEqual([]);
      // Every venue trade of ours exactly once in the journal's fills: none lost, none twice.
      expect.soft(v.lostFills, summary).toEqual([]);
      expect.soft(v.doubleFills, summary).toEqual([]);
      expect.soft(v.phantomFills, summary).toEqual([]);
      expect.soft(v.mismatchedFills, summary).toEqual([]);
      // Positions equal the venue's: the BTC position from our fills is the venue's BTC change.
      expect.soft(dec.eq(v.journalPosition, v.venuePosition), `journal ${v.journalPosition} vs venue ${v.venuePosition}\n${summary}`).toBe(true);
      // Every order the venue has as open is known to the journal, after each kill and at the end.
      expect.soft(report.cycles.filter((c) => c.unknownOpenAfterKill > 0), summary).toEqual([]);
      expect.soft(v.openUnknownToJournal, summary).toEqual([]);
      expect.soft(v.openFinalInJournal, summary).toEqual([]);
      // With nothing lost, the final run reaches rest: no open order, every trade journaled.
      expect.soft(report.final.settled, summary).toBe(true);
      // The final run has its kill switch halted from the start: it must not place anything.
      expect.soft(report.final.ordersPlaced, summary).toBe(0);
    },
    180_000,
  );
});
