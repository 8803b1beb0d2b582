// The sweep report as one self-contained page, like the backtest's: no scripts, fonts or
// external styles, so it opens from disk anywhere. Its heat map uses the charts' palette and
// font (src/charts: gains green, losses red) and shows each run's figures on hover. Sorting needs no script either: the table is
// rendered once per order (run, PnL, drawdown, Sharpe, fills) and radio buttons show one of
// them through CSS. Every text passes through escapeHtml (parameter values come from users).
import { THEME } from '../charts/client.js';
import { dec, ZERO } from '../core/decimal.js';
import { shownFees } from '../core/display.js';
import { escapeHtml } from './html.js';
import { heatMap, sortEntries, windowText, type HeatMap, type SortKey, type SweepEntry, type SweepReport } from './sweep.js';

const ORDERS: readonly { key: SortKey; label: string }[] = [
  { key: 'run', label: 'run order' },
  { key: 'pnl', label: 'PnL (highest first)' },
  { key: 'drawdown', label: 'max drawdown (smallest first)' },
  { key: 'sharpe', label: 'Sharpe (highest first)' },
  { key: 'fills', label: 'fills (most first)' },
];

const STYLE = `
body{font:14px ${THEME.font};margin:1.5em;color:${THEME.text}}
h1{font-size:1.3em;margin:0 0 .3em}h2{font-size:1.05em;margin:1.2em 0 .3em}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.failed,td.cancelled{color:#a00}.note{color:#888}
.sorted{display:none}.sort label{margin-right:1em;cursor:pointer}
${ORDERS.map((o) => `#by-${o.key}:checked~.tables .sorted-${o.key}`).join(',')}{display:table}
${ORDERS.map((o) => `#by-${o.key}:checked~.sort label[for=by-${o.key}]`).join(',')}{font-weight:bold}
.heat td{text-align:center;min-width:6em;font-variant-numeric:tabular-nums}.scale{font-size:.85em;color:${THEME.muted}}
`;

export function renderSweepHtml(report: SweepReport): string {
  const s = report.sweep;
  const title = `sluice sweep ${s.id}`;
  const source = s.tape !== null ? `tape ${s.tape}` : `the simulator's own market for ${(s.durationMs ?? 0) / 60_000} min`;
  const map = heatMap(report);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head><body>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(`${s.config} over ${source}: ${s.runs} runs${s.sample ? ` (a random search: ${s.sample.count} of the grid's ${s.sample.of} combinations, seed ${s.sample.seed})` : ''}, ${s.ok} ok, ${s.failed} failed, ${s.cancelled} cancelled`)}</p>`,
    `<p>${s.axes.map((a) => `<code>${escapeHtml(a.key)}</code> = ${a.values.map(escapeHtml).join(', ')}`).join('<br>')}</p>`,
    ...(map ? ['<h2>PnL heat map</h2>', heatTable(map)] : []),
    '<h2>Runs</h2>',
    ...ORDERS.map((o, i) => `<input type="radio" name="order" id="by-${o.key}"${i === 0 ? ' checked' : ''} hidden>`),
    `<p class="sort">sort by: ${ORDERS.map((o) => `<label for="by-${o.key}">${escapeHtml(o.label)}</label>`).join(' ')}</p>`,
    '<div class="tables">',
    ...ORDERS.map((o) => runsTable(report, o.key)),
    '</div>',
    ...(report.holdout ? holdoutHtml(report, report.holdout) : []),
    '</body></html>',
    '',
  ].join('\n');
}

const num = (v: number | null, places: number, suffix = '') => (v === null ? '-' : `${v.toFixed(places)}${suffix}`);

function runsTable(report: SweepReport, key: SortKey): string {
  const axes = report.sweep.axes;
  const basis = sharedSharpeBasis(report);
  // Shown when the tape recorded venue troubles: how many each run met (it depends on what the run sent).
  const incidents = report.runs.some((e) => e.status === 'ok' && e.figures.recordedIncidents);
  const head = ['#', ...axes.map((a) => a.key), 'PnL', 'PnL %', 'max drawdown', 'drawdown %', basis ? `Sharpe (${basis})` : 'Sharpe', 'fills', 'win rate', 'fees', 'orders sent', ...(incidents ? ['recorded troubles met'] : []), 'status'];
  const rows = sortEntries(report.runs, key).map((e) => {
    const params = axes.map((a) => `<td>${escapeHtml(e.params[a.key] ?? '')}</td>`).join('');
    const lead = `<td class="num">${e.index}</td>${params}`;
    if (e.status !== 'ok') return `<tr>${lead}<td colspan="${incidents ? 10 : 9}"></td><td class="${e.status}">${e.status}: ${escapeHtml(e.reason)}</td></tr>`;
    const f = e.figures;
    const cells = [f.pnl ?? '-', num(f.pnlPct, 4, '%'), f.maxDrawdown ?? '-', num(f.maxDrawdownPct, 4, '%'), basis ? num(f.sharpe, 2) : sharpeText(f), String(f.fills), f.winRate === null ? '-' : `${(f.winRate * 100).toFixed(1)}%`, shownFees(f.fees, f.feesOther ?? {}), String(f.ordersSent), ...(incidents ? [f.recordedIncidents ? `${f.recordedIncidents.played} of ${f.recordedIncidents.onTape}` : '-'] : [])];
    return `<tr>${lead}${cells.map((c) => `<td class="num">${escapeHtml(c)}</td>`).join('')}<td>ok</td></tr>`;
  });
  return `<table class="sorted sorted-${key}">\n<tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>\n${rows.join('\n')}\n</table>`;
}

