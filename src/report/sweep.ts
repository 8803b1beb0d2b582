// The sweep report: one entry per run of a parameter sweep (its parameters and figures, or why
// it has none), the same whether the runs went to local worker threads or through the queue.
// Pure and deterministic: no clock, no timings, entries in run order, so the same sweep gives
// the same report.json wherever it ran.
import { dec, type Decimal } from '../core/decimal.js';
import type { TapeWindow } from '../core/types.js';
import { disabledLines } from './build.js';
import type { Report } from './types.js';

/** A run's headline figures, taken from its backtest report. Money stays decimal text. */
export interface RunFigures {
  pnl: Decimal | null;
  pnlPct: number | null;
  /** Fees paid in the quote asset. */
  fees: Decimal;
  /** Fees paid in other assets, per asset (a spot buy's fee in the base coin); absent when none (or from an older worker). */
  feesOther?: Record<string, Decimal>;
  fills: number;
  winRate: number | null;
  maxDrawdown: Decimal | null;
  maxDrawdownPct: number | null;
  sharpe: number | null;
  /**
   * What `sharpe` is: "annualised", or "per 10 s sample" when the run spans under 7 days; null
   * with it. Absent from the figures of a worker older than the field (a distributed sweep).
   */
  sharpeBasis?: string | null;
  ordersSent: number;
  /** The venue troubles its tape recorded that the run met, of those on the tape; absent when it held none. */
  recordedIncidents?: { played: number; onTape: number };
}

/** What became of one run. `cancelled` runs never finished (the sweep was cancelled first). */
export type RunOutcome = { status: 'ok'; figures: RunFigures } | { status: 'failed'; reason: string } | { status: 'cancelled'; reason: string };

export interface SweepAxisSpec {
  /** Dotted config path, e.g. strategies.0.params.spacingPct. */
  key: string;
  values: string[];
}

export interface SweepRunSpec {
  /** Position in the sweep, from 0: every combination of the axes, the last axis varying fastest. */
  index: number;
  /** key=value for each axis, space-separated. */
  label: string;
  /** Axis key -> value, in axis order. */
  params: Record<string, string>;
}

export interface SweepSpec {
  id: string;
  /** The base config's file name. */
  config: string;
  tape: string | null;
  durationMs: number | null;
  /** Only this part of the tape (--from, --to). */
  window?: TapeWindow;
  /** A random search (--sample): `count` of the grid's `of` combinations, drawn with `seed`; absent when the whole grid ran. */
  sample?: SampledGrid;
  axes: SweepAxisSpec[];
  runs: SweepRunSpec[];
}

export interface SampledGrid {
  count: number;
  seed: number;
  of: number;
}

export type SweepEntry = SweepRunSpec & RunOutcome;

export interface SweepReport {
  version: 1;
  sweep: {
    id: string;
    config: string;
    tape: string | null;
    durationMs: number | null;
    /** Only this part of the tape (--from, --to). */
    window?: TapeWindow;
    sample?: SampledGrid;
    axes: SweepAxisSpec[];
    runs: number;
    ok: number;
    failed: number;
    cancelled: number;
  };
  runs: SweepEntry[];
  /**
   * The best runs by `rank`, run again over a part of the tape the sweep did not rank them on
   * (--holdout-from/--holdout-to), in that rank order: their figures out of sample.
   */
  holdout?: { window: TapeWindow; rank: SortKey; top: number; runs: SweepEntry[] };
}

const at = (ms: number | undefined, open: string) => (ms === undefined ? open : new Date(ms).toISOString());

/** A window as text: "2026-11-20T00:00:00.000Z to 2026-11-21T00:00:00.000Z", an end not given named as the tape's. */
export const windowText = (w: TapeWindow): string => `${at(w.from, "the tape's start")} to ${at(w.to, "the tape's end")}`;

export function runFigures(r: Report): RunFigures {
  return {
    pnl: r.pnl.total,
    pnlPct: r.pnl.totalPct,
    fees: r.pnl.fees,
    ...(Object.keys(r.fees.otherAssets).length > 0 ? { feesOther: { ...r.fees.otherAssets } } : {}),
    fills: r.trades.fills,
    winRate: r.winRate.value,
    maxDrawdown: r.maxDrawdown.amount,
    maxDrawdownPct: r.maxDrawdown.pctOfPeak,
    sharpe: r.sharpe.value,
    sharpeBasis: r.sharpe.basis,
    ordersSent: r.orders.sent,
    ...(r.recordedIncidents ? { recordedIncidents: { played: r.recordedIncidents.played, onTape: r.recordedIncidents.onTape } } : {}),
  };
}

