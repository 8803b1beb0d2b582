// What the three processes of bench/memory.bench.ts tell each other: the bench, the daemon
// (memory-daemon.ts) and its venue (memory-sim-child.ts).
import type { SymbolSpec } from '../src/sim/index.js';

export interface SimChildSetup {
  seed: number;
  start: number;
  keepMs: number;
  symbols: SymbolSpec[];
  balances: Record<string, string>;
}

/** The daemon to its venue, once. */
export type ToVenue = { kind: 'setup'; setup: SimChildSetup };
/** The venue to the daemon, once it listens. */
export type FromVenue = { kind: 'ready'; url: string; apiKey: string; apiSecret: string };

/** The header that carries the daemon's clock to the venue with each request. */
export const NOW_HEADER = 'x-bench-now';

/** The daemon to the bench. */
export type DaemonReport = { kind: 'ops'; url: string } | { kind: 'hour'; sample: HourSample } | { kind: 'done' };

export interface HourSample {
  hour: number;
  rssMb: number;
  rssReducedMb: number;
  heapMb: number;
  heapTotalMb: number;
  newSpaceMb: number;
  oldSpaceMb: number;
  externalMb: number;
  cpuS: number;
  fills: number;
  orders: number;
}
