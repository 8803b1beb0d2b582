// Parameter sweeps: `--sweep key=a,b,c` (repeatable) runs every combination as its own
// backtest on worker threads across the cores, and prints one table.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { parseDocument, stringify } from 'yaml';
import { ConfigError } from '../core/errors.js';

export interface SweepAxis {
  /** Dotted path into the config, list indexes as numbers: strategies.0.params.spacingPct. */
  path: (string | number)[];
  key: string;
  values: string[];
}

export interface SweepRun {
  /** key=value for each axis. */
  label: string;
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
  return { key: m[1]!, path: m[1]!.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)), values };
}

/**
 * Every combination of the axes as a config text. A value takes the type of the value it
 * replaces (a quoted decimal stays quoted, a number stays a number), so `spacingPct=0.05`
 * sweeps money without writing quotes on the command line.
 */
export function sweepRuns(baseText: string, axes: readonly SweepAxis[]): SweepRun[] {
  let combos: { label: string[]; set: [SweepAxis, string][] }[] = [{ label: [], set: [] }];
  for (const axis of axes) combos = combos.flatMap((c) => axis.values.map((v) => ({ label: [...c.label, `${axis.key}=${v}`], set: [...c.set, [axis, v] as [SweepAxis, string]] })));
  return combos.map((c) => {
    const doc = parseDocument(baseText);
    for (const [axis, raw] of c.set) {
      const current = doc.getIn(axis.path);
      const value = typeof current === 'string' ? raw : typeof current === 'number' ? Number(raw) : typeof current === 'boolean' ? raw === 'true' : parseScalar(raw);
      doc.setIn(axis.path, value);
    }
    return { label: c.label.join(' '), configText: stringify(doc) };
  });
}

function parseScalar(raw: string): unknown {
  if (/^-?\d+$/.test(raw)) return Number(raw);
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return raw;
}

export interface SweepJob {
  configText: string;
  label: string;
  tapePath?: string;
  durationMs?: number;
  eventCacheDir?: string;
  cwd: string;
}

/**
 * Runs the jobs on up to `threads` worker threads (default: one per core); rows in job order.
 * A worker takes one job after another: starting one (tsx, the whole module graph) costs about
 * a second, as much as a short backtest. A worker that dies fails its job and is replaced.
 */
export async function runSweep(jobs: readonly SweepJob[], threads = availableParallelism()): Promise<SweepRow[]> {
  const rows: SweepRow[] = new Array(jobs.length);
  let next = 0;
  const lane = async () => {
    let worker: Worker | undefined;
    try {
      while (next < jobs.length) {
        const i = next++;
        worker ??= new Worker(new URL('./sweep-worker.mjs', import.meta.url));
        const { row, alive } = await runOn(worker, jobs[i]!);
        rows[i] = row;
        if (!alive) worker = undefined;
      }
    } finally {
      await worker?.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(threads, jobs.length)) }, lane));
  return rows;
}

function runOn(worker: Worker, job: SweepJob): Promise<{ row: SweepRow; alive: boolean }> {
  return new Promise((resolve) => {
    const done = (row: SweepRow, alive: boolean) => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      resolve({ row, alive });
    };
    const onMessage = (row: SweepRow) => done(row, true);
    const onError = (err: Error) => done(failedRow(job.label, err.message), false);
    const onExit = (code: number) => done(failedRow(job.label, `worker exited with code ${code}`), false);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage(job);
  });
}

export function failedRow(label: string, error: string): SweepRow {
  return { label, pnl: '-', fees: '-', fills: 0, winRate: null, maxDrawdown: '-', sharpe: null, ordersSent: 0, error };
}

export function sweepTable(rows: readonly SweepRow[]): string {
  const header = ['run', 'pnl', 'fees', 'fills', 'win rate', 'max drawdown', 'sharpe', 'orders'];
  const body = rows.map((r) =>
    r.error
      ? [r.label, `failed: ${r.error}`, '', '', '', '', '', '']
      : [r.label, r.pnl, r.fees, String(r.fills), r.winRate === null ? '-' : `${(r.winRate * 100).toFixed(1)}%`, r.maxDrawdown, r.sharpe === null ? '-' : r.sharpe.toFixed(2), String(r.ordersSent)],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
