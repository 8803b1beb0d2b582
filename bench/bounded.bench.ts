// What forgetting the oldest entry costs (src/core/bounded.ts), against the way sluice did it
// before, measured in the same run: a native Set or Map whose oldest entry is found by iterating
// from its start. Each structure is filled, then takes 200,000 more keys, each evicting one; and
// the position book applies 200,000 fills past its 20,000 remembered keys. One JIT-warm round
// first, then the median of five.
// Run: `npm run bench -- bounded [--write]` (--write replaces "## Bounded memory" in RESULTS.md).
import { cpus, loadavg } from 'node:os';
import { BoundedMap, BoundedSet } from '../src/core/bounded.js';
import { d } from '../src/core/decimal.js';
import type { VenueOrderId } from '../src/core/ids.js';
import type { Fill } from '../src/core/types.js';
import { PositionBook } from '../src/positions/book.js';
import { writeSection } from './results.js';

const OPS = 200_000;
const SIZES = [1_000, 10_000, 20_000];
const load = loadavg()[0]!.toFixed(2);

/** µs per operation of `op(i)` over OPS operations, the median of 5 after a warm-up round. */
function perOp(setUp: () => (i: number) => void): number {
  const rounds: number[] = [];
  for (let r = 0; r < 6; r++) {
    const op = setUp();
    const t = performance.now();
    for (let i = 0; i < OPS; i++) op(i);
    if (r > 0) rounds.push(((performance.now() - t) / OPS) * 1000);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

function fill(size: number, add: (k: string) => void): void {
  for (let i = 0; i < size; i++) add(`fill:${i}`);
}

const rows: string[] = [];
for (const size of SIZES) {
  const nativeSet = perOp(() => {
    const s = new Set<string>();
    const add = (k: string) => {
      s.add(k);
      if (s.size > size) s.delete(s.values().next().value!);
    };
    fill(size, add);
    return (i) => add(`key:${i}`);
  });
  const bounded = perOp(() => {
    const s = new BoundedSet(size);
    fill(size, (k) => s.add(k));
    return (i) => s.add(`key:${i}`);
  });
  // A map set again as often as it takes new keys (every other operation), as a cache is.
  const nativeMap = perOp(() => {
    const m = new Map<string, number>();
    const set = (k: string, v: number) => {
      m.delete(k);
      m.set(k, v);
      if (m.size > size) m.delete(m.keys().next().value!);
    };
    fill(size, (k) => set(k, 0));
    return (i) => set(i % 2 ? `key:${i}` : `key:${i - 101}`, i);
  });
  const boundedMap = perOp(() => {
    const m = new BoundedMap<number>(size);
    fill(size, (k) => m.set(k, 0));
    return (i) => m.set(i % 2 ? `key:${i}` : `key:${i - 101}`, i);
  });
  rows.push(`| ${size.toLocaleString('en')} | ${nativeSet.toFixed(2)} | ${bounded.toFixed(2)} | ${(nativeSet / bounded).toFixed(1)}x | ${nativeMap.toFixed(2)} | ${boundedMap.toFixed(2)} | ${(nativeMap / boundedMap).toFixed(1)}x |`);
}

// The position book past its remembered keys, as a start-up replays a long journal (alternating
// buys and sells, so every fill adds or closes).
const fills: Fill[] = Array.from({ length: OPS }, (_, i) => ({
  market: 'spot',
  symbol: 'BTCUSDT',
  tradeId: String(1_000_000 + i),
  venueOrderId: String(i) as VenueOrderId,
  side: i % 2 ? 'SELL' : 'BUY',
  price: d(`${30_000 + (i % 100)}.5`),
  volume: d('0.001'),
  fee: d('0.01'),
  feeAsset: 'USDT',
  isMaker: true,
  time: 1_700_000_000_000 + i,
}));
const book = (appliedKept?: number) =>
  perOp(() => {
    const b = new PositionBook({ quoteAssetOf: () => 'USDT', appliedKept });
    return (i) => b.apply(fills[i]!);
  });
const [bookKept, bookAll] = [book(), book(Number.POSITIVE_INFINITY)];

const section = [
  '## Bounded memory',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, load average ${load} at the start and ${loadavg()[0]!.toFixed(2)} at the end. Run: \`npm run bench -- bounded --write\`.`,
  "What forgetting the oldest entry costs, µs per operation, each structure full and taking 200,000 more keys (median of 5 rounds after a warm-up). The baseline is how sluice did it until 2026-11-26: a native Set or Map whose oldest entry is found by iterating from its start, which steps over every slot its deletions left until V8 rehashes the table. The map rows set an existing key again every other operation.",
  '',
  '| entries kept | Set, oldest by iteration (baseline) | BoundedSet | ratio | Map, oldest by iteration (baseline) | BoundedMap | ratio |',
  '|---|---|---|---|---|---|---|',
  ...rows,
  '',
  `The position book applying 200,000 fills from empty, as a start-up replays a journal: ${bookKept.toFixed(2)} µs a fill keeping 20,000 applied fill keys (the account book's bound: a BoundedSet eviction on each fill after the 20,000th), against ${bookAll.toFixed(2)} µs keeping every key (no eviction) in the same run. Users of these structures: the account book's and each strategy book's applied fills, the journal's orders by venue id, the reconciler's fill totals and reported keys, the order-event follower's ended orders.`,
  '',
].join('\n');
console.log(section);
if (process.argv.includes('--write')) console.log(`wrote ${writeSection('Bounded memory', section)}`);
