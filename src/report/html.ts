// renderHtml: the report as one self-contained page that opens from disk anywhere, offline: the
// charts are lightweight-charts, inlined with the shared chart script (src/charts) and the data
// they draw (a JSON element); nothing is loaded from anywhere. Every text passes through
// escapeHtml: symbols, strategy ids, tape names and config values come from users and venues.
// Deterministic: nothing here reads a clock, and numbers are printed with fixed decimals.
import { ATTRIBUTION, CHARTS_SCRIPT, THEME } from '../charts/client.js';
import { chartLibrarySource } from '../charts/library.js';
import { dec, type Decimal } from '../core/decimal.js';
import { shownMoney } from '../core/display.js';
import { chartData, REPORT_SCRIPT, scriptJson, type ChartSeries, type ReportCharts } from './chart-data.js';
import { disabledLines, incidentsLine } from './build.js';
import { replayFills } from './fills.js';
import type { Report, ReportInput } from './types.js';

export { MAX_CHART_POINTS } from './chart-data.js';
/** Most rows in the trades table; the full list is in the fills the run recorded. */
export const MAX_TRADE_ROWS = 5000;

const STYLE = `
body{font:14px ${THEME.font};margin:1.5em;color:${THEME.text}}
h1{font-size:1.3em;margin:0 0 .3em}h2{font-size:1.05em;margin:1.2em 0 .3em}h3{font-size:.95em;margin:.8em 0 .2em}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.chart{height:280px;max-width:1100px;border:1px solid ${THEME.border}}.legend{font-size:.85em;color:${THEME.muted};min-height:1.3em;font-variant-numeric:tabular-nums}
.axis{font-size:.85em;color:#666}.note{color:#888}.attribution{color:${THEME.muted};font-size:.8em;margin-top:2em}.attribution a{color:inherit}
`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function renderHtml(report: Report, input: ReportInput): string {
  const title = `sluice backtest${report.tape !== null ? ` — ${report.tape}` : ''}`;
  const charts = chartData(input);
  const drawable = charts.equity.points.length > 0 || charts.prices.some((p) => p.points.length > 0);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head><body data-charts="0">',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(`${report.period.start} to ${report.period.end}; strategies: ${report.strategies.join(', ') || 'none'}`)}</p>`,
    '<noscript><p class="note">The charts need JavaScript; every figure is in the tables.</p></noscript>',
    '<h2>Summary</h2>',
    summaryTable(report),
    '<h2>Price and fills</h2>',
    priceCharts(charts),
    '<h2>Equity</h2>',
    chart('equity', charts.equity, charts.quote),
    '<h2>Drawdown</h2>',
    chart('drawdown', charts.drawdown, charts.quote),
    '<h2>Rate limits</h2>',
    rateLimitTable(report),
    '<h2>Trades</h2>',
    tradesTable(input),
    ...(report.config !== null ? ['<h2>Configuration</h2>', `<pre>${escapeHtml(JSON.stringify(report.config, null, 2))}</pre>`] : []),
    ...(drawable
      ? [
          ATTRIBUTION,
          `<script type="application/json" id="report-data">${scriptJson(charts)}</script>`,
          `<script>${chartLibrarySource()}</script>`,
          `<script>${CHARTS_SCRIPT}</script>`,
          `<script>${REPORT_SCRIPT}</script>`,
        ]
      : []),
    '</body></html>',
    '',
  ].join('\n');
}

function summaryTable(r: Report): string {
  const q = r.quoteAsset;
  const money = (v: Decimal | null, reason: string | null) => (v === null ? unavailable(reason) : `${v} ${q}`);
  const rows: [string, string][] = [
    ['Starting equity', money(r.pnl.startingEquity, null)],
    ['Final equity', money(r.pnl.finalEquity, r.pnl.reason)],
    ['PnL (final - starting)', money(r.pnl.total, r.pnl.reason) + (r.pnl.totalPct !== null ? ` (${fixed(r.pnl.totalPct, 2)}%)` : '')],
    ['Realised PnL before fees', money(r.pnl.realized, null)],
    ['Fees', `${r.fees.quote} ${q}${Object.entries(r.fees.otherAssets).map(([asset, fee]) => `, ${fee} ${asset}`).join('')}`],
    ['Realised PnL after fees', money(r.pnl.realizedAfterFees, null)],
    ['Fills (buys / sells)', `${r.trades.fills} (${r.trades.buys} / ${r.trades.sells})`],
    ['Round trips', String(r.trades.roundTrips)],
    ['Win rate (closing fills)', r.winRate.value === null ? unavailable(r.winRate.reason) : `${fixed(r.winRate.value * 100, 2)}% (${r.winRate.winning} of ${r.winRate.closingFills})`],
    [
      'Max drawdown',
      r.maxDrawdown.amount === null
        ? unavailable(r.maxDrawdown.reason)
        : `${r.maxDrawdown.amount} ${q}` +
          (r.maxDrawdown.pctOfPeak !== null ? ` (${fixed(r.maxDrawdown.pctOfPeak, 2)}% of peak)` : '') +
          (r.maxDrawdown.troughAt !== null ? `, trough at ${iso(r.maxDrawdown.troughAt)}` : ''),
    ],
    sharpeRow(r.sharpe),
    ['Time exposed', r.exposure.timeShare === null ? unavailable(r.exposure.reason) : `${fixed(r.exposure.timeShare * 100, 2)}%`],
    ['Average exposure', money(r.exposure.averageValue, r.exposure.reason)],
    ['Orders sent / accepted / rejected / unknown', `${r.orders.sent} / ${r.orders.accepted} / ${r.orders.rejected} / ${r.orders.unknown}`],
    ['Cancels sent', String(r.orders.cancelsSent)],
    ['Rejected by risk', String(r.orders.riskRejected)],
    ['Time waiting for the limiter', `${r.rateLimits.totalWaitedMs} ms`],
  ];
  const incidents = incidentsLine(r);
  if (incidents) rows.push(['Venue troubles the tape recorded', incidents.replace(/^recorded venue incidents /, '')]);
  for (const s of r.untaped ?? []) rows.push(['Not on the tape', `${s}: the tape holds no market data for it; it traded the simulator's own synthetic market, not recorded reality`]);
  for (const line of disabledLines(r)) rows.push(['Strategy disabled', line.replace(/^strategy /, '')]);
  for (const x of r.refusals ?? []) rows.push([`Refused by ${x.rule}`, `${x.count} (first: ${x.first})`]);
  for (const [reason, n] of Object.entries(r.exits ?? {})) rows.push([`Exits by ${reason}`, String(n)]);
  for (const h of r.lossLimitHits ?? []) rows.push(['Loss limit hit', `${h.strategy} on ${h.day} (UTC), the day's PnL ${h.pnl} ${q}: it opened nothing more that day (strategies[].lossLimit)`]);
  return table(['', ''], rows, false);
}

