// Daemon memory over 24 simulated hours (issue 16): 10 strategies on 10 symbols. The daemon
// (bench/memory-daemon.ts) runs in a child process from sluice's JavaScript build, as `sluice
// run` does, with its venue in a child of its own; this process reads its hourly samples and
// writes the figures. Flat means the last hour within 5% of the second (the first hour warms
// up), and under 150 MB.
// Run: npx tsx bench/memory.bench.ts [--hours 24] [--heap fast|small] [--write] [--snapshots DIR]
import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { compileAgainstBuild } from './against-build.js';
import type { DaemonReport, HourSample } from './memory-protocol.js';
import { writeSection } from './results.js';

const argv = process.argv.slice(2);
const HOURS = Number(argv[argv.indexOf('--hours') + 1] ?? 24) || 24;
const HEAP = argv.includes('--heap') ? argv[argv.indexOf('--heap') + 1] : 'small';
const load0 = loadavg()[0]!.toFixed(2);
const t0 = Date.now();
const script = await compileAgainstBuild(join(import.meta.dirname, 'memory-daemon.ts'));
const samples: HourSample[] = [];
const daemon = fork(script, argv, { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
// As a dashboard left open and a Prometheus scraping: the event stream read for the whole run,
// and /metrics and /status.json fetched every simulated hour.
let opsUrl: string | undefined;
let streamed = 0;
const abort = new AbortController();
daemon.on('message', (m: DaemonReport) => {
  if (m.kind === 'ops') {
    opsUrl = m.url;
    void fetch(`${m.url}/events`, { signal: abort.signal })
      .then(async (r) => {
        for await (const chunk of r.body!) streamed += (chunk as Uint8Array).length;
      })
      .catch(() => undefined);
    return;
  }
  if (m.kind !== 'hour') return;
  void Promise.all(['/metrics', '/status.json'].map((path) => fetch(`${opsUrl}${path}`).then((r) => r.text())));
  const s = m.sample;
  samples.push(s);
  console.error(`hour ${s.hour}: rss ${s.rssMb.toFixed(1)} MB (${s.rssReducedMb.toFixed(1)} reduced), heap after GC ${s.heapMb.toFixed(1)} MB (of ${s.heapTotalMb.toFixed(1)} MB the heap holds: new ${s.newSpaceMb.toFixed(1)}, old ${s.oldSpaceMb.toFixed(1)}), external ${s.externalMb.toFixed(1)} MB, ${s.cpuS.toFixed(0)} CPU s, fills ${s.fills}, orders ${s.orders}, dashboard stream ${(streamed / 2 ** 20).toFixed(1)} MB read, ${((Date.now() - t0) / 1000).toFixed(0)} s wall`);
});
const code = await new Promise<number | null>((r) => daemon.once('exit', r));
abort.abort();
rmSync(script, { force: true });
if (code !== 0 || samples.length !== HOURS) {
  console.error(`the daemon's process exited ${code} after ${samples.length} of ${HOURS} hours`);
  process.exit(1);
}

const second = samples[1] ?? samples[0]!;
const last = samples.at(-1)!;
const growth = (last.rssMb - second.rssMb) / second.rssMb;
const reducedGrowth = (last.rssReducedMb - second.rssReducedMb) / second.rssReducedMb;
const ms = (x: number) => x.toFixed(1);
const section = [
  '## Daemon memory over 24 simulated hours (issue 16)',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores, Node ${process.version}, load average ${load0} at the start and ${loadavg()[0]!.toFixed(2)} at the end. Run: \`npm run bench -- memory --hours ${HOURS}${HEAP === 'small' ? '' : ` --heap ${HEAP}`} --write\` (${((Date.now() - t0) / 1000).toFixed(0)} s wall).`,
  `10 strategies (grid and signal-mm, alternating) on 10 simulated symbols, the daemon wiring with the SQLite journal on disk, in a process that runs from sluice's JavaScript build as \`sluice run\` does (bench/memory-daemon.ts, compiled against dist/ by bench/against-build.ts; no TypeScript loader), with engine.heap: ${HEAP}. It reaches the simulator over HTTP with its own transport (undici); the simulator runs in a process of its own (bench/memory-sim-child.ts: its records do not count here) and takes the daemon's clock from each request. Around the app, what \`sluice run\` adds: metrics on every venue call, the dashboard's source sampled every simulated second, and the ops endpoint, whose event stream the bench reads for the whole run and whose /metrics and /status.json it fetches every hour. At the end of each simulated hour: RSS after a full GC; RSS after a memory-reducing GC (V8 returns its free pages to the OS, as its memory reducer does once a daemon on the wall clock idles between ticks; this driver never idles); the heap left, the heap V8 holds (its new and old spaces) and external memory.`,
  '',
  '| hour | RSS MB | RSS reduced MB | heap after GC MB | heap held MB (new, old space) | external MB | CPU s | fills | orders sent |',
  '|---|---|---|---|---|---|---|---|---|',
  ...samples.filter((s) => s.hour <= 2 || s.hour % 4 === 0 || s.hour === HOURS).map((s) => `| ${s.hour} | ${ms(s.rssMb)} | ${ms(s.rssReducedMb)} | ${ms(s.heapMb)} | ${ms(s.heapTotalMb)} (${ms(s.newSpaceMb)}, ${ms(s.oldSpaceMb)}) | ${ms(s.externalMb)} | ${s.cpuS.toFixed(0)} | ${s.fills} | ${s.orders} |`),
  '',
  `Reading: RSS in the last hour is ${(growth * 100).toFixed(1)}% ${growth >= 0 ? 'above' : 'below'} the second hour's (target within 5%), and ${ms(Math.max(...samples.map((s) => s.rssMb)))} MB at most (target under 150 MB); after V8 reduces memory, ${(reducedGrowth * 100).toFixed(1)}% and ${ms(Math.max(...samples.map((s) => s.rssReducedMb)))} MB at most; the heap after a full GC went from ${ms(second.heapMb)} MB in the second hour to ${ms(last.heapMb)} MB in the last.`,
  '',
].join('\n');
console.log(section);
if (argv.includes('--write')) console.log(`wrote ${writeSection('Daemon memory over 24 simulated hours \\(issue 16\\)', section)}`);
