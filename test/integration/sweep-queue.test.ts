// Distributed sweeps end to end, as a user runs them: a real redis-server (with a password), two
// `sluice worker` processes, and `sluice sweep` submitters; every wait is on a line a process
// prints or on its exit. Faults (a worker killed, Redis restarted) are in sweep-queue-faults.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_RUN, type SweepReport } from '../../src/report/index.js';
import { CliProcess } from '../fixtures/cli-process.js';
import { startRedis, type RedisServer } from '../fixtures/redis.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SAMPLE = join(ROOT, 'backtest/tapes/sample.jsonl.gz');
const PASSWORD = 'redis-pw-5f1c9e';
const SECRETS = { SLUICE_API_KEY: 'api-key-0b7d41', SLUICE_API_SECRET: 'api-secret-93ac2e', WEBHOOK_TOKEN: 'hook-token-77d20a' };
const LITERAL_TOKEN = 'T0KEN-literal-4a8b';

const dir = mkdtempSync(join(tmpdir(), 'sluice-sweepq-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CONFIG = join(dir, 'grid.yaml');
writeFileSync(
  CONFIG,
  `mode: paper
sim: { seed: 3, latencyMs: { min: 2, max: 20 } }
strategies:
  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { spacingPct: "0.02", levels: 3 } }
`,
);
const GRID = ['--sweep', 'strategies.0.params.levels=2,3', '--sweep', 'strategies.0.params.spacingPct=0.02,0.05'];
const report = (out: string) => JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as SweepReport;
let outs = 0;
const outDir = () => join(dir, `out-${outs++}`);

let redis: RedisServer;
let workers: CliProcess[] = [];
const submitters: CliProcess[] = [];
const sluice = (...args: string[]) => {
  const p = new CliProcess(args, { env: { ...process.env, ...SECRETS } });
  submitters.push(p);
  return p;
};
const sweep = (...args: string[]) => sluice('sweep', '--queue', redis.url, '-c', CONFIG, ...args);
/** The sweep id a submitter printed. */
const submitted = async (p: CliProcess) => (await p.waitFor(/^sweep (\w+): \d+ runs submitted to /))[1]!;

beforeAll(async () => {
  redis = await startRedis({ password: PASSWORD });
  workers = [0, 1].map((i) => new CliProcess(['worker', '--queue', redis.url, '--concurrency', '1', '--cache-dir', join(dir, `worker-${i}`)], { env: { ...process.env, ...SECRETS } }));
  await Promise.all(workers.map((w) => w.waitFor(/waiting for runs/)));
}, 60_000);

afterAll(async () => {
  await Promise.all([...workers, ...submitters].map((p) => p.stop()));
  await redis?.stop();
});

describe('sluice sweep --queue with two sluice workers', () => {
  it('runs every parameter set on the two workers and writes the same report as a local sweep', async () => {
    const out = outDir();
    const submitter = sweep('-t', SAMPLE, ...GRID, '-o', out);
    expect(await submitter.exited).toBe(0);
    const id = await submitted(submitter);
    // The redis URL as printed hides its password.
    expect(submitter.stderr).toContain(`re-attach: sluice sweep --queue redis://:***@127.0.0.1:${redis.port} --attach ${id}`);
    expect(submitter.stderr).toMatch(/^uploaded sample\.jsonl\.gz \(2\.0 MB, sha256 [0-9a-f]{12}\)$/m);
    // Progress with an estimate on stderr, up to every run done.
    expect(submitter.matching(new RegExp(`^sweep ${id} \\[[#-]+\\] [1-3]/4 runs .* ETA \\d+:\\d\\d$`)).length).toBeGreaterThan(0);
    expect(submitter.stderr).toMatch(new RegExp(`^sweep ${id} \\[#+\\] 4/4 runs .* ETA 0:00$`, 'm'));

    const r = report(out);
    expect(r.sweep).toMatchObject({ id, config: 'grid.yaml', tape: 'sample.jsonl.gz', runs: 4, ok: 4, failed: 0, cancelled: 0 });
    expect(r.runs.map((e) => [e.index, e.params['strategies.0.params.levels'], e.params['strategies.0.params.spacingPct'], e.status])).toEqual([
      [0, '2', '0.02', 'ok'],
      [1, '2', '0.05', 'ok'],
      [2, '3', '0.02', 'ok'],
      [3, '3', '0.05', 'ok'],
    ]);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<h2>PnL heat map</h2>');
    // Both workers ran some of it, each fetched the tape once and decoded it into its own cache.
    for (const [i, w] of workers.entries()) {
      expect(w.matching(new RegExp(`^\\S+ run ${id}/\\d ok: `)).length, `worker ${i} ran a run`).toBeGreaterThan(0);
      expect(readdirSync(join(dir, `worker-${i}`, 'tapes'))).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.tape$/)]);
      // The decoded events and, beside them, the tape's recorded incidents (tape/incidents.ts) and its listings (tape/listings.ts).
      expect(readdirSync(join(dir, `worker-${i}`, 'events')).sort()).toEqual([expect.stringMatching(/\.events$/), expect.stringMatching(/\.incidents$/), expect.stringMatching(/\.listings$/)]);
    }
    expect(workers.flatMap((w) => w.matching(new RegExp(`run ${id}/\\d ok: `))).length).toBe(4);

    // The same sweep on this machine's threads, without Redis: the same report but its id.
    const localOut = outDir();
    const local = sluice('sweep', '-c', CONFIG, '-t', SAMPLE, ...GRID, '--concurrency', '2', '-o', localOut, '--cache-dir', join(dir, 'local-cache'));
    expect(await local.exited).toBe(0);
    const mine = report(localOut);
    expect(mine.sweep.id).not.toBe(id);
    expect(JSON.stringify({ ...mine, sweep: { ...mine.sweep, id } })).toBe(JSON.stringify(r));
    // Each run's own report came back through the queue, the same as the local run's.
    for (const e of r.runs) expect(readFileSync(join(out, 'runs', String(e.index), 'report.json'), 'utf8')).toBe(readFileSync(join(localOut, 'runs', String(e.index), 'report.json'), 'utf8'));
  }, 180_000);

  it('reports a bad parameter set and a broken tape with their reasons; the other runs and the sweep go on', async () => {
    const out = outDir();
    const bad = sweep('-t', SAMPLE, '--sweep', 'strategies.0.params.levels=2,0', '-o', out);
    // 2: the report is written, some runs failed.
    expect(await bad.exited).toBe(2);
    expect(bad.stderr).toMatch(/^sample\.jsonl\.gz is in Redis already \(sha256 [0-9a-f]{12}\)$/m);
    const r = report(out);
    expect(r.sweep).toMatchObject({ runs: 2, ok: 1, failed: 1 });
    expect(r.runs[0]!.status).toBe('ok');
    expect(r.runs[1]).toMatchObject({ status: 'failed', params: { 'strategies.0.params.levels': '0' } });
    expect(r.runs[1]!.status === 'failed' && r.runs[1]!.reason).toMatch(/strategies\[0\]\.params\.levels: .*\(plugin grid\)/);

    // A run whose strategy was disabled failed, and its own report came back all the same.
    const thrower = join(dir, 'thrower.yaml');
    writeFileSync(thrower, `mode: paper\nsim: { seed: 3 }\nstrategies:\n  - { id: t1, use: ${join(ROOT, 'test/fixtures/plugins/thrower.ts')}, symbols: [BTCUSDT], params: { throwAt: 10 } }\n`);
    const disabledOut = outDir();
    const disabled = sluice('sweep', '--queue', redis.url, '-c', thrower, '-t', SAMPLE, '--sweep', 'strategies.0.params.throwAt=10,0', '-o', disabledOut);
    expect(await disabled.exited).toBe(2);
    const d = report(disabledOut);
    expect(d.runs.map((e) => e.status)).toEqual(['failed', 'ok']);
    expect(d.runs[0]!.status === 'failed' && d.runs[0]!.reason).toMatch(/^strategy t1 was disabled at .*: onTick threw: bug in my requote/);
    const kept = JSON.parse(readFileSync(join(disabledOut, 'runs', '0', 'report.json'), 'utf8')) as { disabledStrategies: { strategy: string }[] };
    expect(kept.disabledStrategies.map((x) => x.strategy)).toEqual(['t1']);

    // A tape broken past its header: every run fails with the line at fault, named by the tape's own name.
    const broken = join(dir, 'broken.jsonl');
    const lines = gunzipSync(readFileSync(SAMPLE)).toString('utf8').split('\n');
    lines[50] = '{"this is": not json';
    writeFileSync(broken, lines.join('\n'));
    const brokenOut = outDir();
    const onBroken = sweep('-t', broken, '--sweep', 'strategies.0.params.levels=2,3', '-o', brokenOut);
    expect(await onBroken.exited).toBe(2);
    const b = report(brokenOut);
    expect(b.runs.map((e) => e.status)).toEqual(['failed', 'failed']);
    for (const e of b.runs) expect(e.status === 'failed' && e.reason).toMatch(/^broken\.jsonl:51: not JSON/);
  }, 120_000);

  it('re-attaches to a sweep whose submitter died and writes its whole report', async () => {
    const first = sweep('-t', SAMPLE, ...GRID, '-o', outDir());
    const id = await submitted(first);
    await first.stop('SIGKILL');
    const out = outDir();
    const again = sluice('sweep', '--queue', redis.url, '--attach', id, '-o', out);
    expect(await again.exited).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`^sweep ${id} \\[#+\\] 4/4 runs`, 'm'));
    const r = report(out);
    expect(r.sweep).toMatchObject({ id, runs: 4, ok: 4 });
    // Attaching to a finished sweep gives the same report again.
    const later = sluice('sweep', '--queue', redis.url, '--attach', id, '-o', outDir());
    expect(await later.exited).toBe(0);
    expect(later.stdout).toContain('4 runs: 4 ok, 0 failed, 0 cancelled');

    const unknown = sluice('sweep', '--queue', redis.url, '--attach', 'nosuchsweep');
    expect(await unknown.exited).toBe(1);
    expect(unknown.stderr).toMatch(/^no sweep nosuchsweep on redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: check the id/m);
  }, 120_000);

  it('cancels a sweep: the runs not started are removed, the running ones stop, the report says which', async () => {
    const out = outDir();
    // Runs of two hours of the simulator's market: long enough to be running when the cancel lands.
    const submitter = sluice('sweep', '--queue', redis.url, '-c', CONFIG, '-d', '120', '--sweep', 'strategies.0.params.levels=1,2,3,4,5,6', '-o', out);
    const id = await submitted(submitter);
    await Promise.all(workers.map((w) => w.waitFor(new RegExp(`run ${id}/\\d started`))));
    const cancel = sluice('sweep', '--queue', redis.url, '--cancel', id);
    expect(await cancel.exited).toBe(0);
    expect(cancel.stdout).toContain(`sweep ${id} cancelled: 4 runs removed before they started, 2 running runs told to stop`);
    expect(await submitter.exited).toBe(1);
    expect(submitter.stderr).toContain(`sweep ${id} was cancelled`);
    const r = report(out);
    expect(r.sweep).toMatchObject({ runs: 6, ok: 0, failed: 0, cancelled: 6 });
    const reasons = r.runs.map((e) => (e.status === 'cancelled' ? e.reason : e.status));
    expect(reasons.filter((x) => x === 'cancelled while running')).toHaveLength(2);
    expect(reasons.filter((x) => x === NOT_RUN)).toHaveLength(4);
    for (const w of workers) await w.waitFor(new RegExp(`run ${id}/\\d cancelled: cancelled while running`));
  }, 120_000);

  it('never puts a secret in Redis or in what it prints: credentials, webhook tokens, the Redis password', async () => {
    const secretConfig = join(dir, 'secret.yaml');
    writeFileSync(
      secretConfig,
      `${readFileSync(CONFIG, 'utf8')}alerts: { webhookUrl: "https://hooks.example/services/${LITERAL_TOKEN}" }\nhttp: { enabled: false }\n`,
    );
    const detached = sluice('sweep', '--queue', redis.url, '-c', secretConfig, '-t', SAMPLE, ...GRID, '--detach');
    expect(await detached.exited, `sluice sweep --detach said:\n${detached.stderr}`).toBe(0);
    const id = await submitted(detached);
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      const keys = await client.keys('*');
      expect(keys.some((k) => k.includes(id))).toBe(true);
      const stored: Buffer[] = [];
      for (const key of keys) {
        stored.push(Buffer.from(key));
        const type = await client.type(key);
        if (type === 'string') stored.push((await client.getBuffer(key))!);
        else if (type === 'hash') stored.push(...Object.entries(await client.hgetallBuffer(key)).flatMap(([k, v]) => [Buffer.from(k), v]));
        else if (type === 'list') stored.push(...(await client.lrangeBuffer(key, 0, -1)));
        else if (type === 'set') stored.push(...(await client.smembersBuffer(key)));
        else if (type === 'zset') stored.push(...(await client.zrangeBuffer(key, 0, -1)));
        else if (type === 'stream') stored.push(Buffer.from(JSON.stringify(await client.xrange(key, '-', '+'))));
        else throw new Error(`a ${type} at ${key}: read it too`);
      }
      const everything = Buffer.concat(stored);
      // The run's config text went: the grid's parameters are there, the webhook is not.
      expect(everything.includes('strategies/grid/index.ts')).toBe(true);
      for (const secret of [...Object.values(SECRETS), LITERAL_TOKEN, PASSWORD]) expect(everything.includes(secret), secret).toBe(false);
    } finally {
      client.disconnect();
    }
    for (const p of [...workers, ...submitters]) for (const secret of [...Object.values(SECRETS), LITERAL_TOKEN, PASSWORD]) expect(p.stdout + p.stderr).not.toContain(secret);
    await sluice('sweep', '--queue', redis.url, '--cancel', id).exited;
  }, 60_000);

  it('says plainly what is wrong before anything is queued', async () => {
    const noRedis = sluice('sweep', '--queue', 'redis://127.0.0.1:1', '-c', CONFIG, '-t', SAMPLE, ...GRID);
    expect(await noRedis.exited).toBe(1);
    expect(noRedis.stderr).toMatch(/^cannot reach Redis at redis:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\): start redis-server there, or fix --queue$/m);
    const badUrl = sluice('sweep', '--queue', '127.0.0.1:6379', '-c', CONFIG, '-t', SAMPLE, ...GRID);
    expect(await badUrl.exited).toBe(1);
    expect(badUrl.stderr).toContain('--queue: needs the scheme: write redis://127.0.0.1:6379');
    const noAxis = sweep('-t', SAMPLE);
    expect(await noAxis.exited).toBe(1);
    expect(noAxis.stderr).toContain('give at least one --sweep key=a,b,c');
  }, 60_000);
});
