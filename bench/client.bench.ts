// Issue 2 benchmarks: (1) client overhead per request with no network, against baselines
// measured in the same run; (2) a saturating burst against a loopback venue: achieved rate as
// a ratio of the limit, and 429s. Run: npx tsx bench/client.bench.ts
import { performance } from 'node:perf_hooks';
import { d } from '../src/core/decimal.js';
import { systemClock } from '../src/core/clock.js';
import type { HttpRequest, HttpResponse, Pacer, Transport } from '../src/core/ports.js';
import { decodeResponse, encodeBody } from '../src/exchange/codec.js';
import { parseJsonLossless, stringifyJson } from '../src/exchange/json.js';
import { sign } from '../src/exchange/sign.js';
import { createExchangeClient } from '../src/app/client.js';
import { endpointLimits } from '../src/exchange/endpoints.js';
import { BottleneckPacer } from '../src/limiter/index.js';
import { CANNED, maxInRollingWindow, startVenueServer } from '../test/fixtures/venue-server.js';

const KEY = 'bench-key';
const SECRET = 'bench-secret-0123456789';
const ORDER = { symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT' as const, volume: d('0.01'), price: d('30000'), newClientOrderId: 'slbench-1' };
const ACK = CANNED['POST /sapi/v1/order']!;

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: at(0.5), p99: at(0.99) };
}

const us = (ms: number) => (ms * 1000).toFixed(1);

/** Answers every request at once with the canned order ack: no network, no venue. */
const instant: Transport = { send: async (_r: HttpRequest): Promise<HttpResponse> => ({ status: 200, headers: {}, body: ACK }) };

/** A pacer that runs every job at once: isolates the executor's own cost. */
const passThrough: Pacer = {
  run: (_e, job) => job(),
  pauseEndpoint: () => undefined,
  released: () => new Promise(() => undefined),
  pauseAll: () => undefined,
  answered: () => undefined,
  pausedUntil: () => 0,
  usage: () => ({}),
  stop: async () => undefined,
};

async function measure(name: string, n: number, fn: () => Promise<unknown> | unknown) {
  for (let i = 0; i < 2000; i++) await fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return { name, ...stats(samples) };
}

async function overhead() {
  const N = 20_000;
  const baseline = await measure('baseline: encode + sign + parse + decode, called directly', N, () => {
    const body = stringifyJson(encodeBody('spot.order', ORDER));
    sign(SECRET, { timestamp: '1700000000000', method: 'POST', path: '/sapi/v1/order', query: '', body });
    return decodeResponse('spot.order', parseJsonLossless(ACK));
  });
  const bare = createExchangeClient({ transport: () => instant, credentials: { apiKey: KEY, apiSecret: SECRET }, pacer: passThrough });
  const executor = await measure('executor.call, pass-through pacer', N, () => bare.executor.call('spot.order', ORDER));
  const limits = Object.fromEntries(Object.keys(endpointLimits()).map((k) => [k, 1_000_000_000]));
  const paced = createExchangeClient({
    transport: () => instant,
    credentials: { apiKey: KEY, apiSecret: SECRET },
    pacer: new BottleneckPacer({ limits, clock: systemClock }),
  });
  const full = await measure('executor.call, BottleneckPacer with free capacity', 5_000, () => paced.executor.call('spot.order', ORDER));
  await paced.close();
  await bare.close();
  return [baseline, executor, full];
}

async function burst() {
  const LIMIT = 100;
  const N = 1000;
  const server = await startVenueServer({ apiKey: KEY, apiSecret: SECRET, limits: { 'POST /sapi/v1/order': LIMIT } });
  const client = createExchangeClient({ spotUrl: server.url, credentials: { apiKey: KEY, apiSecret: SECRET } });
  const t0 = performance.now();
  const results = await Promise.allSettled(Array.from({ length: N }, () => client.executor.call('spot.order', ORDER)));
  const elapsed = performance.now() - t0;
  await client.close();
  await server.close();
  const orders = server.arrivals.filter((a) => a.path === '/sapi/v1/order');
  const times = orders.map((a) => a.at);
  const first = Math.min(...times);
  const last = Math.max(...times);
  // Steady state: whole 2 s windows after the opening burst.
  const windows: number[] = [];
  for (let t = first + 2000; t + 2000 <= last; t += 2000) windows.push(times.filter((x) => x >= t && x < t + 2000).length);
  const achieved = windows.reduce((a, b) => a + b, 0) / windows.length;
  return {
    requests: N,
    failed: results.filter((r) => r.status === 'rejected').length,
    tooMany: orders.filter((a) => a.status === 429).length,
    maxInAnyWindow: maxInRollingWindow(times, 2000),
    achievedPer2s: achieved,
    ratio: achieved / LIMIT,
    seconds: elapsed / 1000,
  };
}

const o = await overhead();
console.log('\n## Client overhead per request, no network (µs)\n');
console.log('| path | median | p99 |\n|---|---|---|');
for (const r of o) console.log(`| ${r.name} | ${us(r.median)} | ${us(r.p99)} |`);
console.log(`\nexecutor / baseline (median): ${(o[1]!.median / o[0]!.median).toFixed(2)}x; with Bottleneck / baseline: ${(o[2]!.median / o[0]!.median).toFixed(2)}x`);
const b = await burst();
console.log('\n## Saturating burst, POST /sapi/v1/order at 100 per 2 s, loopback venue\n');
console.log('| requests | failed | 429s | max in any rolling 2 s | achieved per 2 s (steady) | ratio of limit | seconds |\n|---|---|---|---|---|---|---|');
console.log(`| ${b.requests} | ${b.failed} | ${b.tooMany} | ${b.maxInAnyWindow} | ${b.achievedPer2s.toFixed(1)} | ${b.ratio.toFixed(3)} | ${b.seconds.toFixed(1)} |`);
