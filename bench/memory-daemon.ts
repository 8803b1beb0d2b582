// The daemon of bench/memory.bench.ts, in a process of its own that runs from sluice's
// JavaScript build, as `sluice run` does (bench/against-build.ts): 10 strategies on 10 symbols,
// the daemon's own wiring (the SQLite journal on disk, fsynced before each order leaves, the
// pacers, the reconciler) on a manual clock that jumps from one sleeper to the next, so a day
// runs in about an hour. Every simulated hour it sends its parent RSS and the heap live after
// a full GC.
// The venue runs in a child process of this one (bench/memory-sim-child.ts, through tsx) so that
// this process holds the daemon alone. The daemon reaches it over HTTP on 127.0.0.1 with its own
// transport (undici), each request carrying the daemon's clock time in a header; the venue moves
// its clock there and answers. Around the app, what `sluice run` adds: metrics on every venue
// call, the dashboard's source sampled every simulated second, and the ops endpoint (the parent
// reads its event stream and scrapes it). The driver wakes the next sleeper only when no request
// is in flight and the journal's fsync has landed, so time never moves under a request. The
// profile is the daemon's (paper) with the venue given as a transport, the seam replay uses.
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { ManualClock } from '../src/core/clock.js';
import { d } from '../src/core/decimal.js';
import { parseConfig } from '../src/config/index.js';
import { buildApp, type App } from '../src/app/build.js';
import { preferSmallHeap } from '../src/app/heap.js';
import { createLogger } from '../src/app/logger.js';
import type { HttpRequest, HttpResponse, Transport } from '../src/core/ports.js';
import { HttpTransport } from '../src/exchange/transport/http.js';
import type { CallRecord } from '../src/executor/executor.js';
import { createDaemonOpsSource, VenueWatch } from '../src/app/ops-source.js';
import { DASHBOARD_SAMPLE_MS } from '../src/commands/run.js';
import { createMetrics, startOpsServer } from '../src/ops/index.js';
import { DEFAULT_SYMBOLS, type SymbolSpec } from '../src/sim/index.js';
import { loadStrategies } from '../src/strategy/index.js';
import { NOW_HEADER, type DaemonReport, type FromVenue, type HourSample, type SimChildSetup, type ToVenue } from './memory-protocol.js';

const report = (m: DaemonReport) => new Promise<void>((r) => process.send!(m, () => r()));

const argv = process.argv.slice(2);
const HOURS = Number(argv[argv.indexOf('--hours') + 1] ?? 24) || 24;
const SYMBOLS = 10;
/** --snapshots DIR: a heap snapshot at the end of each hour, to diff what grew (for example with Chrome's devtools). */
const SNAPSHOTS = argv.includes('--snapshots') ? argv[argv.indexOf('--snapshots') + 1] : undefined;
/** --heap fast: V8's own sizing, sluice's default; small (the bench's default) as `sluice run` sets it at its start. */
const HEAP = argv.includes('--heap') ? argv[argv.indexOf('--heap') + 1] : 'small';
if (HEAP !== 'fast' && HEAP !== 'small') throw new Error(`--heap is fast or small, not ${HEAP}`);
if (HEAP === 'small') preferSmallHeap();
process.setSourceMapsEnabled(true); // as bin/sluice.js does, for the plugins' source maps
const gc = (globalThis as { gc?: (options?: never) => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (bench/memory.bench.ts does)');

// Ten markets shaped like BTCUSDT, each its own random walk.
const btc = DEFAULT_SYMBOLS[0]!;
const specs: SymbolSpec[] = Array.from({ length: SYMBOLS }, (_, i) => ({ ...btc, symbol: `C${i}USDT`, baseAsset: `C${i}`, market: { ...btc.market, startPrice: d(String(1000 * (i + 1))) } }));
const balances = Object.fromEntries([['USDT', '100000000'], ...specs.map((s) => [s.baseAsset, '1000'])]);

// On tmpfs where there is one: the driver waits for the journal's fsync at every wake (an order
// leaves only once its intent is durable), and a day holds millions of wakes; tmpfs makes that
// wait free while the journal keeps its code path (SQLite, the -wal file, the off-loop fsync).
const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'sluice-memory-'));
const strategies = specs.map((s, i) =>
  i % 2 === 0
    ? `  - { id: g${i}, use: strategies/grid/index.ts, symbols: [${s.symbol}], everyMs: 1000, params: { levels: 3, spacingPct: "0.02", orderVolume: "0.001", requotePct: "0.05" } }`
    : `  - { id: m${i}, use: strategies/signal-mm/index.ts, symbols: [${s.symbol}], everyMs: 1000, params: { fast: 3, slow: 8, spreadPct: "0.02", skewPct: "0.01", volume: "0.001", maxInventory: "0.01", refreshMs: 2000 } }`,
);
const { config } = await parseConfig(
  `
mode: paper
engine: { marketDataEveryMs: 1000, reconcileEveryMs: 2000, summaryEveryMs: 600000, heap: ${HEAP} }
journal: { path: "${join(dir, 'journal.db')}" }
risk: { maxOpenOrders: 1000, maxOrdersPerSecond: 1000, maxNotionalPerMinute: "1000000000" }
log: { level: error }
strategies:
${strategies.join('\n')}
`,
  { env: {} },
);
const loaded = await loadStrategies(config.strategies, join(import.meta.dirname, '..'));
const start = Date.UTC(2026, 0, 1);
const clock = new ManualClock(start);
// The venue keeps ten minutes of final orders and trades (paper mode keeps an hour); it is in
// its own process now, so this only keeps the child small.
const SIM_KEEP_MS = 600_000;
const setup: SimChildSetup = { seed: 16, start, keepMs: SIM_KEEP_MS, symbols: specs, balances };
const child = fork(join(import.meta.dirname, 'memory-sim-child.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
child.once('exit', (code) => {
  console.error(`the venue's process exited (${code})`);
  process.exit(1);
});
const ready = new Promise<FromVenue>((resolve) => child.once('message', resolve));
child.send({ kind: 'setup', setup } satisfies ToVenue);
const venue = await ready;
// The daemon's own HTTP transport (undici) to the venue, each request stamped with this clock's
// time, and counted so the driver knows when none is in flight.
const http = new HttpTransport({ baseUrl: venue.url });
let inFlight = 0;
const idleWaiters: (() => void)[] = [];
const transport: Transport = {
  async send(request: HttpRequest): Promise<HttpResponse> {
    inFlight++;
    try {
      return await http.send({ ...request, headers: { ...request.headers, [NOW_HEADER]: String(clock.now()) } });
    } finally {
      if (--inFlight === 0) for (const w of idleWaiters.splice(0)) w();
    }
  },
};
const idle = () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => idleWaiters.push(r)));
const log = createLogger({ level: 'error', pretty: false, secrets: [] });
// What `sluice run` puts around the app (commands/run.ts): metrics from every venue call, the
// dashboard's source sampled every second, and the ops endpoint, which the parent scrapes.
const now = () => clock.now();
const watch = new VenueWatch();
// The source reads the app late, as in `sluice run`: the app takes the call tap that feeds it.
let built: App | undefined;
const source = createDaemonOpsSource({ config, app: () => built, watch, now });
const metrics = createMetrics(source, { now });
const ops = await startOpsServer({ host: '127.0.0.1', port: 0, source, metrics, now, log });
const onCall = (record: CallRecord) => {
  metrics.onCall(record);
  watch.observe(record);
};
// The daemon's wiring (durable journal), on the manual clock and its pacer.
const app = buildApp({ config, profile: { name: 'paper', venue: { kind: 'transport', transport: () => transport, credentials: venue }, clock, journal: 'durable', pacer: 'virtual', record: false, orders: 'send' }, strategies: loaded, log, onCall });
built = app;
let sampling = true;
void (async () => {
  while (sampling) {
    await clock.sleep(DASHBOARD_SAMPLE_MS);
    source.sample();
  }
})();
await report({ kind: 'ops', url: ops.url });

