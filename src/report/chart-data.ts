// What report.html's charts draw, as plain data: the equity and drawdown curves and each
// symbol's price with the fills on it, downsampled so a long run stays a small page. Values stay
// decimal strings here; the page's script turns them into numbers to plot.
import { dec, type Decimal } from '../core/decimal.js';
import { shownMoney } from '../core/display.js';
import { replayFills } from './fills.js';
import { downsampleIndices, drawdownSeries } from './series.js';
import type { ReportInput } from './types.js';

/** Most points drawn per series; a browser draws this many instantly and a screen shows no more. */
export const MAX_CHART_POINTS = 2000;
/** Most fills marked per price chart (the trades table lists them as well). */
export const MAX_CHART_MARKERS = 5000;

export interface ChartPoint {
  at: number;
  value: Decimal;
}

export interface ChartSeries {
  points: ChartPoint[];
  /** Samples before downsampling. */
  total: number;
}

export interface ChartFill {
  time: number;
  side: string;
  price: Decimal;
  volume: Decimal;
  tradeId: string;
}

export interface ReportCharts {
  quote: string;
  equity: ChartSeries;
  /** Minus the drawdown: 0 at a peak, down from there. */
  drawdown: ChartSeries;
  prices: (ChartSeries & { key: string; label: string; fills: ChartFill[]; fillsTotal: number })[];
}

function series(points: readonly ChartPoint[]): ChartSeries {
  const kept = downsampleIndices(
    points.map((p) => dec.toNumberForDisplay(p.value)),
    MAX_CHART_POINTS,
  );
  return { points: kept.map((i) => points[i]!), total: points.length };
}

export function chartData(input: ReportInput): ReportCharts {
  const applied = replayFills(input.fills, input.quoteAsset, input.contractSizes).applied.map((r) => r.fill);
  return {
    quote: input.quoteAsset,
    // Money drawn and shown as the report writes it: no 30-place quotients in the page.
    equity: series(input.equity.map((s) => ({ at: s.at, value: shownMoney(s.equity) }))),
    drawdown: series(drawdownSeries(input.equity, input.startingEquity, input.startedAt).map((p) => ({ at: p.at, value: shownMoney(dec.neg(p.drawdown)) }))),
    prices: (input.prices ?? []).map((p) => {
      const fills = applied.filter((f) => f.market === p.market && f.symbol === p.symbol);
      return {
        key: `${p.market}:${p.symbol}`,
        label: `${p.market} ${p.symbol}`,
        ...series(p.samples.map((s) => ({ at: s.at, value: s.price }))),
        fills: fills.slice(0, MAX_CHART_MARKERS).map((f) => ({ time: f.time, side: f.side, price: f.price, volume: f.volume, tradeId: f.tradeId })),
        fillsTotal: fills.length,
      };
    }),
  };
}

/** JSON safe inside a <script type="application/json"> element: no `<` can close it. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The page's own script: draws every chart from the data element with the shared helpers. */
export const REPORT_SCRIPT = `"use strict";
(function () {
  const C = SluiceCharts;
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const values = (points) => points.map((p) => p.value);
  let drawn = 0;
  function draw(id, build) {
    const el = document.getElementById(id);
    if (!el) return;
    const chart = C.create(el);
    const latest = build(chart, document.getElementById(id + "-legend"));
    chart.timeScale().fitContent();
    latest();
    drawn++;
  }
  data.prices.forEach((p, i) =>
    draw("price-" + i, (chart, legend) => {
      const s = C.line(chart, C.theme.price, "mid", C.precisionOf(values(p.points).concat(p.fills.map((f) => f.price))));
      s.setData(C.points(p.points));
      C.markers(s).setMarkers(C.fillMarkers(p.fills));
      return C.legend(chart, legend, [[s, "mid", data.quote]]);
    }),
  );
  draw("equity-chart", (chart, legend) => {
    const s = C.line(chart, C.theme.equity, "equity", Math.min(4, C.precisionOf(values(data.equity.points))));
    s.setData(C.points(data.equity.points));
    return C.legend(chart, legend, [[s, "equity", data.quote]]);
  });
  draw("drawdown-chart", (chart, legend) => {
    const s = C.area(chart, C.theme.down, "drawdown", Math.min(4, C.precisionOf(values(data.drawdown.points))));
    s.setData(C.points(data.drawdown.points));
    return C.legend(chart, legend, [[s, "drawdown", data.quote]]);
  });
  document.body.dataset.charts = String(drawn);
})();
`;
