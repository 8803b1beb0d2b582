// The venue of bench/memory.bench.ts, in a process of its own so that its records (orders,
// trades, the request log) do not count in the daemon's memory. It serves HTTP on 127.0.0.1 as
// `sluice sim` does, so the daemon talks to it through its real HTTP transport (undici). Its
// clock is the daemon's: every request carries the daemon's time in an x-bench-now header, and
// the venue moves to it before it answers. With no latency configured the venue never sleeps,
// so nothing here waits on its own clock.
// Talks to its parent over IPC only to start: the setup in, 'ready' with its URL and keys out.
import { ManualClock } from '../src/core/clock.js';
import { SimExchange } from '../src/sim/index.js';
import { startSimServer } from '../src/sim/server.js';
import { NOW_HEADER, type FromVenue, type ToVenue } from './memory-protocol.js';

process.on('message', async ({ setup }: ToVenue) => {
  const clock = new ManualClock(setup.start);
  const exchange = new SimExchange({ seed: setup.seed, clock, symbols: setup.symbols, contracts: [], balances: setup.balances, keepMs: setup.keepMs });
  const handle = exchange.handle.bind(exchange);
  exchange.handle = (request, context) => {
    clock.moveTo(Number(request.headers[NOW_HEADER]));
    return handle(request, context);
  };
  const server = await startSimServer({ exchange });
  process.send!({ kind: 'ready', url: server.url, apiKey: exchange.apiKey, apiSecret: exchange.apiSecret } satisfies FromVenue);
});
process.on('disconnect', () => process.exit(0));