/** Labelled with what the figure is: annualised, or per sample period and why (see SHARPE_ANNUALISE_MIN_MS). */
function sharpeRow(s: Report['sharpe']): [string, string] {
  if (s.value === null) return ['Sharpe', unavailable(s.reason)];
  if (s.annualised) return ['Sharpe (annualised)', fixed(s.value, 3)];
  return [`Sharpe (${s.basis}, not annualised)`, `${fixed(s.value, 3)} (${s.notAnnualised})`];
}

function rateLimitTable(r: Report): string {
  if (r.rateLimits.endpoints.length === 0) return '<p class="note">No limiter figures.</p>';
  const rows = r.rateLimits.endpoints.map((e) => [
    e.endpoint,
    String(e.requests),
    String(e.limit),
    String(e.peakInWindow),
    e.peakShareOfLimit === null ? 'n/a' : `${fixed(e.peakShareOfLimit * 100, 1)}%`,
    String(e.waitedMs),
  ]);
  return table(['endpoint', 'requests', 'limit per 2 s', 'peak in a 2 s window', 'peak share', 'waited ms'], rows, true);
}

function tradesTable(input: ReportInput): string {
  const replay = replayFills(input.fills, input.quoteAsset, input.contractSizes);
  if (replay.applied.length === 0) return '<p class="note">No fills.</p>';
  const shown = replay.applied.slice(0, MAX_TRADE_ROWS);
  const rows = shown.map((r) => [
    iso(r.fill.time),
    r.fill.market,
    r.fill.symbol,
    r.fill.side,
    r.fill.price,
    r.fill.volume,
    `${r.fill.fee} ${r.fill.feeAsset || input.quoteAsset}`,
    r.closing ? shownMoney(r.realizedPnl) : '',
  ]);
  const note =
    replay.applied.length > shown.length ? `<p class="note">Showing the first ${shown.length} of ${replay.applied.length} fills.</p>\n` : '';
  return note + table(['time', 'market', 'symbol', 'side', 'price', 'volume', 'fee', 'realised PnL'], rows, true);
}

function table(headers: string[], rows: string[][], withHead: boolean): string {
  const head = withHead ? `<thead><tr>${headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>` : '';
  const body = rows.map((cells) => `<tr>${cells.map((c, i) => cellHtml(c, withHead || i > 0)).join('')}</tr>`).join('\n');
  return `<table>${head}<tbody>\n${body}\n</tbody></table>`;
}

function cellHtml(text: string, numericAllowed: boolean): string {
  const numeric = numericAllowed && /^-?[0-9][0-9.]*$/.test(text);
  return `<td${numeric ? ' class="num"' : ''}>${escapeHtml(text)}</td>`;
}

/** A chart element the page's script draws into, with its legend (hover values) and a line saying what it spans. */
function chart(name: string, series: ChartSeries, unit: string, id = `${name}-chart`, more = ''): string {
  if (series.points.length === 0) return `<p class="note">No equity samples: no ${escapeHtml(name)} chart.</p>`;
  const { points } = series;
  const lowest = points.reduce((a, p) => (dec.lt(p.value, a.value) ? p : a));
  const highest = points.reduce((a, p) => (dec.gt(p.value, a.value) ? p : a));
  const downsampled = points.length < series.total ? `, ${points.length} of ${series.total} samples drawn` : '';
  return [
    `<div id="${id}-legend" class="legend"></div><div id="${id}" class="chart" role="img" aria-label="${escapeHtml(name)}"></div>`,
    `<p class="axis">${escapeHtml(`${iso(points[0]!.at)} to ${iso(points[points.length - 1]!.at)}; from ${lowest.value} to ${highest.value} ${unit}${downsampled}${more}`)}</p>`,
  ].join('\n');
}

function priceCharts(charts: ReportCharts): string {
  if (charts.prices.every((p) => p.points.length === 0)) return '<p class="note">No price samples.</p>';
  return charts.prices
    .map((p, i) => {
      if (p.points.length === 0) return `<h3>${escapeHtml(p.label)}</h3>\n<p class="note">No price samples.</p>`;
      const marked = p.fills.length < p.fillsTotal ? `the first ${p.fills.length} of ${p.fillsTotal} fills marked` : `${p.fillsTotal} fills marked`;
      return `<h3>${escapeHtml(p.label)}</h3>\n${chart(`price ${p.label}`, p, charts.quote, `price-${i}`, `; ${marked}`)}`;
    })
    .join('\n');
}

function unavailable(reason: string | null): string {
  return reason === null ? 'n/a' : `n/a (${reason})`;
}

function fixed(n: number, places: number): string {
  return n.toFixed(places);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
