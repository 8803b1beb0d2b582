// The live dashboard: one page whose scripts all come from this server (lightweight-charts from
// node_modules, the shared chart helpers, the dashboard script), so it works on an air-gapped
// host and the CSP can forbid everything else. Only the style is inline (allowed by its hash).
import { createHash } from 'node:crypto';
import { ATTRIBUTION, THEME } from '../charts/client.js';

const STYLE = `
body{font:14px ${THEME.font};margin:1.2em 1.5em;color:${THEME.text};background:#f7f8fa}
h1{font-size:1.3em;margin:0 0 .3em}h2{font-size:1.05em;margin:1.2em 0 .4em}h3{font-size:.95em;margin:0 0 .2em}
.top b{font-variant-numeric:tabular-nums}.badge{padding:.1em .5em;border-radius:.6em;background:#e0e0e0}
.badge.off{background:#d7f2ea;color:#05664f}.badge.halted{background:${THEME.down};color:#fff}.badge.reduce_only{background:#ffe2a8}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(30em,1fr));gap:1em}
section.card,.symbol{background:#fff;border:1px solid ${THEME.border};border-radius:6px;padding:.7em}
.chart{height:260px}.legend{font-size:.85em;color:${THEME.muted};min-height:1.3em;font-variant-numeric:tabular-nums}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #e3e5e8;padding:.2em .5em;text-align:left}
th{color:${THEME.muted};font-weight:600}td{white-space:nowrap}#alerts td:last-child,#strategies td:last-child{white-space:normal}.wide{grid-column:1/-1}td.num{text-align:right;font-variant-numeric:tabular-nums}
.empty{color:#999}#state.error{color:${THEME.down}}
.bar{display:grid;grid-template-columns:12em 1fr 13em;gap:.6em;align-items:center;margin:.2em 0}
.track{height:.8em;background:#eceff2;border-radius:.4em;overflow:hidden}.fill{display:block;height:100%;background:${THEME.price}}
.fill.hot{background:${THEME.down}}.attribution{color:${THEME.muted};font-size:.8em;margin-top:2em}.attribution a{color:inherit}.figure{font-variant-numeric:tabular-nums;color:${THEME.muted}}
`;

const table = (id: string) => `<table id="${id}"><thead></thead><tbody></tbody></table>`;

export const STATUS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sluice dashboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body data-updates="0">
<h1>sluice</h1>
<p class="top">mode <b id="mode"></b> · kill switch <b id="kill" class="badge"></b> · <span id="health"></span> · realised PnL <b id="realized"></b> <span id="quote"></span> · fees <b id="fees"></b> · clock offset <b id="offset"></b> ms · <span id="state">connecting…</span></p>
<h2>Prices, our open orders (lines) and fills (arrows)</h2>
<div id="prices" class="grid"></div>
<h2>Equity and realised PnL</h2>
<section class="card"><div id="equity-legend" class="legend"></div><div id="equity-chart" class="chart"></div></section>
<div class="grid">
<section class="card wide"><h2>Open orders</h2>${table('orders')}</section>
<section class="card wide"><h2>Latest fills</h2>${table('fills')}</section>
<section class="card"><h2>Strategies</h2>${table('strategies')}</section>
<section class="card"><h2>Alerts</h2>${table('alerts')}</section>
<section class="card"><h2>Positions</h2>${table('positions')}</section>
<section class="card"><h2>Limiter (endpoints in use)</h2><div id="limiter"></div></section>
<section class="card"><h2>Drift</h2>${table('drift')}</section>
</div>
${ATTRIBUTION}
<script src="vendor/lightweight-charts.js"></script>
<script src="charts.js"></script>
<script src="dashboard.js"></script>
</body></html>
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Our inline style, scripts and requests from this origin only; nothing else. */
export const STATUS_PAGE_CSP = `default-src 'none'; style-src ${sha256(STYLE)}; script-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
