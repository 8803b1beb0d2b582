// renderHtml: the report as one self-contained page (no scripts, fonts or external styles),
// so it opens from disk anywhere and can be attached to a ticket. Every text passes through
// escapeHtml: symbols, strategy ids, tape names and config values come from users and venues.
// Deterministic: nothing here reads a clock, and numbers are printed with fixed decimals.
import { dec, type Decimal } from '../core/decimal.js';
import { replayFills } from './fills.js';
import { downsampleIndices, drawdownSeries } from './series.js';
import type { Report, ReportInput } from './types.js';

/** Most points drawn per chart; a browser draws this many instantly and a screen shows no more. */
export const MAX_CHART_POINTS = 2000;
/** Most rows in the trades table; the full list is in the fills the run recorded. */
export const MAX_TRADE_ROWS = 5000;

const CHART_WIDTH = 900;
const CHART_HEIGHT = 220;
const PAD = 4;

const STYLE = `
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em;margin:0 0 .3em}h2{font-size:1.05em;margin:1.2em 0 .3em}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
svg{border:1px solid #ccc;background:#fafafa}.axis{font-size:.85em;color:#666}.note{color:#888}
`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function renderHtml(report: Report, input: ReportInput): string {
  const title = `sluice backtest${report.tape !== null ? ` — ${report.tape}` : ''}`;
  const drawdowns = drawdownSeries(input.equity, input.startingEquity, input.startedAt);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head><body>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(`${report.period.start} to ${report.period.end}; strategies: ${report.strategies.join(', ') || 'none'}`)}</p>`,
    '<h2>Summary</h2>',
    summaryTable(report),
    '<h2>Equity</h2>',
    chart('equity', input.equity.map((s) => ({ at: s.at, value: s.equity })), report.quoteAsset),
    '<h2>Drawdown</h2>',
    chart('drawdown', drawdowns.map((p) => ({ at: p.at, value: dec.neg(p.drawdown) })), report.quoteAsset),
    '<h2>Rate limits</h2>',
    rateLimitTable(report),
    '<h2>Trades</h2>',
    tradesTable(input),
    ...(report.config !== null ? ['<h2>Configuration</h2>', `<pre>${escapeHtml(JSON.stringify(report.config, null, 2))}</pre>`] : []),
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
    ['Sharpe (annualised)', r.sharpe.value === null ? unavailable(r.sharpe.reason) : fixed(r.sharpe.value, 3)],
    ['Time exposed', r.exposure.timeShare === null ? unavailable(r.exposure.reason) : `${fixed(r.exposure.timeShare * 100, 2)}%`],
    // The JSON keeps the exact 30-place quotient; 8 places are plenty to read.
    ['Average exposure', money(r.exposure.averageValue === null ? null : dec.round(r.exposure.averageValue, 8), r.exposure.reason)],
    ['Orders sent / accepted / rejected / unknown', `${r.orders.sent} / ${r.orders.accepted} / ${r.orders.rejected} / ${r.orders.unknown}`],
    ['Rejected by risk', String(r.orders.riskRejected)],
    ['Time waiting for the limiter', `${r.rateLimits.totalWaitedMs} ms`],
  ];
  return table(['', ''], rows, false);
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
    r.closing ? r.realizedPnl : '',
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

interface ChartPoint {
  at: number;
  value: Decimal;
}

/** An inline SVG polyline of the points, downsampled to MAX_CHART_POINTS. */
function chart(name: string, points: readonly ChartPoint[], unit: string): string {
  if (points.length === 0) return `<p class="note">No equity samples: no ${escapeHtml(name)} chart.</p>`;
  const values = points.map((p) => dec.toNumberForDisplay(p.value));
  const kept = downsampleIndices(values, MAX_CHART_POINTS);
  const t0 = points[0]!.at;
  const t1 = points[points.length - 1]!.at;
  const lo = Math.min(...kept.map((i) => values[i]!));
  const hi = Math.max(...kept.map((i) => values[i]!));
  const x = (at: number) => (t1 > t0 ? PAD + ((at - t0) / (t1 - t0)) * (CHART_WIDTH - 2 * PAD) : CHART_WIDTH / 2);
  // A flat series is drawn across the middle instead of dividing by a zero range.
  const y = (v: number) => (hi > lo ? PAD + ((hi - v) / (hi - lo)) * (CHART_HEIGHT - 2 * PAD) : CHART_HEIGHT / 2);
  const coordinates = kept.map((i) => `${x(points[i]!.at).toFixed(2)},${y(values[i]!).toFixed(2)}`).join(' ');
  const lowest = kept.reduce((a, i) => (dec.lt(points[i]!.value, points[a]!.value) ? i : a), kept[0]!);
  const highest = kept.reduce((a, i) => (dec.gt(points[i]!.value, points[a]!.value) ? i : a), kept[0]!);
  const downsampled = kept.length < points.length ? `, ${kept.length} of ${points.length} samples drawn` : '';
  return [
    `<svg id="${escapeHtml(name)}-chart" xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${CHART_HEIGHT}" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" role="img" aria-label="${escapeHtml(name)}">`,
    `<polyline fill="none" stroke="${name === 'drawdown' ? '#b33' : '#36c'}" stroke-width="1.5" points="${coordinates}"/>`,
    '</svg>',
    `<p class="axis">${escapeHtml(`${iso(t0)} to ${iso(t1)}; from ${points[lowest]!.value} to ${points[highest]!.value} ${unit}${downsampled}`)}</p>`,
  ].join('\n');
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
