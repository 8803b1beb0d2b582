// The dashboard's script, served as /dashboard.js after lightweight-charts and the shared chart
// helpers (SluiceCharts). It listens to /events (server-sent events: the whole history first,
// then each new sample with the current state) and draws from what arrives. Every value from
// the daemon is written with textContent: symbols, strategy ids, reasons and alert texts come
// from config, plugins and the venue, and none of them may become markup.

export const DASHBOARD_SCRIPT = `"use strict";
const C = SluiceCharts;
const $ = (id) => document.getElementById(id);
const prices = new Map();
let equity;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}
function ago(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
  return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
}
const clock = (ms) => new Date(ms).toISOString().slice(11, 19);
function table(id, head, rows) {
  const t = $(id);
  const tr = el("tr");
  for (const h of head) tr.appendChild(el("th", h));
  t.tHead.replaceChildren(tr);
  const body = rows.map((cells) => {
    const r = el("tr");
    for (const c of cells) r.appendChild(el("td", c, /^-?[0-9][0-9.]*$/.test(String(c)) ? "num" : undefined));
    return r;
  });
  if (body.length === 0) {
    const r = el("tr");
    const td = el("td", "none", "empty");
    td.colSpan = head.length;
    r.appendChild(td);
    body.push(r);
  }
  t.tBodies[0].replaceChildren(...body);
}

function priceChart(key, precision) {
  let c = prices.get(key);
  if (c) return c;
  const box = el("section", undefined, "symbol");
  box.dataset.key = key;
  box.appendChild(el("h3", key.replace(":", " ")));
  const legend = box.appendChild(el("div", "", "legend"));
  const area = box.appendChild(el("div", undefined, "chart"));
  $("prices").appendChild(box);
  const chart = C.create(area);
  const series = C.line(chart, C.theme.price, "last", precision);
  c = { box: box, chart: chart, series: series, markers: C.markers(series), lines: [], state: {}, precision: precision };
  c.legend = C.legend(chart, legend, [[series, "last", ""]]);
  prices.set(key, c);
  return c;
}
function equityChart() {
  if (equity) return equity;
  const chart = C.create($("equity-chart"));
  chart.applyOptions({ leftPriceScale: { visible: true } });
  const e = C.line(chart, C.theme.equity, "equity", 2, "right");
  const r = C.line(chart, C.theme.realized, "realised", 4, "left");
  equity = { chart: chart, equity: e, realized: r, es: {}, rs: {} };
  equity.legend = C.legend(chart, $("equity-legend"), [[e, "equity", ""], [r, "realised PnL after fees", ""]]);
  return equity;
}

function charts(s, h) {
  const byKey = (o) => o.market + ":" + o.symbol;
  for (const [key, points] of Object.entries(h.prices)) {
    const c = priceChart(key, C.precisionOf(points.map((p) => p.value)));
    if (h.full) {
      c.series.setData(C.points(points));
      c.state = {};
      const d = c.series.data();
      if (d.length) c.state.last = d[d.length - 1].time;
    } else C.append(c.series, points, c.state);
    c.legend();
  }
  for (const [key, c] of prices) {
    for (const line of c.lines) c.series.removePriceLine(line);
    c.lines = s.openOrders
      .filter((o) => byKey(o) === key && o.price !== undefined)
      .map((o) => c.series.createPriceLine({ price: C.num(o.price), color: o.side === "BUY" ? C.theme.up : C.theme.down, lineWidth: 1, lineStyle: 2, axisLabelVisible: true, title: o.side + " " + o.volume }));
    const marks = C.fillMarkers(s.fills.filter((f) => byKey(f) === key));
    c.markers.setMarkers(marks);
    c.chart.timeScale().scrollToRealTime();
    // What is drawn, in numbers a test (or a curious user) can read off the element.
    c.box.dataset.points = String(c.series.data().length);
    c.box.dataset.lines = String(c.lines.length);
    c.box.dataset.markers = String(marks.length);
  }
  const e = equityChart();
  if (h.full) {
    e.equity.setData(C.points(h.equity));
    e.realized.setData(C.points(h.realized));
    e.es = {};
    e.rs = {};
  } else {
    C.append(e.equity, h.equity, e.es);
    C.append(e.realized, h.realized, e.rs);
  }
  e.legend();
  $("equity-chart").dataset.points = String(e.equity.data().length);
}

// Fees in the quote, then each other asset's beside them (a spot buy's fee in the base coin), as the CLI shows them.
function feesText(fees, other) {
  return fees + Object.keys(other || {}).sort().map((a) => " + " + other[a] + " " + a).join("");
}

function render(m) {
  const s = m.status;
  $("mode").textContent = s.mode;
  const kill = $("kill");
  kill.textContent = m.health.killSwitch;
  kill.className = "badge " + m.health.killSwitch;
  $("realized").textContent = s.pnl.realized;
  $("fees").textContent = feesText(s.pnl.fees, s.pnl.feesOther);
  $("quote").textContent = s.quoteAsset || "";
  $("offset").textContent = String(s.clockOffsetMs);
  $("health").textContent = m.health.journalFailure ? "journal takes no writes: nothing is placed" : m.health.bannedUntil > s.now ? "banned until " + new Date(m.health.bannedUntil).toISOString() : m.health.venueReachable ? "venue reachable" : "venue unreachable";
  charts(s, m.history);
  table("orders", ["age", "symbol", "side", "price", "volume", "filled", "status", "strategy", "client order id"],
    s.openOrders.map((o) => [ago(s.now - o.createdAt), o.symbol, o.side, o.price === undefined ? o.type : o.price, o.volume, o.executedVolume, o.status, o.strategyId, o.clientOrderId]));
  table("fills", ["time", "symbol", "side", "price", "volume", "fee", "role"],
    s.fills.slice(0, 20).map((f) => [clock(f.time), f.symbol, f.side, f.price, f.volume, f.fee + " " + f.feeAsset, f.isMaker ? "maker" : "taker"]));
  table("positions", ["market", "symbol", "quantity", "avg entry", "realised PnL", "fees"],
    s.positions.map((p) => [p.market, p.symbol, p.quantity, p.avgEntryPrice, p.realizedPnl, feesText(p.fees, p.feesOther)]));
  table("strategies", ["strategy", "state", "why"], s.strategies.map((x) => [x.id, (x.enabled ? "running" : "disabled") + (x.lossLimitUntil ? ", loss limit hit until " + x.lossLimitUntil : ""), x.disabledReason || ""]));
  table("alerts", ["time", "kind", "message"], s.alerts.map((a) => [clock(a.at), a.kind, a.message]));
  table("drift", ["market", "symbol", "ours", "venue", "difference"], s.drift.map((d) => [d.market, d.symbol, d.ours, d.venue, d.difference]));
  limiter(s.limiter);
  const n = Number(document.body.dataset.updates || "0") + 1;
  document.body.dataset.updates = String(n);
  $("state").textContent = "updated " + new Date(s.now).toISOString();
  $("state").className = "";
}

/** A bar per endpoint in use: requests in the rolling 2 s window against its limit. */
function limiter(all) {
  const rows = Object.entries(all)
    .filter(([, u]) => u.requests > 0 || u.queued > 0 || u.inWindow > 0)
    .map(([endpoint, u]) => {
      const row = el("div", undefined, "bar");
      row.dataset.endpoint = endpoint;
      row.appendChild(el("span", endpoint, "name"));
      const track = row.appendChild(el("span", undefined, "track"));
      const fill = track.appendChild(el("span", undefined, "fill"));
      const share = u.limit > 0 ? Math.min(1, u.inWindow / u.limit) : 0;
      fill.style.width = (share * 100).toFixed(1) + "%";
      if (share >= 0.8) fill.classList.add("hot");
      row.appendChild(el("span", u.inWindow + " / " + u.limit + " per 2 s" + (u.queued ? ", " + u.queued + " queued" : ""), "figure"));
      return row;
    });
  if (rows.length === 0) rows.push(el("p", "no requests yet", "empty"));
  $("limiter").replaceChildren(...rows);
}

const events = new EventSource("events");
events.onmessage = (e) => render(JSON.parse(e.data));
events.onerror = () => {
  $("state").textContent = "cannot reach the daemon; retrying";
  $("state").className = "error";
};
`;
