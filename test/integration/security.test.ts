// Secrets stay secret through a whole live session, failures included: `sluice run` as a child
// process against the simulator over HTTP with a distinctive key and secret, a tape, a journal,
// the ops endpoint and a webhook; venue faults and a rejected order; a halt alert; `sluice
// doctor` beside it; SIGTERM. Then every output (logs, stdout, stderr, every file the run left,
// the journal and its -wal while it ran, the ops endpoint's answers, the webhook bodies) is
// searched for the secret, raw, hex and base64. Also: the ops endpoint binds to loopback by
// default, and a credentials file readable by others is refused while 0600 is accepted.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, DaemonProcess, WebhookReceiver } from '../fixtures/daemon-process.js';
import { startSimServer, STRICT_PROFILE, type SimServer } from '../../src/sim/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/sluice.js');
// Mixed case and digits, so its hex and base64 forms differ from the text.
const API_KEY = 'kEy7Distinctive4Qz9Lm2Wx';
const API_SECRET = 'sEcR3t-Vq8Zt5Np1Hy6Jd0Rw4Kc7Fb2Xg9';

/** The secret as it could leak: raw, hex (both cases), base64 and base64url at every alignment. */
function leakForms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const forms = [secret, bytes.toString('hex'), bytes.toString('hex').toUpperCase()];
  // Inside a longer base64 text the secret starts at one of three offsets within a 3-byte
  // group; the whole groups it fills encode the same at each one.
  for (let skip = 0; skip < 3; skip++) {
    const whole = bytes.subarray(skip, skip + Math.floor((bytes.length - skip) / 3) * 3);
    const b64 = whole.toString('base64');
    forms.push(b64, b64.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...new Set(forms)];
}

/** Every place a form of a secret occurs, by output name: the test's answer when it fails. */
function leaks(outputs: Record<string, Buffer | string>, secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    for (const form of leakForms(secret)) {
      for (const [name, data] of Object.entries(outputs)) {
        if (Buffer.from(data).includes(form)) found.push(`${name} holds ${form === secret ? 'the secret' : `an encoding of it (${form})`}`);
      }
    }
  }
  return found;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

let dir: string | undefined;
let sim: SimServer | undefined;
let receiver: WebhookReceiver | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await gone;
    }
  }
  await receiver?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  sim = undefined;
  receiver = undefined;
});

