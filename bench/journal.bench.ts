// Journal benchmark: what durability costs. One "order" is what the engine writes for an order's
// life on the hot path: nextSequence + recordIntent + updateOrder (acknowledged). The shipped
// journal commits with synchronous=NORMAL (the event loop never waits on the disk) and fsyncs
// the -wal file on libuv's thread pool; an order leaves once durable(mark) resolves, and one
// fsync covers every commit before it (group commit). Compared in the same process on the same
// disk: each order awaited durable alone, ten orders sharing one wait (a dispatch round),
// synchronous=FULL (the fsync inside every commit, blocking the loop), and the memory journal.
// Then a strategy's tick as intake journals it (every intent of the tick in one transaction),
// against the journal before 2026-11-27: each recordIntent a savepoint inside that transaction,
// its undo copies in a temporary file (SQLite's default temp_store), then in memory.
// Run: npx tsx bench/journal.bench.ts [--write]
// --write replaces the "## Journal" section of bench/RESULTS.md (other sections are left alone).
import { writeSection } from './results.js';
import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { d } from '../src/core/decimal.js';
import { clientOrderId, type ClientOrderId, type VenueOrderId } from '../src/core/ids.js';
import type { Journal } from '../src/core/ports.js';
import type { Order, PlaceIntent } from '../src/core/types.js';
import { MemoryJournal } from '../src/store/memory.js';
import { SqliteJournal } from '../src/store/sqlite.js';

const N = 3000;

