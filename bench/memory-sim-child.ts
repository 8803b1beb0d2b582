// The venue of bench/memory.bench.ts, in a process of its own so that its records (orders,
// trades, the request log) do not count in the daemon's memory. Its clock is the daemon's:
// every request carries the daemon's time, and the venue moves to it before it answers. With
// no latency configured the venue never sleeps, so nothing here waits on its own clock.
// Talks to the parent over IPC only: its setup in, 'ready' with its keys, then one answer per request.
import { ManualClock } from '../src/core/clock.js';
import { TransportFailure, type HttpRequest, type HttpResponse } from '../src/core/ports.js';
import { SimExchange, SimTransport, type SymbolSpec } from '../src/sim/index.js';

export interface SimChildSetup {
  seed: number;
  start: number;
  keepMs: number;
  symbols: SymbolSpec[];
  balances: Record<string, string>;
}

export type ToChild = { kind: 'setup'; setup: SimChildSetup } | { kind: 'request'; id: number; now: number; request: HttpRequest };
export type FromChild =
  | { kind: 'ready'; apiKey: string; apiSecret: string }
  | { kind: 'answer'; id: number; response: HttpResponse }
  | { kind: 'failure'; id: number; message: string; maybeDelivered: boolean };

const send = (m: FromChild) => process.send!(m);

function serve(setup: SimChildSetup): (m: Extract<ToChild, { kind: 'request' }>) => void {
  const clock = new ManualClock(setup.start);
  const sim = new SimExchange({ seed: setup.seed, clock, symbols: setup.symbols, contracts: [], balances: setup.balances, keepMs: setup.keepMs });
  const transport = new SimTransport(sim);
  send({ kind: 'ready', apiKey: sim.apiKey, apiSecret: sim.apiSecret });
  return (m) => {
    clock.moveTo(m.now);
    transport.send(m.request).then(
      (response) => send({ kind: 'answer', id: m.id, response: { status: response.status, headers: response.headers, body: response.body } }),
      (err: unknown) => send({ kind: 'failure', id: m.id, message: String(err), maybeDelivered: err instanceof TransportFailure ? err.maybeDelivered : true }),
    );
  };
}

let answer: ReturnType<typeof serve> | undefined;
process.on('message', (m: ToChild) => {
  if (m.kind === 'setup') answer = serve(m.setup);
  else answer!(m);
});
process.on('disconnect', () => process.exit(0));
