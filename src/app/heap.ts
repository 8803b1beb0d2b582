// The daemon's V8 heap, when engine.heap is small: sized for a process that runs for days, not for throughput.
import { setFlagsFromString } from 'node:v8';

/**
 * V8's --optimize-for-size, set at the daemon's start (NODE_OPTIONS refuses it, and bin/sluice.js
 * runs every command, backtests included, which want throughput). Its heap then grows by a
 * smaller factor past what is live. bench/memory.bench.ts, 10 strategies on 10 symbols: RSS
 * 175 MB with 70 MB of heap held at hour 1, against 218-354 MB and 115-178 MB without; the
 * process used about 24% more CPU per simulated hour (144 s against 116), still a few percent
 * of a core for a day run on the wall clock. Set before the app is built; V8 reads it as it
 * sizes its heap after each collection.
 */
export function preferSmallHeap(): void {
  setFlagsFromString('--optimize-for-size');
}