function placeIntent(id: ClientOrderId): PlaceIntent {
  return {
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
}

function oneOrder(j: Journal, i: number): void {
  const sequence = j.nextSequence('bench');
  const intent = placeIntent(clientOrderId('bench', sequence));
  const order: Order = { ...intent, executedVolume: d('0'), status: 'pending', createdAt: 1_700_000_000_000 + i, updatedAt: 1_700_000_000_000 + i };
  j.recordIntent(intent, order);
  j.updateOrder({ ...order, venueOrderId: String(9_000_000_000 + i) as VenueOrderId, status: 'open', updatedAt: order.updatedAt + 1 }, 'acknowledged');
}

interface Result {
  name: string;
  perSecond: number;
  /** The event loop held by the order's synchronous writes (commits). */
  blocked: { p50: number; p99: number };
  /** From the order's first write to its writes surviving power loss. */
  durable: { p50: number; p99: number };
}

/** N orders, `group` at a time: each group's writes, then one wait for them to be durable. */
async function run(name: string, j: Journal, group: number): Promise<Result> {
  for (let i = 0; i < 200; i++) oneOrder(j, i); // warm-up
  await j.durable(j.mark());
  const blocked: number[] = [];
  const durable: number[] = [];
  const t0 = performance.now();
  for (let i = 200; i < 200 + N; i += group) {
    const starts: number[] = [];
    for (let k = i; k < i + group; k++) {
      const s = performance.now();
      oneOrder(j, k);
      blocked.push(performance.now() - s);
      starts.push(s);
    }
    await j.durable(j.mark());
    const done = performance.now();
    for (const s of starts) durable.push(done - s);
  }
  const seconds = (performance.now() - t0) / 1000;
  return { name, perSecond: N / seconds, blocked: quantiles(blocked), durable: quantiles(durable) };
}

const TICK = 80; // a flood tick's intents at the venue's ceiling (the engine bench's strategy)
const TICKS = 100; // per round; rounds alternate the journals
const ROUNDS = 4;

interface TickJournal {
  name: string;
  j: Journal;
  /** Each intent in a nested transaction: a savepoint of its own, as every write took before 2026-11-27. */
  savepoints: boolean;
}

/** One tick's intents journaled as intake does it: the event loop held, in ms. */
function tick({ name, j, savepoints }: TickJournal, n: number): number {
  const items = Array.from({ length: TICK }, (_, k) => {
    const intent = placeIntent(clientOrderId(name, n * TICK + k + 1));
    return { intent, order: { ...intent, executedVolume: d('0'), status: 'pending', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_000 } satisfies Order };
  });
  const s = performance.now();
  j.transaction(() => {
    for (const { intent, order } of items) {
      if (savepoints) j.transaction(() => j.recordIntent(intent, order));
      else j.recordIntent(intent, order);
    }
  });
  return performance.now() - s;
}

/** Ticks on each journal, rounds alternating, after a warm-up: p50 / p99 ms a tick. */
function ticks(journals: TickJournal[]): { p50: number; p99: number }[] {
  const held = journals.map(() => [] as number[]);
  let n = 0;
  for (let w = 0; w < 20; w++, n++) for (const t of journals) tick(t, n);
  for (let r = 0; r < ROUNDS; r++) {
    for (let t = 0; t < TICKS; t++, n++) journals.forEach((tj, i) => held[i]!.push(tick(tj, n)));
  }
  return held.map(quantiles);
}

function quantiles(xs: number[]): { p50: number; p99: number } {
  xs.sort((a, b) => a - b);
  const at = (p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

const loadAtStart = loadavg()[0]!.toFixed(2);
const dir = mkdtempSync(join(tmpdir(), 'sluice-journal-bench-'));
try {
  const shipped = new SqliteJournal(join(dir, 'shipped.db'));
  const rAlone = await run('SqliteJournal as shipped, each order awaited durable alone', shipped, 1);
  const rGroup = await run('SqliteJournal as shipped, 10 orders share one durable wait (a dispatch round)', shipped, 10);
  shipped.close();

  const full = new SqliteJournal(join(dir, 'full.db'));
  // Bench only: SqliteJournal offers no way to change its durability, so reach its connection here.
  (full as unknown as { db: Database.Database }).db.pragma('synchronous = FULL');
  const rFull = await run('for comparison: synchronous=FULL, the fsync inside every commit', full, 1);
  full.close();

  const rMemory = await run('MemoryJournal (no durability)', new MemoryJournal(), 1);

  const tickJournals: TickJournal[] = [
    { name: 'file', j: new SqliteJournal(join(dir, 'tick-file.db')), savepoints: true },
    { name: 'memory', j: new SqliteJournal(join(dir, 'tick-memory.db')), savepoints: true },
    { name: 'shipped', j: new SqliteJournal(join(dir, 'tick-shipped.db')), savepoints: false },
  ];
  (tickJournals[0]!.j as unknown as { db: Database.Database }).db.pragma('temp_store = FILE');
  const [tFile, tMemory, tShipped] = ticks(tickJournals);
  for (const { j } of tickJournals) j.close();

  const ms = (x: number) => x.toFixed(3);
  const lines = [
    '## Journal',
    '',
    `One order = nextSequence + recordIntent (intent, order, event in one transaction) + updateOrder; ${N} orders, each write committed. Event loop held: the order's synchronous writes. To durable: from its first write until its writes survive power loss (durable(mark) resolved; FULL: the commit's own fsync).`,
    `Measured ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores, Node ${process.version}, load average ${loadAtStart} at the start and ${loadavg()[0]!.toFixed(2)} at the end; better-sqlite3 WAL mode, journal in ${tmpdir()}. Run: npx tsx bench/journal.bench.ts --write`,
    '',
    '| journal | orders/s | event loop held p50 / p99 ms | to durable p50 / p99 ms |',
    '|---|---|---|---|',
    ...[rAlone, rGroup, rFull, rMemory].map((r) => `| ${r.name} | ${r.perSecond.toFixed(0)} | ${ms(r.blocked.p50)} / ${ms(r.blocked.p99)} | ${ms(r.durable.p50)} / ${ms(r.durable.p99)} |`),
    '',
    `In this run the shipped journal holds the event loop ${(rFull.blocked.p50 / rAlone.blocked.p50).toFixed(1)} times less per order than synchronous=FULL at the median (${(rFull.blocked.p99 / rAlone.blocked.p99).toFixed(1)} times at p99), and ten orders sharing one fsync go ${(rGroup.perSecond / rAlone.perSecond).toFixed(1)} times as fast as one fsync per order. Both durable modes survive power loss before an order leaves; NORMAL alone (never awaiting durable) would survive kill -9 only.`,
    '',
    `### A tick's intents in one transaction (${TICK} intents, ${ROUNDS * TICKS} ticks each, alternating)`,
    '',
    '| journal | event loop held per tick p50 / p99 ms | per intent p50 µs |',
    '|---|---|---|',
    ...(
      [
        ['baseline: a savepoint per intent, its undo copies in a temporary file (the journal before 2026-11-27)', tFile!],
        ['a savepoint per intent, its undo copies in memory (temp_store = MEMORY)', tMemory!],
        ['SqliteJournal as shipped: no savepoint per write (and temp_store = MEMORY)', tShipped!],
      ] as const
    ).map(([name, t]) => `| ${name} | ${ms(t.p50)} / ${ms(t.p99)} | ${((t.p50 / TICK) * 1000).toFixed(1)} |`),
    '',
    `Intake journals every intent of a tick in one transaction. Each write in it used to take a savepoint, whose undo copies (SQLite's statement journal) went to a temporary file: the tick took ${(tFile!.p50 / tShipped!.p50).toFixed(2)} times the shipped journal's time at the median, and ${(tMemory!.p50 / tShipped!.p50).toFixed(2)} times with the copies in memory. A write inside a transaction now takes no savepoint; if it fails, the whole transaction rolls back, even where the code around it catches the error (test/unit/store/sqlite.test.ts). The statement journal is never read after a crash (an uncommitted transaction is absent from the -wal file), so neither change costs durability.`,
    '',
  ];
  const section = lines.join('\n');
  console.log(section);

  if (process.argv.includes('--write')) console.log(`wrote the Journal section of ${writeSection('Journal', section)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