/** Runs what can run, lets the journal's fsync land, then wakes the next sleeper. */
async function runUntil(target: number): Promise<void> {
  let wakes = 0;
  for (;;) {
    if (++wakes % 2000 === 0) console.error(`  ${new Date(clock.now()).toISOString()} (${wakes} wakes)`);
    await new Promise<void>((r) => setImmediate(r));
    // Answers that arrive start more work (and more requests): settle until nothing is in flight.
    if (inFlight > 0) {
      await idle();
      continue;
    }
    await app.journal.durable(app.journal.mark());
    if (inFlight > 0) continue;
    const next = clock.nextWake();
    if (next === undefined || next > target) break;
    clock.wakeNext();
  }
  clock.moveTo(target);
}

// Ctrl-C ends it through process.exit, so --cpu-prof still writes its profile.
process.on('SIGINT', () => process.exit(130));
void app.start();
let cpu0 = process.cpuUsage();
for (let h = 1; h <= HOURS; h++) {
  await runUntil(start + h * 3_600_000);
  gc();
  const m = process.memoryUsage();
  const mb = (bytes: number) => bytes / 2 ** 20;
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((x) => [x.space_name, mb(x.space_size)]));
  // What V8 gives back when it reduces memory (its memory reducer does so once a daemon on the
  // wall clock goes idle between ticks; this driver never idles): free pages returned to the OS.
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' } as never);
  const rssReducedMb = mb(process.memoryUsage().rss);
  const s: HourSample = {
    hour: h,
    rssMb: mb(m.rss),
    rssReducedMb,
    heapMb: mb(m.heapUsed),
    heapTotalMb: mb(m.heapTotal),
    newSpaceMb: spaces.new_space ?? 0,
    oldSpaceMb: spaces.old_space ?? 0,
    externalMb: mb(m.external),
    // This process's CPU time in the hour (the simulator's is its own): what a GC setting costs.
    cpuS: ((c) => (c.user + c.system) / 1e6)(process.cpuUsage(cpu0)),
    fills: app.engine.stats.fills,
    orders: app.engine.pipeline.stats.sent,
  };
  await report({ kind: 'hour', sample: s });
  cpu0 = process.cpuUsage();
  if (SNAPSHOTS) writeHeapSnapshot(join(SNAPSHOTS, `hour-${h}.heapsnapshot`));
}
const stop = app.stop();
sampling = false;
for (let i = 0; i < 10_000 && (clock.nextWake() !== undefined || inFlight > 0); i++) {
  await new Promise<void>((r) => setImmediate(r));
  await idle();
  if (clock.nextWake() !== undefined) clock.wakeNext();
}
await stop;
await ops.close();
await http.close();
child.removeAllListeners('exit');
child.disconnect();
rmSync(dir, { recursive: true, force: true });

await report({ kind: 'done' });
process.exit(0);
