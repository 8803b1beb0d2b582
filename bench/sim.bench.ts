// Issue 3 benchmark: requests per second the simulated exchange serves, over loopback HTTP
// (undici Pool, several connections, signed requests) and in-process (SimTransport), as a ratio
// of the fastest endpoint limit (100 per 2 s = 50 req/s). Rate limits are lifted (rateLimits:
// false): the point is the simulator's own ceiling. Run: npx tsx bench/sim.bench.ts [--append]
import { createHmac } from 'node:crypto';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { HttpRequest } from '../src/core/ports.js';
import { SimExchange, SimTransport, startSimServer } from '../src/sim/index.js';

const SECONDS = Number(process.env.SIM_BENCH_SECONDS ?? 8);
const FASTEST_LIMIT_PER_S = 100 / 2;
const ORDER_BODY = JSON.stringify({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '29000', volume: '0.01' });

/** The mix: a signed GET, a signed POST that validates an order, a public GET. */
function makeRequest(i: number, key: string, secret: string): HttpRequest {
  const kind = i % 3;
  if (kind === 2) return { method: 'GET', path: '/sapi/v1/depth', query: 'symbol=BTCUSDT&limit=20', body: '', headers: {} };
  const ts = String(Date.now());
  const [method, path, body] = kind === 0 ? (['GET', '/sapi/v1/account', ''] as const) : (['POST', '/sapi/v1/order/test', ORDER_BODY] as const);
  const sign = createHmac('sha256', secret).update(`${ts}${method}${path}${body}`).digest('hex');
  return { method, path, query: '', body, headers: { 'X-CH-APIKEY': key, 'X-CH-TS': ts, 'X-CH-SIGN': sign, 'content-type': 'application/json' } };
}

interface Result {
  requests: number;
  failed: number;
  perSecond: number;
  p50: number;
  p99: number;
}

async function drive(concurrency: number, seconds: number, one: (i: number) => Promise<number>): Promise<Result> {
  const latencies: number[] = [];
  let failed = 0;
  let n = 0;
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const i = n++;
        const t = performance.now();
        const status = await one(i);
        latencies.push(performance.now() - t);
        if (status !== 200) failed++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { requests: latencies.length, failed, perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99) };
}

async function loopback(connections: number, concurrency: number): Promise<Result> {
  const server = await startSimServer({ port: 0, seed: 1, rateLimits: false });
  const pool = new Pool(server.url, { connections, pipelining: 1 });
  try {
    // Warm-up: JIT and connections.
    await drive(connections, 1, (i) => send(pool, makeRequest(i, server.apiKey, server.apiSecret)));
    return await drive(concurrency, SECONDS, (i) => send(pool, makeRequest(i, server.apiKey, server.apiSecret)));
  } finally {
    await pool.close();
    await server.close();
  }
}

async function send(pool: Pool, r: HttpRequest): Promise<number> {
  const res = await pool.request({ method: r.method, path: r.query ? `${r.path}?${r.query}` : r.path, headers: r.headers, body: r.method === 'POST' ? r.body : undefined });
  await res.body.text();
  return res.statusCode;
}

async function inProcess(concurrency: number): Promise<Result> {
  const ex = new SimExchange({ seed: 1, rateLimits: false });
  const t = new SimTransport(ex);
  await drive(concurrency, 1, async (i) => (await t.send(makeRequest(i, ex.apiKey, ex.apiSecret))).status);
  return drive(concurrency, SECONDS, async (i) => (await t.send(makeRequest(i, ex.apiKey, ex.apiSecret))).status);
}

const rows: Array<[string, Result]> = [];
rows.push(['loopback HTTP, undici Pool, 8 connections, 32 in flight', await loopback(8, 32)]);
rows.push(['loopback HTTP, undici Pool, 1 connection, 1 in flight', await loopback(1, 1)]);
rows.push(['in-process SimTransport, 32 in flight', await inProcess(32)]);

const date = new Date().toISOString().slice(0, 10);
const lines = [
  '',
  '## Simulator throughput',
  '',
  `Measured ${date} on this machine (${cpus().length} cores, Node ${process.version}), while other work may have been running on it. Run: \`npx tsx bench/sim.bench.ts --append\` (${SECONDS} s per row after a 1 s warm-up).`,
  'Mix: one third each of signed GET /sapi/v1/account, signed POST /sapi/v1/order/test, public GET /sapi/v1/depth (20 levels); every request signed with HMAC-SHA256 by the bench (except depth). Rate limits lifted with `rateLimits: false`; latency and faults off; system clock, so the synthetic market steps every 250 ms during the run.',
  '',
  '| path | requests | non-200 | requests/s | ratio of the fastest limit (50/s) | p50 ms | p99 ms |',
  '|---|---|---|---|---|---|---|',
  ...rows.map(([name, r]) => `| ${name} | ${r.requests} | ${r.failed} | ${r.perSecond.toFixed(0)} | ${(r.perSecond / FASTEST_LIMIT_PER_S).toFixed(0)}x | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} |`),
  '',
  `Target: at least 10x the fastest endpoint limit (500 requests/s), so the simulator is never the bottleneck of a client benchmark.`,
  '',
];
const text = lines.join('\n');
console.log(text);
if (process.argv.includes('--append')) {
  const file = new URL('./RESULTS.md', import.meta.url);
  if (existsSync(file)) appendFileSync(file, text);
  else writeFileSync(file, `# Benchmark results\n${text}`);
}
