// The daemon's V8 heap, when engine.heap is small: sized for a process that runs for days, not for throughput.
import { setFlagsFromString } from 'node:v8';

/**
 * V8's --optimize-for-size and a young generation that never grows, set at the daemon's start
 * (NODE_OPTIONS refuses the first, a young generation's size is fixed when the heap is made, and
 * bin/sluice.js runs every command, backtests included, which want throughput).
 *   - --optimize-for-size: the old generation grows by a smaller factor past what is live.
 *   - --semi-space-growth-factor=1: the young generation stays at its first 2 MB; otherwise it
 *     grew to 8 or 16 MB and back, which alone moved RSS by 8-10 MB from hour to hour.
 * bench/memory.bench.ts, 10 strategies on 10 symbols, from the JavaScript build: bench/RESULTS.md
 * has RSS and CPU with and without. Set before the app is built; V8 reads both as it sizes its
 * heap after each collection.
 */
export function preferSmallHeap(): void {
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--semi-space-growth-factor=1');
}
