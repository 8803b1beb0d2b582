// A stop that fails part way, as an operator meets it: `sluice run` live as a child process
// against the simulator, whose journal another connection holds locked for writing when the stop
// begins, so the stop's last journal writes fail (SQLITE_BUSY after the journal's busy timeout).
// The daemon says what failed and what to do, and exits with its own code, not a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_STOP_FAILED, EXIT_UNSETTLED } from '../../src/commands/run.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { Database } from '../../src/store/driver.js';
import { childEnv, DaemonProcess } from '../fixtures/daemon-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/sluice.js');
const API_KEY = 'stopfail-key-1234';
const API_SECRET = 'stopfail-secret-5678';

let dir: string | undefined;
let sim: SimServer | undefined;
let child: ChildProcess | undefined;
let holder: Database.Database | undefined;
afterEach(async () => {
  holder?.close();
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  child = dir = sim = holder = undefined;
});

describe('sluice run when its stop fails', () => {
  it('logs what failed and that `sluice status` shows what is open, and exits EXIT_STOP_FAILED (no unhandled rejection)', async () => {
    sim = await startSimServer({ seed: 7, apiKey: API_KEY, apiSecret: API_SECRET, cancelSettleMs: 0 });
    dir = mkdtempSync(join(tmpdir(), 'sluice-stopfail-'));
    const journalPath = join(dir, 'journal.db');
    const config = join(dir, 'live.yaml');
    writeFileSync(
      config,
      `mode: live
venue: { spotUrl: "${sim.url}" }
journal: { path: ${journalPath} }
log: { level: info, pretty: false }
engine: { marketDataEveryMs: 100, reconcileEveryMs: 60000, summaryEveryMs: 600000, shutdown: { queued: drop, cancelOpenOrders: false } }
strategies:
  - { id: talk, use: test/fixtures/plugins/talker.ts, symbols: [BTCUSDT] }
`,
    );
    child = spawn(process.execPath, [BIN, 'run', '--config', config], { cwd: ROOT, env: childEnv({ apiKey: API_KEY, apiSecret: API_SECRET }), stdio: ['ignore', 'pipe', 'pipe'] });
    const daemon = new DaemonProcess(child);
    await daemon.waitFor((l) => l.msg === 'running; Ctrl-C stops', 'running');

    // Another writer holds the journal: every write of the daemon's from here on fails.
    holder = new Database(journalPath);
    holder.exec('BEGIN IMMEDIATE');
    const from = daemon.mark();
    child.kill('SIGTERM');
    const code = await daemon.exited;

    expect(daemon.stderr).not.toMatch(/unhandled|UnhandledPromiseRejection/i);
    expect(code, `${daemon.stdout}\n${daemon.stderr}`).toBe(EXIT_STOP_FAILED);
    expect(EXIT_STOP_FAILED).not.toBe(EXIT_UNSETTLED);
    const failed = daemon.lines.slice(from).find((l) => l.exitCode === EXIT_STOP_FAILED);
    expect(failed, daemon.stdout).toBeDefined();
    expect(failed!.level).toBe(50);
    expect(failed!.err).toMatch(/journal/i);
    expect(failed!.msg).toMatch(/^the stop failed before it finished: .*Run `sluice status` to see what is open/);
    // The failure is the last word, after the ops endpoint and alerts are done with.
    expect(daemon.lines.at(-1)).toBe(failed);
  }, 60_000);
});
