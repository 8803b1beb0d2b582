// Two ways a clean stop used to leave journal and venue disagreeing, found by the soak (issue 13)
// and kept here as short runs of its harness (test/fixtures/soak/harness.ts).
import { describe, expect, it } from 'vitest';
import { runSoak } from '../fixtures/soak/harness.js';
import { describeSoak } from '../fixtures/soak/report.js';

const NO_FAULTS = { lostResponseRate: 0, errorAfterActRate: 0, error5xxRate: 0 };

describe('a clean stop leaves journal and venue agreeing', () => {
  // A restart turns every order the killed run had in flight into `unknown`, whether or not its
  // request left the dead process; a stop soon after must settle them (found, or given up after
  // reconcile.unknownTimeoutMs) before it exits.
  it(
    'soon after a restart from kill -9: no intent of the killed run is left unknown',
    async () => {
      const report = await runSoak({ seed: 5, durationMs: 12_000, killEveryMs: { min: 12_000, max: 12_000 }, finalTradeMs: 2000, faults: NO_FAULTS });
      const summary = describeSoak(report);
      expect(report.kills, summary).toBe(1);
      expect(report.final.exitCode, summary).toBe(0);
      expect(report.verdict.openInJournalOnly, summary).toEqual([]);
    },
    120_000,
  );

  // Fills may show in myTrades up to reconcile.drift.graceMs after the venue booked them, and an
  // order may fill just before its shutdown cancel arrives: the stop reads on for the grace.
  // Every fill is shown 5000 ms late here (graceMs 7500); one run, stopped after 5 s.
  it(
    'with late fills: every fill of its orders is journaled',
    async () => {
      const report = await runSoak({ seed: 3, durationMs: 0, killEveryMs: { min: 1, max: 1 }, finalTradeMs: 5000, faults: { ...NO_FAULTS, lateFillRate: 1, lateFillDelayMs: 5000 } });
      const summary = describeSoak(report);
      expect(report.kills, summary).toBe(0);
      expect(report.final.exitCode, summary).toBe(0);
      expect(report.fills, summary).toBeGreaterThan(100);
      expect(report.verdict.lostFills, summary).toEqual([]);
      expect(report.verdict.openInJournalOnly, summary).toEqual([]);
    },
    120_000,
  );
});
