// The browser side of every chart sluice draws (the live dashboard, the backtest report): one
// script that runs after lightweight-charts' standalone build and defines `SluiceCharts`, so
// the dashboard and the reports share the same look, time axis, markers and hover legend.
// Decimal strings become JS numbers in here and only here, at the chart boundary: the canvas
// plots floats, and nothing decides anything with what it draws.

export const THEME = {
  text: '#222',
  muted: '#777',
  grid: '#eef0f3',
  border: '#d0d3d9',
  /** Gains, buys, bids. */
  up: '#089981',
  /** Losses, sells, asks, drawdown. */
  down: '#f23645',
  price: '#2962ff',
  equity: '#2962ff',
  realized: '#ff9800',
  font: 'system-ui, sans-serif',
} as const;

/**
 * lightweight-charts asks every page that uses it to credit TradingView with a link (its
 * NOTICE); a link is not a request, so the pages still load nothing from elsewhere.
 */
export const ATTRIBUTION = '<p class="attribution">Charts by <a href="https://www.tradingview.com/">TradingView</a> Lightweight Charts™ (Apache-2.0).</p>';

export const CHARTS_SCRIPT = `"use strict";
const SluiceCharts = (function () {
  const L = window.LightweightCharts;
  const theme = ${JSON.stringify(THEME)};
  // Decimal strings to numbers: only for plotting (see the file's header).
  const num = (s) => Number(s);
  const sec = (ms) => Math.floor(ms / 1000);
  const decimals = (s) => {
    const t = String(s);
    const i = t.indexOf(".");
    return i < 0 ? 0 : t.length - i - 1;
  };
  /** Places to show: the most any value has, at most 8. */
  function precisionOf(values) {
    let p = 0;
    for (const v of values) p = Math.max(p, decimals(v));
    return Math.min(p, 8);
  }
  function timeText(t) {
    return new Date(t * 1000).toISOString().replace("T", " ").slice(0, 19) + " UTC";
  }
  function create(el) {
    return L.createChart(el, {
      autoSize: true,
      // The attribution is a link in the page's footer (ATTRIBUTION) instead of the logo, whose
      // injected <style> a strict CSP refuses.
      layout: { background: { type: "solid", color: "#ffffff" }, textColor: theme.text, fontFamily: theme.font, attributionLogo: false },
      grid: { vertLines: { color: theme.grid }, horzLines: { color: theme.grid } },
      rightPriceScale: { borderColor: theme.border },
      leftPriceScale: { borderColor: theme.border },
      timeScale: { borderColor: theme.border, timeVisible: true, secondsVisible: true },
      crosshair: { mode: 0 },
    });
  }
  const format = (precision) => ({ type: "price", precision: precision, minMove: Math.pow(10, -precision) });
  function line(chart, color, title, precision, scale) {
    return chart.addSeries(L.LineSeries, { color: color, lineWidth: 2, title: title, priceFormat: format(precision), priceScaleId: scale || "right" });
  }
  function area(chart, color, title, precision) {
    return chart.addSeries(L.AreaSeries, { lineColor: color, topColor: color + "10", bottomColor: color + "55", lineWidth: 2, title: title, priceFormat: format(precision) });
  }
  /** [{at: ms, value: decimal}] in time order -> one chart point per second (the last of it). */
  function points(list) {
    const out = [];
    for (const p of list) {
      const time = sec(p.at);
      const value = num(p.value);
      const last = out[out.length - 1];
      if (last && last.time === time) last.value = value;
      else if (!last || time > last.time) out.push({ time: time, value: value });
    }
    return out;
  }
  /** Adds points after the series' last one (a point of the same second replaces it). */
  function append(series, list, state) {
    for (const p of points(list)) {
      if (state.last !== undefined && p.time < state.last) continue;
      series.update(p);
      state.last = p.time;
    }
  }
  /** Fills as arrows at their own price: up and green for a buy, down and red for a sell. */
  function fillMarkers(fills) {
    return fills
      .map((f) => ({
        time: sec(f.time),
        position: f.side === "BUY" ? "atPriceBottom" : "atPriceTop",
        price: num(f.price),
        shape: f.side === "BUY" ? "arrowUp" : "arrowDown",
        color: f.side === "BUY" ? theme.up : theme.down,
        id: f.tradeId,
      }))
      .sort((a, b) => a.time - b.time);
  }
  function markers(series) {
    return L.createSeriesMarkers(series, []);
  }
  /**
   * A line of text above a chart with the values under the crosshair (the latest ones when the
   * pointer is elsewhere): entries are [series, label, unit].
   */
  function legend(chart, el, entries) {
    const show = (time, values) => {
      const parts = entries.map((e, i) => e[1] + " " + (values[i] === undefined ? "-" : values[i].toFixed(e[0].options().priceFormat.precision)) + (e[2] ? " " + e[2] : ""));
      el.textContent = (time === undefined ? "" : timeText(time) + " · ") + parts.join(" · ");
    };
    const latest = () => {
      let time;
      const values = entries.map((e) => {
        const data = e[0].data();
        const last = data[data.length - 1];
        if (last && (time === undefined || last.time > time)) time = last.time;
        return last ? last.value : undefined;
      });
      show(time, values);
    };
    chart.subscribeCrosshairMove((param) => {
      if (param.time === undefined || !param.point) return latest();
      show(param.time, entries.map((e) => {
        const d = param.seriesData.get(e[0]);
        return d ? d.value : undefined;
      }));
    });
    return latest;
  }
  return { L: L, theme: theme, num: num, sec: sec, precisionOf: precisionOf, timeText: timeText, create: create, line: line, area: area, points: points, append: append, fillMarkers: fillMarkers, markers: markers, legend: legend };
})();
`;
