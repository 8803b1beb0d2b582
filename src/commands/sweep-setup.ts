// What local and queued sweeps share: the options, reading and checking a new sweep at the
// door, and writing its report.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseDocument, visit } from 'yaml';
import { ConfigError } from '../core/errors.js';
import type { TapeWindow } from '../core/types.js';
import { parseConfig } from '../config/index.js';
import { renderSweepHtml, sortEntries, windowText, type Report, type SortKey, type SweepReport, type SweepSpec } from '../report/index.js';
import { openTape, TapeFormatError } from '../tape/index.js';
import { paramKinds, parseSweep, resolveAxes, rowOf, sweepRuns, sweepTable, type SweepRun, type SweepSample } from './sweep.js';

export interface SweepCommandOptions {
  config?: string;
  tape?: string;
  durationMs?: number;
  /** Only this part of the tape (--from, --to). */
  window?: TapeWindow;
  sweep?: string[];
  out?: string;
  /** redis://HOST:PORT: run through the queue. */
  queue?: string;
  attach?: string;
  cancel?: string;
  /** Submit and return without watching. */
  detach?: boolean;
  /** Local threads (default one per core). */
  concurrency?: number;
  /** The figure the printed table ranks runs by (default pnl). */
  rank?: SortKey;
  eventCacheDir?: string;
  /** Random search: this many of the grid's combinations, drawn with this seed (sweep.ts sweepRuns). */
  sample?: SweepSample;
  /** The best runs again over a part of the tape the sweep does not rank on (sweep-holdout.ts). */
  holdout?: HoldoutOptions;
}

/** What --holdout-from/--holdout-to/--holdout-top ask for. */
export interface HoldoutOptions {
  window: TapeWindow;
  /** How many of the best runs go again over the holdout. */
  top: number;
}

/** A sweep ready to run: its spec (for the report) and each run's config text. */
export interface PreparedSweep {
  spec: SweepSpec;
  runs: SweepRun[];
}

export const fail = (message: string): number => {
  process.stderr.write(`${message}\n`);
  return 1;
};

/**
 * Sections a sweep never sends to a run: a backtest sends no alerts (whose webhook URL may carry
 * a token), reads no credentials, and records no tape. Nor does a comment go: one may hold what
 * was never meant to be config (# SLUICE_API_SECRET=...). Job data is read by every worker and
 * kept for days, so what is not needed does not go.
 */
export function withoutUnusedSections(configText: string): string {
  const doc = parseDocument(configText);
  for (const key of ['alerts', 'credentials', 'record']) doc.delete(key);
  doc.commentBefore = null;
  doc.comment = null;
  visit(doc, {
    Node(_, node) {
      node.commentBefore = null;
      node.comment = null;
    },
  });
  return doc.toString();
}

/** Reads and checks everything a new sweep needs; problems are printed and undefined returned. */
export async function prepareSweep(opts: SweepCommandOptions, id: string): Promise<PreparedSweep | undefined> {
  if (!opts.config) return void fail('give --config F (the base config of every run), e.g. --config config/backtest.yaml');
  if (!opts.sweep || opts.sweep.length === 0) return void fail('give at least one --sweep key=a,b,c, e.g. --sweep strategies.0.params.levels=3,5');
  if (!opts.tape && opts.durationMs === undefined) return void fail("give --tape T (a recorded market) or --duration (the simulator's own market), e.g. --tape backtest/tapes/sample.jsonl.gz");
  let configText: string;
  try {
    configText = withoutUnusedSections(readFileSync(opts.config, 'utf8'));
  } catch (err) {
    return void fail(`cannot read ${opts.config} (${(err as NodeJS.ErrnoException).code}): check the --config path`);
  }
  if (opts.tape) {
    try {
      await (await openTape(opts.tape)).calls.return(undefined);
    } catch (err) {
      return void fail(err instanceof TapeFormatError ? err.message : `cannot read ${opts.tape} (${(err as NodeJS.ErrnoException).code}): check the --tape path`);
    }
  }
  try {
    // The base config is checked at the door: were it wrong, every run would fail the same way.
    // A value a --sweep sets is checked by its run, which fails alone.
    await parseConfig(configText, { source: opts.config, backtest: true });
    const axes = await resolveAxes(configText, opts.sweep.map(parseSweep), process.cwd());
    // Values are typed by each plugin's params schema (a number for z.number(), text for a decimal).
    const runs = sweepRuns(configText, axes, await paramKinds(configText, axes, process.cwd()), opts.sample);
    const grid = axes.reduce((n, a) => n * a.values.length, 1);
    const spec: SweepSpec = {
      id,
      config: basename(opts.config),
      tape: opts.tape ? basename(opts.tape) : null,
      durationMs: opts.tape ? null : (opts.durationMs ?? null),
      window: opts.window,
      ...(opts.sample && opts.sample.count < grid ? { sample: { count: runs.length, seed: opts.sample.seed, of: grid } } : {}),
      axes: axes.map((a) => ({ key: a.key, values: a.values })),
      runs: runs.map((r, index) => ({ index, label: r.label, params: r.params })),
    };
    return { spec, runs };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return void fail(err.message);
  }
}

