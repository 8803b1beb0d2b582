// Parameter sweeps: `--sweep key=a,b,c` (repeatable) runs every combination as its own
// backtest on worker threads across the cores (or through the queue: sweep-command.ts), and
// prints one table.
import { availableParallelism } from 'node:os';
import { parse, parseDocument, stringify } from 'yaml';
import { seededRandom } from '../core/clock.js';
import { shownFees } from '../core/display.js';
import { ConfigError } from '../core/errors.js';
import type { RunOutcome } from '../report/index.js';
import { closest } from '../core/spelling.js';
import { paramKeys, paramKind, pluginDefinition, type ParamKind } from '../strategy/index.js';
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
  /** What `sharpe` is ("annualised", "per 10 s sample"); absent from an older worker's figures. */
  sharpeBasis?: string | null;
  ordersSent: number;
  /** The venue troubles its tape recorded that the run met ("3 of 5"); absent when the tape held none. */
  troubles?: string;
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
 * Axes into strategies, checked against the base config before anything runs: `strategies.<id>`
 * (the strategy's id) becomes its list index; an id or index that is not there, a disabled
 * strategy (sweeping it changes nothing), and a param its plugin's schema does not have (every
 * run would fail alike) are refused with the fix.
 */
export async function resolveAxes(baseText: string, axes: readonly SweepAxis[], cwd: string): Promise<SweepAxis[]> {
  const strategies = (parse(baseText) as { strategies?: unknown } | null)?.strategies;
  const list = Array.isArray(strategies) ? (strategies as Array<{ id?: unknown; use?: unknown; enabled?: unknown }>) : [];
  const ids = list.map((s) => String(s?.id));
  const refuse = (axis: SweepAxis, message: string) => new ConfigError([{ path: `--sweep ${axis.key}`, message }], '--sweep');
  const resolved: SweepAxis[] = [];
  for (const axis of axes) {
    const [section, which, ...rest] = axis.path;
    if (section !== 'strategies' || which === undefined) {
      resolved.push(axis);
      continue;
    }
    const index = typeof which === 'number' ? which : ids.indexOf(which);
    const entry = list[index];
    if (!entry) {
      const known = list.map((s, i) => `${i} (${String(s?.id)})`).join(', ') || 'none';
      throw refuse(axis, `${typeof which === 'number' ? `there is no strategies.${which}` : `no strategy has the id ${which}`}: the config lists ${known}; write strategies.<index or id>.params.<name>`);
    }
    if (entry.enabled === false) throw refuse(axis, `strategies.${index} (${String(entry.id)}) is disabled (enabled: false): sweeping it changes nothing; sweep an enabled strategy or enable it`);
    const path = [section, index, ...rest];
    if (rest[0] === 'params' && rest.length > 1 && typeof entry.use === 'string') {
      const keys = paramKeys((await pluginDefinition(entry.use, cwd))?.params, rest.slice(1, -1));
      const name = String(rest.at(-1));
      if (keys && !keys.includes(name)) {
        const guess = closest(name, keys);
        throw refuse(axis, `the plugin of strategies.${index} (${String(entry.id)}) has no param ${name}${guess ? `; did you mean ${guess}?` : ''} (its params: ${keys.join(', ')})`);
      }
    }
    resolved.push({ ...axis, path });
  }
  return resolved;
}

/**
 * The kind of value each axis into a plugin's params takes (strategies.N.params.x), read from
 * the plugin's schema: a z.number() field gets a number, a decimalParam() or string a string.
 * A strategy's exits (strategies.N.exits.x) and loss limit (strategies.N.lossLimit.daily) are typed by the config schema's fields.
 * Axes the schema says nothing of (core config keys, a plugin that does not load) are left out.
 */
export async function paramKinds(baseText: string, axes: readonly SweepAxis[], cwd: string): Promise<Map<string, ParamKind>> {
  const strategies = (parse(baseText) as { strategies?: unknown } | null)?.strategies;
  const kinds = new Map<string, ParamKind>();
  for (const axis of axes) {
    const [section, index, params, ...rest] = axis.path;
    // A strategy's exits: percentages are quoted decimals (a base without exits has none to copy), cooldownMs a number.
    if (section === 'strategies' && params === 'exits' && rest.length === 1) kinds.set(axis.key, rest[0] === 'cooldownMs' ? 'number' : 'string');
    // Its loss limit: lossLimit.daily is a quoted decimal.
    if (section === 'strategies' && params === 'lossLimit' && rest.length === 1 && rest[0] === 'daily') kinds.set(axis.key, 'string');
    if (section !== 'strategies' || typeof index !== 'number' || params !== 'params' || rest.length === 0 || !Array.isArray(strategies)) continue;
    const use = (strategies[index] as { use?: unknown } | undefined)?.use;
    if (typeof use !== 'string') continue;
    const definition = await pluginDefinition(use, cwd);
    const kind = definition && paramKind(definition.params, rest);
    if (kind) kinds.set(axis.key, kind);
  }
  return kinds;
}

