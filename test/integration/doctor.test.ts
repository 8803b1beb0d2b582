// `sluice doctor` as an operator runs it: the CLI as a child process, in live mode against the
// simulator over HTTP on 127.0.0.1, one line per check and the exit code.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { BannedError, RateLimitedError } from '../../src/core/errors.js';
import { formatCheck, limitsCheck } from '../../src/app/doctor.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { SCHEMA_VERSION, SqliteJournal } from '../../src/store/sqlite.js';
import { childEnv } from '../fixtures/daemon-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/sluice.js');

let sim: SimServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  sim = undefined;
  dir = undefined;
});

interface Result {
  code: number;
  stdout: string;
  stderr: string;
  /** The line of each check, by name. */
  line: Record<string, string>;
}

function doctor(config: string, credentials?: { apiKey: string; apiSecret: string }): Promise<Result> {
  const env = childEnv(credentials);
  return new Promise((done) => {
    execFile(process.execPath, [BIN, 'doctor', '--config', config], { cwd: ROOT, env }, (err, stdout, stderr) => {
      const line: Record<string, string> = {};
      for (const l of stdout.split('\n')) {
        const m = /^(?:OK|WARN|FAIL) +([a-z]+(?: [a-z]+)?):/.exec(l);
        if (m) line[m[1]!] = l;
      }
      done({ code: err ? Number(err.code) : 0, stdout, stderr, line });
    });
  });
}

/** A live config against the simulator, with a journal that has seen a little trading. */
function setup(futuresUrl?: string): { config: string; journal: string } {
  dir = mkdtempSync(join(tmpdir(), 'sluice-doctor-'));
  const journal = join(dir, 'journal.db');
  const j = SqliteJournal.open(journal);
  for (let i = 0; i < 200; i++) j.setCursor(`trades:spot:SYM${i}`, `${i}`.repeat(40));
  j.close();
  const config = join(dir, 'live.yaml');
  writeFileSync(
    config,
    `mode: live
venue: { spotUrl: "${sim!.url}"${futuresUrl ? `, futuresUrl: "${futuresUrl}"` : ''} }
journal: { path: ${journal} }
strategies:
  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT] }
`,
  );
  return { config, journal };
}

