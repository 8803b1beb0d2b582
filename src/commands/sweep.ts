// Parameter sweeps: `--sweep key=a,b,c` (repeatable) runs every combination as its own
// backtest on worker threads across the cores (or through the queue: sweep-command.ts), and
// prints one table.
import { availableParallelism } from 'node:os';
import { parseDocument, stringify } from 'yaml';
import { ConfigError } from '../core/errors.js';
import type { RunOutcome } from '../report/index.js';
import { ThreadPool, type SweepJob } from './sweep-pool.js';

export type { SweepJob } from './sweep-pool.js';

export interface SweepAxis {
  /** Dotted path into the config, list indexes as numbers: strategies.0.params.spacingPct. */
  path: (string | number)[];
  key: string;
  values: string[];
}

export interface SweepRun {
  /** key=value for each axis. */
  label: string;
  /** Axis key -> value, in axis order. */
  params: Record<string, string>;
  configText: string;
}

export interface SweepRow {
  label: string;
  pnl: string;
  fees: string;
  fills: number;
  winRate: number | null;
  maxDrawdown: string;
  sharpe: number | null;
  ordersSent: number;
  error?: string;
}

export function parseSweep(spec: string): SweepAxis {
  const m = /^([A-Za-z0-9_.]+)=(.+)$/.exec(spec);
  if (!m) throw new ConfigError([{ path: '--sweep', message: `"${spec}" must look like key=a,b,c, e.g. strategies.0.params.spacingPct=0.05,0.1` }], '--sweep');
  const values = m[2]!.split(',').map((v) => v.trim());
  if (values.some((v) => v === '')) throw new ConfigError([{ path: '--sweep', message: `"${spec}" has an empty value; separate values with single commas` }], '--sweep');
  const twice = values.find((v, i) => values.indexOf(v) !== i);
  if (twice !== undefined) throw new ConfigError([{ path: '--sweep', message: `"${spec}" lists ${twice} twice; give each value once` }], '--sweep');
  return { key: m[1]!, path: m[1]!.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)), values };
}

/**
 * Every combination of the axes as a config text. A value takes the type of the value it
 * replaces (a quoted decimal stays quoted, a number stays a number), so `spacingPct=0.05`
 * sweeps money without writing quotes on the command line.
 */
export function sweepRuns(baseText: string, axes: readonly SweepAxis[]): SweepRun[] {
  const twice = axes.find((a, i) => axes.findIndex((b) => b.key === a.key) !== i);
  if (twice) throw new ConfigError([{ path: '--sweep', message: `${twice.key} is swept twice; give all its values in one --sweep ${twice.key}=a,b,c` }], '--sweep');
  let combos: { label: string[]; set: [SweepAxis, string][] }[] = [{ label: [], set: [] }];
  for (const axis of axes) combos = combos.flatMap((c) => axis.values.map((v) => ({ label: [...c.label, `${axis.key}=${v}`], set: [...c.set, [axis, v] as [SweepAxis, string]] })));
  return combos.map((c) => {
    const doc = parseDocument(baseText);
    for (const [axis, raw] of c.set) {
      const current = doc.getIn(axis.path);
      const value = typeof current === 'string' ? raw : typeof current === 'number' ? Number(raw) : typeof current === 'boolean' ? raw === 'true' : parseScalar(raw);
      doc.setIn(axis.path, value);
    }
    return { label: c.label.join(' '), params: Object.fromEntries(c.set.map(([axis, v]) => [axis.key, v])), configText: stringify(doc) };
  });
}

function parseScalar(raw: string): unknown {
  if (/^-?\d+$/.test(raw)) return Number(raw);
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return raw;
}

/**
 * Runs the jobs on up to `threads` worker threads (default: one per core); rows in job order.
 * A thread that dies fails its job and is replaced.
 */
export async function runSweep(jobs: readonly SweepJob[], threads = availableParallelism()): Promise<SweepRow[]> {
  const pool = new ThreadPool(Math.max(1, Math.min(threads, jobs.length)));
  try {
    return await Promise.all(jobs.map(async (job) => rowOf(job.label, (await pool.run(job)).outcome)));
  } finally {
    await pool.close();
  }
}

/** A table row from a run's outcome. */
export function rowOf(label: string, outcome: RunOutcome): SweepRow {
  if (outcome.status !== 'ok') return failedRow(label, outcome.status === 'cancelled' ? `cancelled (${outcome.reason})` : outcome.reason);
  const f = outcome.figures;
  return { label, pnl: f.pnl ?? '-', fees: f.fees, fills: f.fills, winRate: f.winRate, maxDrawdown: f.maxDrawdown ?? '-', sharpe: f.sharpe, ordersSent: f.ordersSent };
}

export function failedRow(label: string, error: string): SweepRow {
  return { label, pnl: '-', fees: '-', fills: 0, winRate: null, maxDrawdown: '-', sharpe: null, ordersSent: 0, error };
}

export function sweepTable(rows: readonly SweepRow[]): string {
  const header = ['run', 'pnl', 'fees', 'fills', 'win rate', 'max drawdown', 'sharpe', 'orders'];
  const body = rows.map((r) =>
    r.error
      ? [r.label, `failed: ${r.error.replace(/\s*\n\s*/g, ' ')}`, '', '', '', '', '', '']
      : [r.label, r.pnl, r.fees, String(r.fills), r.winRate === null ? '-' : `${(r.winRate * 100).toFixed(1)}%`, r.maxDrawdown, r.sharpe === null ? '-' : r.sharpe.toFixed(2), String(r.ordersSent)],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