/** A value as written on the command line, without quotes around it (the shell may leave them). */
const unquoted = (raw: string) => (/^(["']).*\1$/.test(raw) && raw.length >= 2 ? raw.slice(1, -1) : raw);

/** The YAML value of `raw` for a field of `kind`; text that is not one is left as text, for the plugin to refuse by name. */
function typedAs(kind: ParamKind, raw: string): unknown {
  const text = unquoted(raw);
  if (kind === 'number') return /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : text;
  if (kind === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

/**
 * Every combination of the axes as a config text. A value is typed by the plugin's schema where
 * `kinds` knows the field (see paramKinds), else by the value it replaces (a quoted decimal
 * stays quoted, a number stays a number), so `spacingPct=0.05` sweeps money without quotes.
 */
export function sweepRuns(baseText: string, axes: readonly SweepAxis[], kinds: ReadonlyMap<string, ParamKind> = new Map(), sample?: SweepSample): SweepRun[] {
  const twice = axes.find((a, i) => axes.findIndex((b) => b.key === a.key) !== i);
  if (twice) throw new ConfigError([{ path: '--sweep', message: `${twice.key} is swept twice; give all its values in one --sweep ${twice.key}=a,b,c` }], '--sweep');
  let combos: { label: string[]; set: [SweepAxis, string][] }[] = [{ label: [], set: [] }];
  for (const axis of axes) combos = combos.flatMap((c) => axis.values.map((v) => ({ label: [...c.label, `${axis.key}=${v}`], set: [...c.set, [axis, v] as [SweepAxis, string]] })));
  if (sample) combos = sampled(combos, sample);
  return combos.map((c) => {
    const doc = parseDocument(baseText);
    for (const [axis, raw] of c.set) {
      const current = doc.getIn(axis.path);
      const kind = kinds.get(axis.key);
      const value = kind ? typedAs(kind, raw) : typeof current === 'string' ? raw : typeof current === 'number' ? Number(raw) : typeof current === 'boolean' ? raw === 'true' : parseScalar(raw);
      doc.setIn(axis.path, value);
    }
    return { label: c.label.join(' '), params: Object.fromEntries(c.set.map(([axis, v]) => [axis.key, v])), configText: stringify(doc) };
  });
}

/** Random search over the grid: `count` of its combinations, drawn without replacement by a generator seeded with `seed`. */
export interface SweepSample {
  count: number;
  seed: number;
}

/** `count` of `all`, the same ones for the same seed, kept in grid order (all of them when count covers the grid). */
function sampled<T>(all: readonly T[], { count, seed }: SweepSample): T[] {
  if (count >= all.length) return [...all];
  const random = seededRandom(seed);
  const order = all.map((_, i) => i);
  // The first `count` places of a Fisher-Yates shuffle.
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (order.length - i));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order
    .slice(0, count)
    .sort((a, b) => a - b)
    .map((i) => all[i]!);
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
  const row: SweepRow = { label, pnl: f.pnl ?? '-', fees: shownFees(f.fees, f.feesOther ?? {}), fills: f.fills, winRate: f.winRate, maxDrawdown: f.maxDrawdown ?? '-', sharpe: f.sharpe, sharpeBasis: f.sharpeBasis, ordersSent: f.ordersSent };
  if (f.recordedIncidents) row.troubles = `${f.recordedIncidents.played} of ${f.recordedIncidents.onTape}`;
  return row;
}

export function failedRow(label: string, error: string): SweepRow {
  return { label, pnl: '-', fees: '-', fills: 0, winRate: null, maxDrawdown: '-', sharpe: null, ordersSent: 0, error };
}

/** Longest reason a table row shows; the report's JSON keeps the whole reason. */
const REASON_SHOWN = 160;

/** A reason on one line, cut to fit a table row: a multi-line config error must not break the table. */
export function oneLine(reason: string): string {
  const flat = reason.replace(/\s*\n\s*(- )?/g, ' ').trim();
  return flat.length > REASON_SHOWN ? `${flat.slice(0, REASON_SHOWN - 1)}…` : flat;
}

export function sweepTable(rows: readonly SweepRow[]): string {
  // Sharpe says what it is (annualised only over 7 days): in the head when every run's is alike, else in each cell.
  const bases = new Set(rows.filter((r) => !r.error && r.sharpe !== null).map((r) => r.sharpeBasis ?? null));
  const [only] = bases;
  const shared = bases.size === 1 && only ? only : undefined;
  const sharpeOf = (r: SweepRow) => (r.sharpe === null ? '-' : `${r.sharpe.toFixed(2)}${!shared && r.sharpeBasis ? ` ${r.sharpeBasis}` : ''}`);
  // Shown when the tape recorded venue troubles: how many each run met (it depends on what the run sent).
  const troubles = rows.some((r) => r.troubles !== undefined);
  const header = ['run', 'pnl', 'fees', 'fills', 'win rate', 'max drawdown', shared ? `sharpe (${shared})` : 'sharpe', 'orders', ...(troubles ? ['troubles met'] : [])];
  // A failed run's reason runs on past the columns, so it widens none of them.
  const body = rows.map((r) =>
    r.error
      ? [r.label, `failed: ${oneLine(r.error)}`]
      : [r.label, r.pnl, r.fees, String(r.fills), r.winRate === null ? '-' : `${(r.winRate * 100).toFixed(1)}%`, r.maxDrawdown, sharpeOf(r), String(r.ordersSent), ...(troubles ? [r.troubles ?? '-'] : [])],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b.length === header.length || i === 0 ? b[i]!.length : 0))));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