/** The best runs again over the holdout, in their in-sample rank order, with their in-sample PnL beside. */
function holdoutHtml(report: SweepReport, holdout: NonNullable<SweepReport['holdout']>): string[] {
  const axes = report.sweep.axes;
  const inSample = new Map(report.runs.map((e) => [e.index, e.status === 'ok' ? (e.figures.pnl ?? '-') : '-']));
  const head = ['#', ...axes.map((a) => a.key), 'in-sample PnL', 'PnL', 'PnL %', 'max drawdown', 'Sharpe', 'fills', 'win rate', 'fees', 'status'];
  const rows = holdout.runs.map((e) => {
    const lead = `<td class="num">${e.index}</td>${axes.map((a) => `<td>${escapeHtml(e.params[a.key] ?? '')}</td>`).join('')}<td class="num">${escapeHtml(inSample.get(e.index) ?? '-')}</td>`;
    if (e.status !== 'ok') return `<tr>${lead}<td colspan="7"></td><td class="${e.status}">${e.status}: ${escapeHtml(e.reason)}</td></tr>`;
    const f = e.figures;
    const cells = [f.pnl ?? '-', num(f.pnlPct, 4, '%'), f.maxDrawdown ?? '-', sharpeText(f), String(f.fills), f.winRate === null ? '-' : `${(f.winRate * 100).toFixed(1)}%`, shownFees(f.fees, f.feesOther ?? {})];
    return `<tr>${lead}${cells.map((c) => `<td class="num">${escapeHtml(c)}</td>`).join('')}<td>ok</td></tr>`;
  });
  return [
    '<h2>Out of sample</h2>',
    `<p>${escapeHtml(`The best ${holdout.runs.length} runs by ${holdout.rank} (of the ${holdout.top} asked for), run again over ${windowText(holdout.window)}, a part of the tape the sweep did not rank them on.`)}</p>`,
    `<table>\n<tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>\n${rows.join('\n')}\n</table>`,
  ];
}

/** The Sharpe basis every run with a Sharpe shares ("annualised", "per 10 s sample"), for the column's head; undefined when they differ or none has one. */
function sharedSharpeBasis(report: SweepReport): string | undefined {
  const bases = new Set(report.runs.flatMap((e) => (e.status === 'ok' && e.figures.sharpe !== null ? [e.figures.sharpeBasis ?? null] : [])));
  const [only] = bases;
  return bases.size === 1 && only !== null ? only : undefined;
}

/** A run's Sharpe with what it is: "-0.35 per 10 s sample", "1.20 annualised". */
const sharpeText = (f: { sharpe: number | null; sharpeBasis?: string | null }) => `${num(f.sharpe, 2)}${f.sharpe !== null && f.sharpeBasis ? ` ${f.sharpeBasis}` : ''}`;

/** `#rrggbb` blended with white: share 0 is white, 1 the colour itself. */
function tint(hex: string, share: number): string {
  const channel = (i: number) => Math.round(255 + (parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) - 255) * share);
  return `rgb(${channel(0)},${channel(1)},${channel(2)})`;
}

/** A run's figures as the hover text of its cell. */
function hover(e: SweepEntry & { status: 'ok' }): string {
  const f = e.figures;
  return `run ${e.index}: PnL ${f.pnl ?? '-'} (${num(f.pnlPct, 4, '%')}), max drawdown ${f.maxDrawdown ?? '-'} (${num(f.maxDrawdownPct, 4, '%')}), Sharpe ${sharpeText(f)}, ${f.fills} fills`;
}

/**
 * The charts' green for a gain and red for a loss, deeper with size (relative to the largest of
 * the sweep, from a light tint to three quarters of the colour); grey where the run failed.
 */
function heatTable(map: HeatMap): string {
  // Colour depth is a display figure: the numbers never leave this page's styles.
  const pnls = map.cells.flat().flatMap((e) => (e?.status === 'ok' && e.figures.pnl !== null ? [dec.abs(e.figures.pnl)] : []));
  const largest = pnls.reduce((a, p) => (dec.gt(p, a) ? p : a), ZERO);
  const scale = dec.toNumberForDisplay(largest);
  const cell = (e: SweepEntry | undefined) => {
    if (!e) return '<td class="note">-</td>';
    if (e.status !== 'ok') return `<td style="background:#ddd" title="${escapeHtml(e.reason)}">${e.status}</td>`;
    if (e.figures.pnl === null) return `<td class="note" title="${escapeHtml(hover(e))}">no PnL</td>`;
    const v = dec.toNumberForDisplay(e.figures.pnl);
    const depth = scale === 0 ? 0 : Math.abs(v) / scale;
    const colour = tint(v >= 0 ? THEME.up : THEME.down, 0.1 + 0.65 * depth);
    return `<td style="background:${colour}" title="${escapeHtml(hover(e))}">${escapeHtml(e.figures.pnl)}</td>`;
  };
  const head = `<tr><th>${escapeHtml(map.rows.key)} \\ ${escapeHtml(map.columns.key)}</th>${map.columns.values.map((v) => `<th>${escapeHtml(v)}</th>`).join('')}</tr>`;
  const rows = map.rows.values.map((rv, i) => `<tr><th>${escapeHtml(rv)}</th>${map.cells[i]!.map(cell).join('')}</tr>`);
  const legend = `<p class="scale">green a gain, red a loss, deeper with size up to the largest (${escapeHtml(largest)}); hover a cell for the run's figures</p>`;
  return `<table class="heat">\n${head}\n${rows.join('\n')}\n</table>\n${legend}`;
}
