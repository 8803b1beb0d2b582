// The simulator of bench/engine.bench.ts, in its own process so it has its own core: the engine
// under test then competes with nobody for its event loop. Talks to the parent over IPC only:
// 'ready' with its URL and credentials, then on request a report of what it accepted and
// answered (the judge of the benchmark), then it closes.
// Run by the bench: fork('bench/sim-child.ts', [seed, latency], { execArgv: ['--import', 'tsx'] }),
// latency 'MIN-MAX' in ms each way (default none: loopback as it is).
import { startSimServer } from '../src/sim/index.js';

export interface SimReport {
  /** Accepted orders: venue arrival time and client order id. */
  orders: { at: number; clientOrderId?: string }[];
  arrivals: { at: number; endpoint: string; status: number }[];
  /**
   * Each client order id a placing request carried, with when the request's body had all
   * arrived: epoch ms at microsecond resolution (the venue's own stamps are whole ms).
   */
  wire: [string, number][];
}

export type ChildMessage = { kind: 'ready'; url: string; apiKey: string; apiSecret: string } | ({ kind: 'report' } & SimReport);

const send = (m: ChildMessage) => new Promise<void>((resolve) => process.send!(m, () => resolve()));

const [min, max] = (process.argv[3] ?? '0-0').split('-').map(Number);
const sim = await startSimServer({ port: 0, seed: Number(process.argv[2] ?? 3), latencyMs: { min: min!, max: max! } });
const wire: [string, number][] = [];
const handle = sim.exchange.handle.bind(sim.exchange);
sim.exchange.handle = (request, ...rest) => {
  const at = performance.timeOrigin + performance.now();
  if (request.method === 'POST') for (const m of request.body.matchAll(/"newClientOrderId":"([^"]+)"/g)) wire.push([m[1]!, at]);
  return handle(request, ...rest);
};
process.on('message', (m: { kind: string }) => {
  if (m.kind !== 'report') return;
  const report: SimReport = {
    orders: sim.exchange.orderLog().map((o) => ({ at: o.at, clientOrderId: o.clientOrderId })),
    arrivals: sim.exchange.arrivals().map((a) => ({ at: a.at, endpoint: a.endpoint, status: a.status })),
    wire,
  };
  void send({ kind: 'report', ...report })
    .then(() => sim.close())
    .then(() => process.exit(0));
});
// The parent going away (a crash, Ctrl-C) takes the simulator with it.
process.on('disconnect', () => void sim.close().then(() => process.exit(0)));
await send({ kind: 'ready', url: sim.url, apiKey: sim.apiKey, apiSecret: sim.apiSecret });
