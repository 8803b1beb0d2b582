// Issue 4 benchmarks, through the whole engine over loopback HTTP against the simulator:
// (1) saturation for SECONDS: orders accepted per second as a ratio of the venue's ceiling
// (100 single + 50 batches of 10 per 2 s = 300 orders/s), and 429s; (2) intent-to-wire
// latency below saturation (intent created -> request arrives at the venue), p50 and p99.
// Run: npx tsx bench/engine.bench.ts [seconds=60]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { systemClock } from '../src/core/clock.js';
import { d, dec } from '../src/core/decimal.js';
import { parseConfig } from '../src/config/index.js';
import { createLogger } from '../src/runtime/logger.js';
import { wire } from '../src/runtime/wire.js';
import { startSimServer } from '../src/sim/index.js';
import { defineStrategy, z } from '../src/strategy/api.js';

const SECONDS = Number(process.argv[2] ?? 60);
const CEILING = 300;

async function run(perTick: number, everyMs: number, seconds: number) {
  const sim = await startSimServer({ port: 0, seed: 3 });
  const created = new Map<string, number>();
  let side: 'BUY' | 'SELL' = 'BUY';
  const flood = defineStrategy({
    apiVersion: 1,
    name: 'flood',
    params: z.object({}),
    create(ctx) {
      return {
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last) return;
          for (let i = 0; i < perTick; i++) {
            // Marketable and alternating: every order fills at once, so nothing piles up.
            side = side === 'BUY' ? 'SELL' : 'BUY';
            const price = dec.truncate(dec.mul(last, side === 'BUY' ? d('1.002') : d('0.998')), 2);
            created.set(ctx.place({ symbol: 'BTCUSDT', side, type: 'LIMIT', price, volume: '0.00001' }), ctx.now());
          }
        },
      };
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-'));
  const { config, credentials } = await parseConfig(
    `
mode: live
venue: { spotUrl: "\${SIM_URL}" }
engine: { marketDataEveryMs: 500, reconcileEveryMs: 2000, summaryEveryMs: 600000 }
journal: { path: "${join(dir, 'j.db')}" }
risk:
  maxOpenOrders: 100000
  maxOrdersPerSecond: 100000
  duplicateWindowMs: 0
  maxNotionalPerMinute: "100000000"
`,
    { env: { SIM_URL: sim.url, SLUICE_API_KEY: sim.apiKey, SLUICE_API_SECRET: sim.apiSecret } },
  );
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const app = wire({
    config,
    credentials,
    clock: systemClock,
    log: createLogger({ level: 'warn', pretty: false, secrets: [], destination: quiet }),
    strategies: [{ entry: { id: 'flood', use: 'inline', enabled: true, market: 'spot', symbols: ['BTCUSDT'], everyMs, params: {} }, definition: flood, params: {} }],
  });
  await app.start();
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const t1 = Date.now();
  const stats = { ...app.engine.stats, intentToWire: undefined };
  await app.stop();
  await sim.close();
  // Steady state: skip the first 2 s (start-up and the opening burst).
  const accepted = sim.exchange.orderLog().filter((o) => o.at >= t0 + 2000 && o.at < t1);
  const arrivals = sim.exchange.arrivals();
  const latencies = sim.exchange
    .orderLog()
    .map((o) => (o.clientOrderId && created.has(o.clientOrderId) ? o.at - created.get(o.clientOrderId)! : undefined))
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  return {
    perSecond: accepted.length / ((t1 - t0 - 2000) / 1000),
    tooMany: arrivals.filter((a) => a.status === 429).length,
    tooManyOn: [...new Set(arrivals.filter((a) => a.status === 429).map((a) => a.endpoint))].join(" "),
    banned: arrivals.filter((a) => a.status === 418).length,
    batches: arrivals.filter((a) => a.endpoint === 'spot.batchOrders').length,
    singles: arrivals.filter((a) => a.endpoint === 'spot.order').length,
    p50: latencies[Math.floor(latencies.length * 0.5)] ?? NaN,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
    n: latencies.length,
    stats,
  };
}

const sat = await run(80, 100, SECONDS); // 400 intents/s offered, above the ceiling
console.log(`\n## Engine saturation, ${SECONDS} s, loopback simulator\n`);
console.log('| offered intents/s | accepted orders/s (steady) | ratio of 300/s ceiling | 429s | 418s | batchOrders requests | order requests |\n|---|---|---|---|---|---|---|');
console.log(`| up to 800 | ${sat.perSecond.toFixed(1)} | ${(sat.perSecond / CEILING).toFixed(3)} | ${sat.tooMany} | ${sat.banned} | ${sat.batches} | ${sat.singles} |`);
console.error(JSON.stringify(sat.stats), sat.tooManyOn);
const calm = await run(1, 100, 20); // 10 intents/s, far below the ceiling
console.log('\n## Intent-to-wire latency below saturation (10 intents/s, 20 s)\n');
console.log('| orders | p50 ms | p99 ms |\n|---|---|---|');
console.log(`| ${calm.n} | ${calm.p50} | ${calm.p99} |`);
process.exit(0);
