// A sweep's holdout (--holdout-from/--holdout-to): the best few runs, by the table's rank, run
// again over a part of the tape the sweep did not rank them on, so a trader sees whether what
// won in sample holds out of sample (jesse's optimize mode tests its best candidates on a
// testing period the same way). Only the best few run there: ranking every run by its holdout
// figures would fit the parameters to the holdout as well.
import { sortEntries, windowText, type RunOutcome, type SortKey, type SweepEntry, type SweepReport } from '../report/index.js';
import type { HoldoutOptions, SweepCommandOptions } from './sweep-setup.js';
import { windowsOverlap } from './tape-window.js';

/** A holdout that cannot be out of sample, or that this kind of sweep cannot run, with the fix. */
export function holdoutProblem(opts: SweepCommandOptions): string | undefined {
  const holdout = opts.holdout;
  if (!holdout) return undefined;
  if (opts.queue !== undefined) return '--holdout-from/--holdout-to run on a local sweep (without --queue); for a queued sweep, sweep the best runs\' values again with --from/--to set to the holdout';
  if (holdout.top < 1) return '--holdout-top must be at least 1 (how many of the best runs go again over the holdout)';
  const fitted = opts.window ?? {};
  if (windowsOverlap(fitted, holdout.window)) {
    return (
      `the holdout (${windowText(holdout.window)}) overlaps the part of the tape the sweep ranks its runs on (${windowText(fitted)}), so it would not be out of sample: ` +
      'give --from/--to for the part to rank on, ending before --holdout-from or starting after --holdout-to'
    );
  }
  return undefined;
}

/** The runs that go again over the holdout: the best `top` finished runs by `rank`. */
export function holdoutPicks(report: SweepReport, rank: SortKey, top: number): SweepEntry[] {
  return sortEntries(report.runs, rank)
    .filter((e) => e.status === 'ok')
    .slice(0, top);
}

/** The report's holdout section: each picked run's spec with its outcome over the holdout window, in rank order. */
export function holdoutSection(holdout: HoldoutOptions, rank: SortKey, picks: readonly SweepEntry[], outcomes: ReadonlyMap<number, RunOutcome>): NonNullable<SweepReport['holdout']> {
  return {
    window: holdout.window,
    rank,
    top: holdout.top,
    runs: picks.map((p) => ({ index: p.index, label: p.label, params: { ...p.params }, ...(outcomes.get(p.index) ?? { status: 'cancelled', reason: 'not run over the holdout' }) })),
  };
}