/** A new sweep's id: never all digits, which BullMQ refuses as a job id ("Custom Id cannot be integers"; 1 hex id in 120 was). */
export const newSweepId = () => `s${randomBytes(5).toString('hex')}`;

export function checkSweepId(id: string): string | undefined {
  return /^[A-Za-z0-9_-]{1,64}$/.test(id) ? undefined : `"${id}" is not a sweep id (letters, digits, - and _; printed when the sweep was submitted)`;
}

/** Where a sweep's report goes: --out, or backtest/reports/sweep-<id>. */
export const sweepOutDir = (outDir: string | undefined, id: string): string => outDir ?? join('backtest', 'reports', `sweep-${id}`);

/** Each run's own backtest report, beside the sweep's: runs/<index>/report.json (the index of report.json's entries). */
export function writeRunReport(outDir: string, index: number, report: Report): void {
  const dir = join(outDir, 'runs', String(index));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
}

export const RANKS: readonly SortKey[] = ['pnl', 'drawdown', 'sharpe', 'fills'];
const RANK_WORDS: Record<SortKey, string> = { run: 'run order', pnl: 'PnL, highest first', drawdown: 'max drawdown, smallest first', sharpe: 'Sharpe, highest first', fills: 'fills, most first' };

/** The runs as a table, best first by `rank`, one line each (failed and cancelled runs last), under a line naming the order. */
export function rankedTable(report: SweepReport, rank: SortKey): string {
  const rows = sortEntries(report.runs, rank).map((e) => rowOf(`#${e.index} ${e.label}`, e));
  return `ranked by ${RANK_WORDS[rank]}\n${sweepTable(rows)}`;
}

/**
 * Writes report.json and report.html, prints the table ranked by `rank` (failed and cancelled
 * runs last, one line each: report.json has the whole reason), and answers the exit code:
 * 0 all ok, 2 some runs failed, 1 cancelled.
 */
export function writeSweepReport(report: SweepReport, outDir: string | undefined, rank: SortKey = 'pnl'): number {
  const out = sweepOutDir(outDir, report.sweep.id);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(out, 'report.html'), renderSweepHtml(report));
  const s = report.sweep;
  const kept = s.ok > 0 ? `\neach run's own report: ${join(out, 'runs', '<#>', 'report.json')}` : '';
  const why = s.failed + s.cancelled > 0 ? ' (the whole reason of each failed run is in report.json)' : '';
  const drawn = s.sample ? ` (a random search: ${s.sample.count} of the grid's ${s.sample.of} combinations, --seed ${s.sample.seed})` : '';
  const holdout = report.holdout;
  const heldOut = holdout ? `\n\n${holdoutTable(report, holdout)}\nholdout reports: ${join(out, 'holdout', 'runs', '<#>', 'report.json')}` : '';
  process.stdout.write(
    `${rankedTable(report, rank)}\n${s.runs} runs${drawn}: ${s.ok} ok, ${s.failed} failed, ${s.cancelled} cancelled${why}${heldOut}\nreport: ${join(out, 'report.json')}, ${join(out, 'report.html')}${kept}\n`,
  );
  const holdoutFailed = holdout?.runs.some((e) => e.status !== 'ok') ?? false;
  return s.cancelled > 0 ? 1 : s.failed > 0 || holdoutFailed ? 2 : 0;
}

/** The holdout's runs in their in-sample rank order: the in-sample PnL beside the figures over the holdout. */
export function holdoutTable(report: SweepReport, holdout: NonNullable<SweepReport['holdout']>): string {
  const inSample = new Map(report.runs.map((e) => [e.index, e.status === 'ok' ? (e.figures.pnl ?? '-') : '-']));
  const rows = holdout.runs.map((e) => rowOf(`#${e.index} ${e.label} (in sample: pnl ${inSample.get(e.index) ?? '-'})`, e));
  return `out of sample: the best ${holdout.runs.length} by ${RANK_WORDS[holdout.rank]}, again over ${windowText(holdout.window)}\n${sweepTable(rows)}`;
}

