// The live status page: one self-contained document (no external assets, so it works on an
// air-gapped host and the CSP can forbid everything else). Every value is written with
// textContent: symbols, strategy ids and disabled reasons come from config, plugins and the
// venue, and none of them may become markup.
import { createHash } from 'node:crypto';

const STYLE = `
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em;margin:0 0 .3em}h2{font-size:1.05em;margin:1.2em 0 .3em}
table{border-collapse:collapse;min-width:20em}th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
#state.error{color:#b00}.empty{color:#888}
`;

const SCRIPT = `
"use strict";
const sections = {
  positions: ["market", "symbol", "quantity", "avgEntryPrice", "realizedPnl", "fees"],
  orders: ["clientOrderId", "strategyId", "market", "symbol", "side", "type", "price", "volume", "executedVolume", "status"],
  limiter: ["endpoint", "inWindow", "limit", "queued"],
  strategies: ["id", "enabled", "disabledReason"],
  drift: ["market", "symbol", "ours", "venue", "difference"],
};
function cell(tag, text) {
  const el = document.createElement(tag);
  el.textContent = text === undefined || text === null ? "" : String(text);
  if (tag === "td" && /^-?[0-9.]+$/.test(el.textContent)) el.className = "num";
  return el;
}
function fill(id, rows) {
  const table = document.getElementById(id);
  const cols = sections[id];
  const head = document.createElement("tr");
  for (const c of cols) head.appendChild(cell("th", c));
  table.tHead.replaceChildren(head);
  const body = [];
  for (const r of rows) {
    const tr = document.createElement("tr");
    for (const c of cols) tr.appendChild(cell("td", r[c]));
    body.push(tr);
  }
  if (body.length === 0) {
    const tr = document.createElement("tr");
    const td = cell("td", "none");
    td.colSpan = cols.length;
    td.className = "empty";
    tr.appendChild(td);
    body.push(tr);
  }
  table.tBodies[0].replaceChildren(...body);
}
function render(s) {
  document.getElementById("mode").textContent = s.mode;
  document.getElementById("realized").textContent = s.pnl.realized;
  document.getElementById("fees").textContent = s.pnl.fees;
  document.getElementById("offset").textContent = String(s.clockOffsetMs);
  fill("positions", s.positions);
  fill("orders", s.openOrders);
  fill("limiter", Object.entries(s.limiter).map(([endpoint, u]) => ({ endpoint, ...u })));
  fill("strategies", s.strategies);
  fill("drift", s.drift);
}
const state = document.getElementById("state");
async function refresh() {
  try {
    const res = await fetch("status.json", { cache: "no-store" });
    if (!res.ok) throw new Error("HTTP " + res.status);
    const s = await res.json();
    render(s);
    state.textContent = "updated " + new Date(s.now).toISOString();
    state.className = "";
    document.body.dataset.updates = String(Number(document.body.dataset.updates || "0") + 1);
  } catch (e) {
    state.textContent = "cannot reach the daemon: " + (e && e.message ? e.message : String(e));
    state.className = "error";
  }
  // Waits for the previous answer, so a slow daemon is never asked twice at once.
  setTimeout(refresh, 2000);
}
refresh();
`;

const table = (id: string) => `<table id="${id}"><thead></thead><tbody></tbody></table>`;

export const STATUS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sluice status</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body data-updates="0">
<h1>sluice</h1>
<p>mode <b id="mode"></b> · realised PnL <b id="realized"></b> · fees <b id="fees"></b> · clock offset <b id="offset"></b> ms · <span id="state">loading…</span></p>
<h2>Positions</h2>${table('positions')}
<h2>Open orders</h2>${table('orders')}
<h2>Limiter</h2>${table('limiter')}
<h2>Strategies</h2>${table('strategies')}
<h2>Drift</h2>${table('drift')}
<script>${SCRIPT}</script>
</body></html>
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Allows exactly our inline style and script and requests to this origin, nothing else. */
export const STATUS_PAGE_CSP = `default-src 'none'; style-src ${sha256(STYLE)}; script-src ${sha256(SCRIPT)}; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