/**
 * What a finished backtest counts as: ok with its figures, or failed when a strategy was
 * disabled during it (its figures are not the strategy's result: it stopped managing its orders).
 */
export function runOutcome(r: Report): RunOutcome {
  if (r.disabledStrategies && r.disabledStrategies.length > 0) return { status: 'failed', reason: disabledLines(r).join('\n') };
  return { status: 'ok', figures: runFigures(r) };
}

/** Why a run has no outcome: the sweep was cancelled before it finished. */
export const NOT_RUN = 'not run: the sweep was cancelled before this run finished';

/**
 * One entry per run of `spec`, in run order. A run with no outcome is `cancelled` (runs that
 * never started are removed from the queue when a sweep is cancelled).
 */
export function buildSweepReport(spec: SweepSpec, outcomes: ReadonlyMap<number, RunOutcome>): SweepReport {
  for (const index of outcomes.keys()) {
    if (!spec.runs.some((r) => r.index === index)) throw new RangeError(`an outcome for run ${index}, which sweep ${spec.id} does not have`);
  }
  const runs: SweepEntry[] = [...spec.runs]
    .sort((a, b) => a.index - b.index)
    .map((r) => ({ index: r.index, label: r.label, params: { ...r.params }, ...(outcomes.get(r.index) ?? { status: 'cancelled', reason: NOT_RUN }) }));
  const count = (status: RunOutcome['status']) => runs.filter((r) => r.status === status).length;
  return {
    version: 1,
    sweep: {
      id: spec.id,
      config: spec.config,
      tape: spec.tape,
      durationMs: spec.durationMs,
      window: spec.window,
      ...(spec.sample ? { sample: { ...spec.sample } } : {}),
      axes: spec.axes.map((a) => ({ key: a.key, values: [...a.values] })),
      runs: runs.length,
      ok: count('ok'),
      failed: count('failed'),
      cancelled: count('cancelled'),
    },
    runs,
  };
}

export type SortKey = 'run' | 'pnl' | 'drawdown' | 'sharpe' | 'fills';

/**
 * The entries in the order a reader wants them for `key`: best first (highest PnL, smallest
 * drawdown, highest Sharpe, most fills); runs without that figure after those with it, then
 * failed and cancelled runs; ties in run order. `run` is run order, whatever became of each.
 */
export function sortEntries(entries: readonly SweepEntry[], key: SortKey): SweepEntry[] {
  if (key === 'run') return [...entries].sort((a, b) => a.index - b.index);
  const rank = (e: SweepEntry) => (e.status === 'ok' ? 0 : e.status === 'failed' ? 2 : 3);
  const figure = (e: SweepEntry): Decimal | number | null => {
    if (e.status !== 'ok') return null;
    const f = e.figures;
    return key === 'pnl' ? f.pnl : key === 'drawdown' ? f.maxDrawdown : key === 'sharpe' ? f.sharpe : f.fills;
  };
  const better = (a: Decimal | number, b: Decimal | number): number => {
    if (key === 'fills' || key === 'sharpe') return (b as number) - (a as number);
    if (key === 'drawdown') return dec.cmp(a as Decimal, b as Decimal);
    return dec.cmp(b as Decimal, a as Decimal);
  };
  return [...entries].sort((a, b) => {
    const [fa, fb] = [figure(a), figure(b)];
    const ra = rank(a) + (rank(a) === 0 && fa === null ? 1 : 0);
    const rb = rank(b) + (rank(b) === 0 && fb === null ? 1 : 0);
    if (ra !== rb) return ra - rb;
    const by = fa !== null && fb !== null ? better(fa, fb) : 0;
    return by !== 0 ? by : a.index - b.index;
  });
}

/** The axes with more than one value: the parameters the sweep varies. */
export function varyingAxes(axes: readonly SweepAxisSpec[]): SweepAxisSpec[] {
  return axes.filter((a) => a.values.length > 1);
}

export interface HeatMap {
  rows: SweepAxisSpec;
  columns: SweepAxisSpec;
  /** cells[i][j]: the run with rows.values[i] and columns.values[j]. */
  cells: (SweepEntry | undefined)[][];
}

/** When exactly two parameters vary: the runs on a grid of their values (the first axis down, the second across). */
export function heatMap(report: SweepReport): HeatMap | null {
  const varying = varyingAxes(report.sweep.axes);
  if (varying.length !== 2) return null;
  const [rows, columns] = varying as [SweepAxisSpec, SweepAxisSpec];
  const cells = rows.values.map((rv) => columns.values.map((cv) => report.runs.find((e) => e.params[rows.key] === rv && e.params[columns.key] === cv)));
  return { rows, columns, cells };
}
