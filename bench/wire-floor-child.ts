// The far end of bench/engine.bench.ts's wire floor: a bare node:http server, no simulator and
// no sluice code, in a process of its own like the simulator child. It answers each request
// with the moment its whole body had arrived, as process.hrtime.bigint() digits: Linux's
// CLOCK_MONOTONIC, which every process on the machine reads alike.
// Run by the bench: fork('bench/wire-floor-child.ts', [], { execArgv: ['--import', 'tsx'] });
// it sends its port over IPC, then serves until the parent goes away.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const at = process.hrtime.bigint();
    res.end(String(at));
  });
});
server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
process.on('disconnect', () => server.close(() => process.exit(0)));
