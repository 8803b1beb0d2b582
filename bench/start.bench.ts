// What a start costs on a long journal, and what the dashboard's first look costs a running
// daemon. The journal: 200,000 orders of 10 strategies on BTCUSDT and 100,000 fills (built once
// into the system's temporary directory, then reused). Each start is the composition root's
// engine.prepare() on the in-process simulator: instruments, the account's positions (from
// their checkpoint, or rebuilt from every fill when there is none), the strategies' own history
// when they are of plugin API 2, the catch-up reconcile (which checkpoints). Baseline,
// in the same run: streaming the journal's fills once and doing nothing with them, the least a
// start that replays every fill can cost. Each figure is the median of 5 after a warm-up, each
// on the journal opened afresh.
// Run: `npm run bench -- start [--write]` (--write replaces "## Start on a long journal" in RESULTS.md).
import { existsSync, renameSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { buildApp } from '../src/app/build.js';
import { createDaemonOpsSource, VenueWatch } from '../src/app/ops-source.js';
import { paper } from '../src/app/profiles.js';
import { d } from '../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../src/core/ids.js';
import type { Fill, Order, PlaceIntent } from '../src/core/types.js';
import { parseConfig } from '../src/config/index.js';
import { POSITIONS_CHECKPOINT } from '../src/engine/positions-checkpoint.js';
import { SqliteJournal } from '../src/store/sqlite.js';
import { defineStrategy, z } from '../src/strategy/api.js';
import { writeSection } from './results.js';

const ORDERS = 200_000;
const STRATEGIES = 10;
const write = process.argv.includes('--write');
const loadAtStart = loadavg()[0]!.toFixed(2);
const path = join(tmpdir(), `sluice-start-bench-${ORDERS}.db`);

/** Order i belongs to strategy i % 10 and has venue id i; every odd one filled (one fill), the others cancelled. */
function build(): void {
  const partial = `${path}.part`;
  rmSync(partial, { force: true });
  const j = SqliteJournal.open(partial);
  const t0 = 1_700_000_000_000;
  for (let b = 0; b < ORDERS; b += 1000) {
    j.transaction(() => {
      for (let i = b; i < b + 1000; i++) {
        const strategyId = `s${i % STRATEGIES}`;
        const side = i % 4 < 2 ? 'BUY' : 'SELL';
        const intent: PlaceIntent = { kind: 'place', intentId: `i${i}`, strategyId, market: 'spot', symbol: 'BTCUSDT', side, type: 'LIMIT', volume: d('0.015'), price: d(`${64000 + (i % 200)}.5`), clientOrderId: `c${i}` as ClientOrderId };
        const order: Order = { clientOrderId: intent.clientOrderId, strategyId, market: 'spot', symbol: 'BTCUSDT', side, type: 'LIMIT', volume: intent.volume, price: intent.price!, executedVolume: d('0'), status: 'pending', createdAt: t0 + i, updatedAt: t0 + i };
        j.recordIntent(intent, order);
        const filled = i % 2 === 1;
        j.updateOrder({ ...order, venueOrderId: String(1e15 + i) as VenueOrderId, status: filled ? 'filled' : 'canceled', executedVolume: filled ? intent.volume : d('0'), updatedAt: t0 + i + 1 }, 'built');
        if (filled) {
          const f: Fill = { market: 'spot', symbol: 'BTCUSDT', tradeId: `t${i}`, venueOrderId: String(1e15 + i) as VenueOrderId, side, price: intent.price!, volume: intent.volume, fee: d('0.0000123'), feeAsset: side === 'BUY' ? 'BTC' : 'USDT', isMaker: true, time: t0 + i + 2 };
          j.recordFill(f);
        }
      }
    });
  }
  j.close();
  renameSync(partial, path);
}

const yaml = `
mode: paper
engine: { reconcileEveryMs: 1000, summaryEveryMs: 600000 }
strategies:
${Array.from({ length: STRATEGIES }, (_, i) => `  - { id: s${i}, use: inline, market: spot, symbols: [BTCUSDT], everyMs: 1000 }`).join('\n')}
`;
const { config } = await parseConfig(yaml, { env: {} });
const log = pino({ level: 'silent' });

function strategies(apiVersion: 1 | 2) {
  const definition = defineStrategy({ apiVersion, name: 'idle', params: z.object({}), subscribe: () => [{ kind: 'ticker' }], create: () => ({}) });
  return config.strategies.map((entry) => ({ entry, definition, params: {} }));
}

/** One start: ms for engine.prepare(), and for the dashboard's first status read after it. */
async function start(apiVersion: 1 | 2): Promise<{ prepare: number; firstLook: number }> {
  const journal = SqliteJournal.open(path);
  const app = buildApp({ config, profile: paper(config), strategies: strategies(apiVersion), log, journal });
  try {
    let t = performance.now();
    await app.engine.prepare();
    const prepare = performance.now() - t;
    const ops = createDaemonOpsSource({ config, app: () => app, now: Date.now, watch: new VenueWatch() });
    t = performance.now();
    ops.status();
    return { prepare, firstLook: performance.now() - t };
  } finally {
    journal.close();
  }
}

/** As a journal written before checkpoints were (bench only: the journal offers no way to drop one). */
function dropCheckpoint(): void {
  const db = new Database(path);
  db.prepare('DELETE FROM cursors WHERE key = ?').run(POSITIONS_CHECKPOINT);
  db.close();
}

function streamFills(): number {
  const journal = SqliteJournal.open(path, { readOnly: true });
  try {
    const t = performance.now();
    let n = 0;
    for (const _ of journal.eachFill()) n++;
    if (n !== ORDERS / 2) throw new Error(`the journal holds ${n} fills, not ${ORDERS / 2}: delete ${path}`);
    return performance.now() - t;
  } finally {
    journal.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

if (!existsSync(path)) {
  const t = performance.now();
  build();
  console.log(`built ${path} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

// Alternating, so the machine's drift lands on every row alike; the first round warms up.
const stream: number[] = [];
const rebuilt: number[] = [];
const v1: Array<{ prepare: number; firstLook: number }> = [];
const v2: Array<{ prepare: number; firstLook: number }> = [];
for (let round = 0; round < 6; round++) {
  const s = streamFills();
  dropCheckpoint();
  const r = await start(1); // rebuilds from every fill, then checkpoints
  const a = await start(1);
  const b = await start(2);
  if (round === 0) continue;
  stream.push(s);
  rebuilt.push(r.prepare);
  v1.push(a);
  v2.push(b);
  console.log(`round ${round}: stream ${s.toFixed(0)} ms, start API 1 without a checkpoint ${r.prepare.toFixed(0)} ms, from it ${a.prepare.toFixed(0)} ms, start API 2 ${b.prepare.toFixed(0)} ms, first look ${b.firstLook.toFixed(0)} ms`);
}

const base = median(stream);
const row = (what: string, ms: number) => `| ${what} | ${ms.toFixed(0)} | ${(ms / base).toFixed(2)} |`;
const section = [
  '## Start on a long journal',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, load average ${loadAtStart} at the start and ${loadavg()[0]!.toFixed(2)} at the end. Run: \`npm run bench -- start --write\`.`,
  `A journal of ${ORDERS.toLocaleString('en')} orders of ${STRATEGIES} strategies on BTCUSDT and ${(ORDERS / 2).toLocaleString('en')} fills (bench/start.bench.ts builds it). A start is the composition root's engine.prepare() on the in-process simulator: instruments, the account's positions (from their checkpoint and the fills after it, or rebuilt from every fill when the journal holds no checkpoint, as one written before checkpoints), the strategies' own history when they are of plugin API 2 (ctx.orders(), ctx.fills(), ctx.ownPosition(): their books from every fill), the catch-up reconcile. The dashboard's first look is the first status read after a start, the one that lists the latest fills. Medians of 5 after a warm-up, the rows alternating, each on the journal opened afresh.`,
  '',
  '| what | ms | ratio of the baseline |',
  '|---|---|---|',
  row('baseline: stream every fill once, nothing done with it', base),
  row('start, 10 strategies of plugin API 1, no checkpoint yet (positions rebuilt from every fill)', median(rebuilt)),
  row('start, 10 strategies of plugin API 1 (positions from their checkpoint)', median(v1.map((r) => r.prepare))),
  row('start, 10 strategies of plugin API 2 (positions from their checkpoint; each strategy\'s own book from every fill)', median(v2.map((r) => r.prepare))),
  row('the dashboard\'s first look, in a running daemon (event loop held)', median(v2.map((r) => r.firstLook))),
  '',
].join('\n');
console.log(section);
if (write) writeSection('Start on a long journal', section);