describe('sluice doctor against the simulator', () => {
  it('all OK: one line per check, exit 0', async () => {
    sim = await startSimServer({ seed: 5 });
    const { config, journal } = setup();
    const r = await doctor(config, sim);
    expect(r.stderr).toBe('');
    expect(Object.keys(r.line)).toEqual(['config', 'clock', 'credentials', 'limits', 'journal']);
    for (const l of Object.values(r.line)) expect(l).toMatch(/^OK /);
    expect(r.line.credentials).toBe('OK   credentials: a signed spot.account call was accepted (key and secret from the environment)');
    expect(r.line.clock).toMatch(/^OK   clock: venue clock is \d+ ms (ahead of|behind) this machine's/);
    expect(r.line.limits).toContain('spot market data 2 of 20 per 2 s per feed (1 symbol every 1000 ms)');
    const mb = Math.round((statSync(journal).size / 1024 ** 2) * 10) / 10;
    expect(r.line.journal).toBe(`OK   journal: ${journal}: schema ${SCHEMA_VERSION}, integrity ok, WAL, 0 orders, 0 fills, ${mb} MB; not in use (no lock file)`);
    expect(r.code).toBe(0);
    // The doctor made exactly its read-only calls: the time samples and one signed account read.
    expect(sim.exchange.arrivals().map((a) => a.endpoint)).toEqual(['spot.time', 'spot.time', 'spot.time', 'spot.account']);
    expect(r.stdout).not.toContain(sim.apiSecret);
    expect(r.stdout).not.toContain(sim.apiKey);
  });

  it('a ban in the journal: nothing is sent to the venue, the venue checks wait, limits FAIL with the ban end', async () => {
    sim = await startSimServer({ seed: 5 });
    const { config, journal } = setup();
    const until = Date.now() + 600_000;
    const j = SqliteJournal.open(journal);
    j.setBanUntil(until);
    j.close();
    const r = await doctor(config, sim);
    const end = new Date(until).toISOString();
    expect(r.line.clock).toBe(`WARN clock: not checked: the journal records a venue ban until ${end}, and nothing is sent before it ends. Fix: run sluice doctor again after the ban`);
    expect(r.line.credentials).toBe(`WARN credentials: not checked: the journal records a venue ban until ${end}, and nothing is sent before it ends. Fix: run sluice doctor again after the ban`);
    expect(r.line.limits).toMatch(new RegExp(`^FAIL limits: the venue bans this key until ${end.replace(/[.]/g, '\\.')}`));
    expect(r.code).toBe(1);
    expect(sim.exchange.arrivals()).toEqual([]);
  });

  it('a wrong secret: FAIL credentials naming -1022 and the fix, exit 1, no secret printed', async () => {
    sim = await startSimServer({ seed: 5 });
    const { config } = setup();
    const wrong = 'wrongSecretThatIsNotIssued0123';
    const r = await doctor(config, { apiKey: sim.apiKey, apiSecret: wrong });
    expect(r.line.credentials).toBe(
      'FAIL credentials: the venue refused the signature (spot.account, code -1022): the secret does not belong to this key (from the environment). ' +
        'Fix: set SLUICE_API_SECRET to the secret issued with this key, exactly as shown (case-sensitive, no spaces or quotes)',
    );
    expect(r.line.clock).toMatch(/^OK /);
    expect(r.code).toBe(1);
    for (const s of [wrong, sim.apiSecret, sim.apiKey]) expect(r.stdout + r.stderr).not.toContain(s);
  });

  it('a wrong key: FAIL credentials naming -2015 and what to check', async () => {
    sim = await startSimServer({ seed: 5 });
    const { config } = setup();
    const r = await doctor(config, { apiKey: 'notAKeyTheVenueKnows', apiSecret: sim.apiSecret });
    expect(r.line.credentials).toMatch(/^FAIL credentials: the venue refused the API key \(spot\.account, code -2015\): .*Fix: check SLUICE_API_KEY, the key's IP whitelist/);
    expect(r.code).toBe(1);
  });

  it('no credentials in live mode: FAIL credentials saying where they come from', async () => {
    sim = await startSimServer({ seed: 5 });
    const { config } = setup();
    const r = await doctor(config);
    expect(r.line.credentials).toMatch(/^FAIL credentials: .* credentials: live mode needs API credentials: set SLUICE_API_KEY and SLUICE_API_SECRET in the environment, or set credentials\.file/);
    expect(r.code).toBe(1);
    expect(sim.exchange.arrivals()).toEqual([]);
  });

  it('a venue clock 7 s ahead: FAIL clock with the measured offset (signed calls still pass: sluice signs with venue time)', async () => {
    const skew = 7000;
    sim = await startSimServer({ seed: 5, faults: { clockSkewMs: skew } });
    const { config } = setup();
    const r = await doctor(config, sim);
    const m = /^FAIL clock: venue clock is (\d+) ms ahead of this machine's \(measured over a (\d+) ms round trip, so within \d+ ms\); the venue takes timestamps from 1000 ms ahead of its clock to 5000 ms \(venue\.recvWindowMs\) behind it: outside that window\..*Fix: turn on time sync/.exec(
      r.line.clock ?? '',
    );
    expect(m, r.stdout).not.toBeNull();
    // The estimate is off by at most half the round trip (plus rounding to whole ms).
    const [offset, rtt] = [Number(m![1]), Number(m![2])];
    expect(Math.abs(offset - skew)).toBeLessThanOrEqual(rtt / 2 + 1);
    expect(r.line.credentials).toMatch(/^OK /);
    expect(r.code).toBe(1);
  });

  it('futures on a host of its own: its clock is checked too, by its own time endpoint', async () => {
    sim = await startSimServer({ seed: 5 });
    const futuresHost = await startSimServer({ seed: 5, faults: { clockSkewMs: 7000 } });
    try {
      const { config } = setup(futuresHost.url);
      const r = await doctor(config, sim);
      expect(Object.keys(r.line)).toEqual(['config', 'clock', 'futures clock', 'credentials', 'limits', 'journal']);
      expect(r.line.clock).toMatch(/^OK   clock: /);
      expect(r.line['futures clock']).toMatch(/^FAIL futures clock: venue clock is \d+ ms ahead of this machine's .*outside that window/);
      expect(futuresHost.exchange.arrivals().map((a) => a.endpoint)).toEqual(['futures.time', 'futures.time', 'futures.time']);
      expect(r.code).toBe(1);
    } finally {
      await futuresHost.close();
    }
  });

  it('a corrupted journal: FAIL journal, and the file is left byte for byte as it was (no -wal or -shm appear)', async () => {
    sim = await startSimServer({ seed: 5 });
    const { config, journal } = setup();
    const bytes = readFileSync(journal);
    expect(bytes.length).toBeGreaterThan(4096 * 6);
    bytes.fill(0x41, 4096 * 2, 4096 * 4); // two pages of the cursors' b-tree overwritten
    writeFileSync(journal, bytes);
    const r = await doctor(config, sim);
    expect(r.line.journal).toMatch(new RegExp(`^FAIL journal: ${journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: (corrupt|integrity_check failed)`));
    expect(r.line.journal).toContain('Fix: stop sluice, move the file aside');
    expect(r.code).toBe(1);
    expect(readFileSync(journal).equals(bytes)).toBe(true);
    expect(existsSync(`${journal}-wal`)).toBe(false);
    expect(existsSync(`${journal}-shm`)).toBe(false);
  });

  it('a journal over 1 GiB: WARN journal, saying to prune it', async () => {
    sim = await startSimServer({ seed: 5 });
    const { config, journal } = setup();
    // Pages past the database's own size are not read (SQLite keeps its size in the header): a sparse tail makes the file large at no cost.
    truncateSync(journal, 1024 ** 3 + 4096);
    const r = await doctor(config, sim);
    expect(r.line.journal).toMatch(/^WARN journal: .*integrity ok, WAL, \d+ orders, \d+ fills, 1024 MB;/);
    expect(r.line.journal).toContain('Fix: trim it with `sluice journal prune --config <file> --keep-days N` with the daemon stopped');
  });

  it("a running daemon's limiter, read from its ops endpoint: queued requests are a WARN", async () => {
    sim = await startSimServer({ seed: 5 });
    const { config } = setup();
    // Stands in for the daemon's /status.json (the real one is covered by ops-daemon.test.ts).
    const ops = createServer((req, res) => {
      const limiter = { 'spot.order': { inWindow: 100, limit: 100, queued: 12 }, 'spot.ticker': { inWindow: 3, limit: 20, queued: 0 } };
      res.writeHead(req.url === '/status.json' ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify({ limiter }));
    });
    await new Promise<void>((r) => ops.listen(0, '127.0.0.1', r));
    try {
      writeFileSync(config, `${readFileSync(config, 'utf8')}http: { enabled: true, port: ${(ops.address() as AddressInfo).port} }\n`);
      const r = await doctor(config, sim);
      expect(r.line.limits).toMatch(/^WARN limits: the running daemon has 12 requests queued on spot\.order; .*running daemon: busiest spot\.order 100 of 100 in the current window\. Fix: /);
      expect(r.code).toBe(0); // a WARN alone does not fail
    } finally {
      await new Promise((r) => ops.close(r));
    }
  });

  it('a journal that cannot be written where it is: FAIL journal, naming the cause and the fix', async () => {
    sim = await startSimServer({ seed: 5 });
    const { config } = setup();
    // journal.path under a file: the daemon could neither make its directory nor lock it.
    const blocker = join(dir!, 'not-a-dir');
    writeFileSync(blocker, '');
    const moved = join(dir!, 'moved.yaml');
    writeFileSync(moved, readFileSync(config, 'utf8').replace(/journal: \{ path: .* \}/, `journal: { path: ${join(blocker, 'journal.db')} }`));
    const r = await doctor(moved, sim);
    expect(r.line.journal).toBe(`FAIL journal: ${join(blocker, 'journal.db')}: ${blocker} is a file, not a directory (ENOTDIR). Fix: fix journal.path`);
    expect(r.code).toBe(1);
  });

  it('paper mode: credentials and journal say the built-in simulator is used', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-doctor-'));
    const config = join(dir, 'paper.yaml');
    writeFileSync(config, 'mode: paper\nstrategies:\n  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT] }\n');
    const r = await doctor(config);
    expect(r.line.credentials).toMatch(/^OK   credentials: paper mode uses the built-in simulated exchange/);
    expect(r.line.journal).toMatch(/^OK   journal: paper mode keeps its journal in memory/);
    expect(r.code).toBe(0);
  });
});

describe('read-only commands leave no files behind', () => {
  it('doctor, status and plan with record.path set write no tape and leave the journal as it was', async () => {
    sim = await startSimServer({ seed: 5 });
    const { config, journal } = setup();
    const tape = join(dir!, 'tape.jsonl');
    writeFileSync(config, `${readFileSync(config, 'utf8')}record: { path: ${tape} }\n`);
    const before = readFileSync(journal);
    for (const command of ['doctor', 'status', 'plan']) {
      const code = await new Promise<number>((done) =>
        execFile(process.execPath, [BIN, command, '--config', config], { cwd: ROOT, env: { ...process.env, SLUICE_API_KEY: sim!.apiKey, SLUICE_API_SECRET: sim!.apiSecret } }, (err) => done(err ? Number(err.code) : 0)),
      );
      expect(code, command).toBe(0);
      expect(readdirSync(dir!).sort(), command).toEqual(['journal.db', 'live.yaml']);
    }
    expect(readFileSync(journal).equals(before)).toBe(true);
  });
});

describe('limits headroom (the check itself, on parsed configs)', () => {
  const NOW = 1_700_000_000_000;
  const configOf = async (yaml: string) => (await parseConfig(`mode: paper\n${yaml}`)).config;
  const grid = (symbols: string) => `strategies:\n  - { id: g, use: strategies/grid/index.ts, symbols: [${symbols}] }\n`;

  it.each([
    {
      what: 'defaults, one symbol',
      yaml: grid('BTCUSDT'),
      facts: {},
      want: 'OK   limits: spot market data 2 of 20 per 2 s per feed (1 symbol every 1000 ms); reconcile every 2000 ms; no ban',
    },
    {
      what: 'polling beyond a lowered limit, and a reconcile interval stretched to its budget share',
      yaml: `venue: { limits: { spot.ticker: 5 } }\nengine: { marketDataEveryMs: 200 }\n${grid('BTCUSDT, ETHUSDT, SOLUSDT, XRPUSDT, ADAUSDT, DOTUSDT, LTCUSDT, BCHUSDT, EOSUSDT, TRXUSDT, XLMUSDT')}`,
      facts: {},
      want:
        'WARN limits: spot market data 110 of 5 per 2 s per feed (11 symbols every 200 ms): polls will queue and arrive late; venue.limits lowers spot.ticker to 5 (venue 20); ' +
        'reconcile every 2200 ms (stretched from engine.reconcileEveryMs 2000 to stay within reconcile.budgetShare). Fix: raise engine.marketDataEveryMs to at least 4400, or trade fewer symbols per process',
    },
    {
      what: "a 429 to the doctor's own call",
      yaml: grid('BTCUSDT'),
      facts: { seen: [{ endpoint: 'spot.account' as const, attempt: 1, requestedAt: NOW, finishedAt: NOW, httpStatus: 429, error: new RateLimitedError({ endpoint: 'spot.account' }, 2000) }] },
      want: /^WARN limits: the venue answered 429 to the doctor's own calls: this key is at its limit right now; .*Fix: lower the polling/,
    },
    {
      what: 'a running daemon with requests queued',
      yaml: grid('BTCUSDT'),
      facts: { daemon: { 'spot.order': { inWindow: 100, limit: 100, queued: 7 }, 'spot.ticker': { inWindow: 2, limit: 20, queued: 0 } } },
      want: /^WARN limits: the running daemon has 7 requests queued on spot\.order; .*running daemon: busiest spot\.order 100 of 100 in the current window\. Fix: /,
    },
    {
      what: 'a ban in the journal',
      yaml: grid('BTCUSDT'),
      facts: { banUntil: NOW + 60_000 },
      want: `FAIL limits: the venue bans this key until ${new Date(NOW + 60_000).toISOString()} (418 after repeated 429s); sluice waits it out. Fix: find what broke the limits (sluice_venue_http_429_total per endpoint) and lower venue.limits or the polling before the ban ends`,
    },
    {
      what: "a 418 to the doctor's own call",
      yaml: grid('BTCUSDT'),
      facts: { seen: [{ endpoint: 'spot.time' as const, attempt: 1, requestedAt: NOW, finishedAt: NOW, httpStatus: 418, error: new BannedError({ endpoint: 'spot.time' }, NOW + 5000) }] },
      want: /^FAIL limits: the venue bans this key until /,
    },
  ])('$what', async ({ yaml, facts, want }) => {
    const line = formatCheck(limitsCheck(await configOf(yaml), { now: NOW, banUntil: 0, seen: [], ...facts }));
    if (typeof want === 'string') expect(line).toBe(want);
    else expect(line).toMatch(want);
  });
});
