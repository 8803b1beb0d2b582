// Distributed sweeps through faults, end to end: a worker killed with SIGKILL mid-run (BullMQ's
// stalled-job check hands its run to the other worker), and Redis stopped mid-sweep and
// started again with its data. Each suite has its own redis-server; every wait is on a line a
// process prints, on a job's state as a worker logs it, or on a process's exit.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SweepReport } from '../../src/report/index.js';
import { CliProcess } from '../fixtures/cli-process.js';
import { startRedis, type RedisServer } from '../fixtures/redis.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SAMPLE = join(ROOT, 'backtest/tapes/sample.jsonl.gz');
const dir = mkdtempSync(join(tmpdir(), 'sluice-sweepq-faults-'));
const CONFIG = join(dir, 'grid.yaml');
writeFileSync(
  CONFIG,
  `mode: paper
sim: { seed: 5, latencyMs: { min: 2, max: 20 } }
strategies:
  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { spacingPct: "0.02", levels: 3 } }
`,
);
const report = (out: string) => JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as SweepReport;

const processes: CliProcess[] = [];
const servers: RedisServer[] = [];
const sluice = (...args: string[]) => {
  const p = new CliProcess(args);
  processes.push(p);
  return p;
};
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function redisServer(): Promise<RedisServer> {
  const s = await startRedis();
  servers.push(s);
  return s;
}

async function worker(redis: RedisServer, name: string, ...args: string[]): Promise<CliProcess> {
  const w = sluice('worker', '--queue', redis.url, '--concurrency', '1', '--cache-dir', join(dir, name), ...args);
  await w.waitFor(/waiting for runs/);
  return w;
}

describe('a worker killed mid-run', () => {
  it('has its run picked up by the other worker; every run is reported once', async () => {
    const redis = await redisServer();
    // A 2 s lock (renewed every second): the killed worker's run is back in the queue about 4 s
    // after it stopped renewing it, with room for a loaded machine's pauses on the live one.
    const [a, b] = await Promise.all([worker(redis, 'a', '--lock-ms', '2000'), worker(redis, 'b', '--lock-ms', '2000')]);
    const out = join(dir, 'killed');
    // Runs of 20 minutes of the simulator's own market: a few seconds each.
    const submitter = sluice('sweep', '--queue', redis.url, '-c', CONFIG, '-d', '20', '--sweep', 'strategies.0.params.levels=2,3', '-o', out);
    const id = (await submitter.waitFor(/^sweep (\w+): 2 runs submitted/))[1]!;
    const started = await a.waitFor(new RegExp(`run ${id}/(\\d) started`));
    const killedRun = started[1]!;
    expect(await a.stop('SIGKILL')).toBeNull();
    // The other worker's stalled-job check finds the run, it goes back to the queue, and b runs it.
    await b.waitFor(new RegExp(`run ${id}/${killedRun} stalled \\(the worker running it stopped\\): back in the queue`));
    await b.waitFor(new RegExp(`run ${id}/${killedRun} ok: `));
    expect(await submitter.exited).toBe(0);
    const r = report(out);
    expect(r.sweep).toMatchObject({ runs: 2, ok: 2, failed: 0, cancelled: 0 });
    expect(r.runs.map((e) => e.index)).toEqual([0, 1]);
    // Counted once: progress never went past 2 of 2; the killed worker finished nothing, b both runs.
    expect(submitter.matching(/ (\d+)\/2 runs/).every((m) => Number(m[1]) <= 2)).toBe(true);
    expect(a.matching(new RegExp(`run ${id}/${killedRun} ok`))).toEqual([]);
    for (const index of [0, 1]) expect(b.matching(new RegExp(`run ${id}/${index} ok: `)).length, `b ran ${index}`).toBeGreaterThan(0);
    // A worker stopped with SIGTERM takes no new runs and exits cleanly.
    expect(await b.stop('SIGTERM')).toBe(0);
    expect(b.stderr).toMatch(/SIGTERM: finishing the runs in progress, taking no new ones/);
    expect(b.stderr).toMatch(/worker stopped$/m);
  }, 180_000);
});

describe('Redis stopped mid-sweep', () => {
  it('gives a clear error on both sides, and once Redis is back with its data nothing is lost', async () => {
    const redis = await redisServer();
    const w = await worker(redis, 'w');
    const out = join(dir, 'restart');
    const submitter = sluice('sweep', '--queue', redis.url, '-c', CONFIG, '-t', SAMPLE, '--sweep', 'strategies.0.params.levels=2,3', '-o', out);
    const id = (await submitter.waitFor(/^sweep (\w+): 2 runs submitted/))[1]!;
    await w.waitFor(new RegExp(`run ${id}/0 started`));
    await redis.shutdownSave();
    // ECONNRESET as the server goes, ECONNREFUSED while it is gone: whichever a process saw first.
    const down = /Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable \((ECONNRESET|ECONNREFUSED)\)/;
    expect((await submitter.waitFor(down)).input).toMatch(new RegExp(`sweep ${id} waits for it; nothing is lost if Redis keeps its data \\(Ctrl-C stops watching; re-attach later with --attach ${id}\\)$`));
    expect((await w.waitFor(down)).input).toMatch(/runs in progress go on and report when it is back; retrying$/);
    await redis.restart();
    await submitter.waitFor(new RegExp(`Redis at redis://127\\.0\\.0\\.1:\\d+ is back: watching sweep ${id} again`));
    await w.waitFor(/Redis at redis:\/\/127\.0\.0\.1:\d+ is back$/);
    expect(await submitter.exited).toBe(0);
    const r = report(out);
    expect(r.sweep).toMatchObject({ runs: 2, ok: 2, failed: 0 });
    expect(w.matching(new RegExp(`run ${id}/\\d ok: `)).length).toBeGreaterThanOrEqual(2);
  }, 180_000);

  it('says the sweep is lost, and to submit it again, when Redis comes back without its data', async () => {
    const redis = await redisServer();
    const w = await worker(redis, 'lost');
    const submitter = sluice('sweep', '--queue', redis.url, '-c', CONFIG, '-d', '20', '--sweep', 'strategies.0.params.levels=2,3', '-o', join(dir, 'lost'));
    const id = (await submitter.waitFor(/^sweep (\w+): 2 runs submitted/))[1]!;
    await w.waitFor(new RegExp(`run ${id}/0 started`));
    // The watch is under way (it has shown progress) when Redis dies.
    await submitter.waitFor(new RegExp(`^sweep ${id} \\[-+\\] 0/2 runs`));
    await redis.crash();
    await submitter.waitFor(/is unreachable/);
    await redis.restart();
    expect(await submitter.exited).toBe(1);
    expect(submitter.stderr).toContain(`sweep ${id} vanished from Redis while it was watched (Redis restarted without its data, or someone removed it): its results are lost; submit it again`);
  }, 120_000);
});