function run(config: string, env: NodeJS.ProcessEnv): DaemonProcess {
  const child = spawn(process.execPath, [BIN, 'run', '--config', config], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new DaemonProcess(child);
}

/** Whether a socket listens on exactly this IPv4 address and port (Linux: /proc/net/tcp). */
function listensOn(address: string, port: number): boolean {
  const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, '0');
  // /proc writes the address as a little-endian 32-bit number: 127.0.0.1 is 0100007F.
  const local = `${address.split('.').reverse().map((b) => hex(Number(b), 2)).join('')}:${hex(port, 4)}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .some((row) => {
      const cols = row.trim().split(/\s+/);
      return cols[1] === local && cols[3] === '0A'; // 0A: LISTEN
    });
}

describe('no secret in any output of a live session', () => {
  it('logs, stdout, stderr, tape, journal and -wal, metrics, health, status, page, webhook and doctor output hold no trace of the secret', async () => {
    // A venue that does not list its market minimums (some do not: the notes) and enforces them.
    sim = await startSimServer({ seed: 11, apiKey: API_KEY, apiSecret: API_SECRET, profile: { ...STRICT_PROFILE, name: 'unlisted-minimums', symbolsMarketMinimums: false }, faults: { error5xxRate: 0.05, resetRate: 0.03, lostResponseRate: 0.03 } });
    receiver = new WebhookReceiver();
    await receiver.start();
    dir = mkdtempSync(join(tmpdir(), 'sluice-security-'));
    const config = join(dir, 'live.yaml');
    // The second strategy's market buys spend 1 USDT, under ETHUSDT's minimum of 5: the venue rejects each (it does not list that minimum, so risk cannot check it).
    writeFileSync(
      config,
      `mode: live
venue: { spotUrl: "${sim.url}" }
journal: { path: ${join(dir, 'journal.db')} }
record: { path: ${join(dir, 'tape.jsonl')} }
http: { enabled: true, port: 0 }
alerts: { webhookUrl: "${receiver.url}", minIntervalMs: 0 }
log: { level: debug, pretty: false }
engine: { marketDataEveryMs: 100, summaryEveryMs: 500 }
strategies:
  - { id: ping, use: test/fixtures/plugins/pinger.ts, symbols: [BTCUSDT], everyMs: 100 }
  - { id: tiny, use: test/fixtures/plugins/pinger.ts, symbols: [ETHUSDT], everyMs: 300, params: { type: MARKET, volume: "1" } }
`,
    );
    const daemon = run(config, childEnv({ apiKey: API_KEY, apiSecret: API_SECRET }));
    const outputs: Record<string, Buffer | string> = {};

    const listening = await daemon.waitFor((l) => typeof l.url === 'string' && /^ops endpoint listening/.test(l.msg), 'the ops endpoint');
    const url = listening.url as string;
    // Loopback by default (http.host unset): the URL says so, and so does the kernel.
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(url).port);
    if (process.platform === 'linux') {
      expect(listensOn('127.0.0.1', port)).toBe(true);
      expect(listensOn('0.0.0.0', port)).toBe(false);
    }

    await daemon.waitFor((l) => l.msg === 'running; Ctrl-C stops', 'running');
    // Errors of both kinds: the venue rejected an order, and a fault left an outcome unknown.
    const rejected = await daemon.waitFor((l) => l.msg === 'order not placed' && l.outcome === 'rejected', 'a rejected order');
    expect(rejected.reason).toMatch(/^spot\.order: venue code -1136: Market buy amount 1 is below the minimum 5\.$/);
    await daemon.waitFor((l) => /outcome unknown/.test(l.msg), 'an order whose answer a fault lost');
    daemon.child.kill('SIGUSR2');
    await receiver.next('halt');

    for (const path of ['/metrics', '/healthz', '/status.json', '/', '/dashboard.js']) {
      const res = await fetch(`${url}${path}`);
      outputs[`GET ${path}`] = `${JSON.stringify([...res.headers])}\n${await res.text()}`;
    }
    // The dashboard's event stream: its first message holds the kept history, fills and alerts (the halt's among them).
    const stream = new AbortController();
    const events = (await fetch(`${url}/events`, { signal: stream.signal })).body!.pipeThrough(new TextDecoderStream()).getReader();
    let first = '';
    while (!first.includes('\n\n')) first += (await events.read()).value ?? '';
    stream.abort();
    outputs['GET /events'] = first;
    expect(first).toContain('"kind":"halt"');
    expect(outputs['GET /metrics']).toMatch(/^sluice_venue_errors_total\{endpoint="spot\.order",error="OrderRejectedError"\} [1-9]/m);
    expect(outputs['GET /status.json']).toContain('"mode":"live"');

    // The journal as it is mid-run, WAL included (a clean stop checkpoints and removes the -wal).
    const journal = join(dir, 'journal.db');
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(journal + suffix)) outputs[`running journal.db${suffix}`] = readFileSync(journal + suffix);
    expect(Buffer.byteLength(outputs['running journal.db-wal'] ?? '')).toBeGreaterThan(0);

    // The doctor beside the running daemon: its output is scanned too, and it reads the live journal.
    const doc = await new Promise<{ stdout: string; stderr: string }>((done) =>
      execFile(process.execPath, [BIN, 'doctor', '--config', config], { cwd: ROOT, env: childEnv({ apiKey: API_KEY, apiSecret: API_SECRET }) }, (_e, stdout, stderr) => done({ stdout, stderr })),
    );
    expect(doc.stdout).toMatch(new RegExp(`^OK   journal: .*in use by a running sluice \\(pid ${daemon.child.pid}\\)`, 'm'));
    outputs['doctor stdout'] = doc.stdout;
    outputs['doctor stderr'] = doc.stderr;

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    outputs.stdout = daemon.stdout;
    outputs.stderr = daemon.stderr;
    receiver.bodies.forEach((b, i) => (outputs[`webhook ${i}`] = b));
    for (const file of filesUnder(dir)) outputs[file] = readFileSync(file);

    // The scan covers real material: a tape of signed calls, a journal with orders, logs of errors.
    const tape = String(outputs[join(dir, 'tape.jsonl')] ?? '');
    expect(tape).toContain('spot.account');
    expect(tape.split('\n').length).toBeGreaterThan(50);
    expect(Buffer.from(outputs[journal]!).includes('sltiny-')).toBe(true);
    expect(daemon.lines.filter((l) => l.msg === 'order not placed').length).toBeGreaterThan(0);

    expect(leaks(outputs, [API_SECRET, API_KEY])).toEqual([]);
    // The scanner itself finds each form where one is (so an empty list above means something).
    for (const form of leakForms(API_SECRET)) expect(leaks({ probe: `x${form}y` }, [API_SECRET])).not.toEqual([]);
    expect(leaks({ probe: Buffer.from(`{"k":"${API_SECRET}"}`).toString('base64') }, [API_SECRET])).not.toEqual([]);
  }, 90_000);
});

describe('credentials file permissions, at start-up through the CLI', () => {
  it('refuses a file others can read, with the fix; accepts it at 0600', async () => {
    sim = await startSimServer({ seed: 12, apiKey: API_KEY, apiSecret: API_SECRET });
    dir = mkdtempSync(join(tmpdir(), 'sluice-security-'));
    const creds = join(dir, 'credentials.env');
    writeFileSync(creds, `SLUICE_API_KEY=${API_KEY}\nSLUICE_API_SECRET=${API_SECRET}\n`);
    chmodSync(creds, 0o644);
    const config = join(dir, 'live.yaml');
    writeFileSync(
      config,
      `mode: live
venue: { spotUrl: "${sim.url}" }
credentials: { file: ${creds} }
journal: { path: ${join(dir, 'journal.db')} }
log: { level: info, pretty: false }
strategies:
  - { id: ping, use: test/fixtures/plugins/pinger.ts, symbols: [BTCUSDT] }
`,
    );

    const refused = run(config, childEnv());
    expect(await refused.exited).toBe(1);
    expect(refused.stderr).toContain(`credentials.file (line 3): ${creds} is accessible to group or others (mode 644); it holds secrets: run chmod 600 ${creds}`);
    expect(sim.exchange.arrivals()).toEqual([]); // refused before any request

    chmodSync(creds, 0o600);
    const accepted = run(config, childEnv());
    await accepted.waitFor((l) => l.msg === 'running; Ctrl-C stops', 'running with the 0600 file');
    expect(sim.exchange.arrivals().some((a) => a.endpoint === 'spot.account' && a.status === 200 && a.key === API_KEY)).toBe(true);
    accepted.child.kill('SIGTERM');
    expect(await accepted.exited).toBe(0);

    const outputs = { 'refused stdout': refused.stdout, 'refused stderr': refused.stderr, 'accepted stdout': accepted.stdout, 'accepted stderr': accepted.stderr };
    expect(leaks(outputs, [API_SECRET, API_KEY])).toEqual([]);
  }, 60_000);
});
