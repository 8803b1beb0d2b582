// Journal benchmark: what synchronous=FULL costs. One "order" is what the engine writes for an
// order's life on the hot path: nextSequence + recordIntent + updateOrder (acknowledged). Both
// modes run in the same process on the same disk, so the ratio is meaningful even where the
// absolute numbers are not. Run: npx tsx bench/journal.bench.ts [--write]
// --write replaces the "## Journal" section of bench/RESULTS.md (other sections are left alone).
import { writeSection } from './results.js';
import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { d } from '../src/core/decimal.js';
import { clientOrderId, type VenueOrderId } from '../src/core/ids.js';
import type { Journal } from '../src/core/ports.js';
import type { Order, PlaceIntent } from '../src/core/types.js';
import { MemoryJournal } from '../src/store/memory.js';
import { SqliteJournal } from '../src/store/sqlite.js';

const N = 3000;

function oneOrder(j: Journal, i: number): void {
  const sequence = j.nextSequence('bench');
  const id = clientOrderId('bench', sequence);
  const intent: PlaceIntent = {
    kind: 'place',
    intentId: `${id}:place`,
    strategyId: 'bench',
    market: 'spot',
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'LIMIT',
    volume: d('0.015'),
    price: d('64000.5'),
    clientOrderId: id,
  };
  const order: Order = { ...intent, executedVolume: d('0'), status: 'pending', createdAt: 1_700_000_000_000 + i, updatedAt: 1_700_000_000_000 + i };
  j.recordIntent(intent, order);
  j.updateOrder({ ...order, venueOrderId: String(9_000_000_000 + i) as VenueOrderId, status: 'open', updatedAt: order.updatedAt + 1 }, 'acknowledged');
}

function run(name: string, j: Journal) {
  for (let i = 0; i < 200; i++) oneOrder(j, i); // warm-up
  const samples: number[] = [];
  const t0 = performance.now();
  for (let i = 200; i < 200 + N; i++) {
    const s = performance.now();
    oneOrder(j, i);
    samples.push(performance.now() - s);
  }
  const seconds = (performance.now() - t0) / 1000;
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { name, perSecond: N / seconds, median: at(0.5), p99: at(0.99) };
}

const dir = mkdtempSync(join(tmpdir(), 'sluice-journal-bench-'));
try {
  const full = new SqliteJournal(join(dir, 'full.db'));
  const rFull = run('SqliteJournal, synchronous=FULL (shipped)', full);
  full.close();

  const normal = new SqliteJournal(join(dir, 'normal.db'));
  // Bench only: SqliteJournal offers no way to weaken durability, so reach its connection here.
  (normal as unknown as { db: Database.Database }).db.pragma('synchronous = NORMAL');
  const rNormal = run('SqliteJournal, synchronous=NORMAL (for comparison)', normal);
  normal.close();

  const rMemory = run('MemoryJournal (no durability)', new MemoryJournal());

  const ms = (x: number) => x.toFixed(3);
  const lines = [
    '## Journal',
    '',
    `One order = nextSequence + recordIntent (intent, order, event in one transaction) + updateOrder; ${N} orders, each write committed.`,
    `Node ${process.version}, better-sqlite3 WAL mode, journal in ${tmpdir()}. Run: npx tsx bench/journal.bench.ts --write`,
    '',
    '| journal | orders/s | writes/s | median ms/order | p99 ms/order |',
    '|---|---|---|---|---|',
    ...[rFull, rNormal, rMemory].map((r) => `| ${r.name} | ${r.perSecond.toFixed(0)} | ${(r.perSecond * 3).toFixed(0)} | ${ms(r.median)} | ${ms(r.p99)} |`),
    '',
    `FULL / NORMAL throughput in this run: ${(rFull.perSecond / rNormal.perSecond).toFixed(2)}. ` +
      'FULL fsyncs the WAL at every commit (survives power loss); NORMAL only at checkpoints (survives kill -9, may lose the last commits on power loss).',
    '',
  ];
  const section = lines.join('\n');
  console.log(section);

  if (process.argv.includes('--write')) console.log(`wrote the Journal section of ${writeSection('Journal', section)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
