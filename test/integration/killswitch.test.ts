// The kill switch as an operator works it: `kill -USR2 <pid>` and the kill-switch file, on the
// daemon as a real child process (paper mode). Every step waits on the daemon's own log lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/sluice.js');

interface Line {
  msg: string;
  killSwitch?: string;
  rule?: string;
  reason?: string;
  strategy?: string;
  file?: string;
  [k: string]: unknown;
}

let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  child = undefined;
  dir = undefined;
});

function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.SLUICE_API_KEY;
  delete env.SLUICE_API_SECRET;
  return env;
}

/** The daemon's JSON log, line by line; `next` waits for the first matching line after a mark. */
class Daemon {
  readonly lines: Line[] = [];
  private waiters: { from: number; match: (l: Line) => boolean; resolve: (l: Line) => void }[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(readonly proc: ChildProcess) {
    proc.stderr!.on('data', (c: Buffer) => (this.stderr += String(c)));
    this.exited = new Promise((r) => proc.on('exit', (code) => r(code)));
    createInterface({ input: proc.stdout! }).on('line', (text) => {
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        return;
      }
      this.lines.push(line);
      const index = this.lines.length - 1;
      this.waiters = this.waiters.filter((w) => {
        if (index < w.from || !w.match(line)) return true;
        w.resolve(line);
        return false;
      });
    });
  }

  /** Index of the next line to arrive: lines from here on are "after" what the test just did. */
  mark(): number {
    return this.lines.length;
  }

  next(match: (l: Line) => boolean, from = 0, what = 'a log line'): Promise<Line> {
    const seen = this.lines.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.waiters.push({ from, match, resolve });
      void this.exited.then(() => reject(new Error(`the daemon exited before ${what}:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\n${this.stderr}`)));
    });
  }
}

const rejectedBy = (rule: string) => (l: Line) => l.msg === 'intent rejected' && l.rule === rule;
const orderOpen = (l: Line) => l.msg === 'pinger order open';

async function startDaemon(killFile: string): Promise<Daemon> {
  dir ??= mkdtempSync(join(tmpdir(), 'sluice-kill-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `mode: paper
log: { level: info, pretty: false }
engine: { marketDataEveryMs: 100, summaryEveryMs: 60000 }
risk:
  killSwitch: { mode: off, file: ${killFile} }
strategies:
  - { id: ping, use: test/fixtures/plugins/pinger.ts, symbols: [BTCUSDT], everyMs: 100 }
`,
  );
  child = spawn(process.execPath, [BIN, 'run', '--config', config], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const daemon = new Daemon(child);
  await daemon.next((l) => l.msg === 'running; Ctrl-C stops', 0, 'running');
  // Trading: an order got through before any switch is touched.
  await daemon.next(orderOpen, 0, 'a first order');
  return daemon;
}

async function stop(daemon: Daemon): Promise<void> {
  daemon.proc.kill('SIGTERM');
  expect(await daemon.exited).toBe(0);
}

describe('kill switch by signal', () => {
  it('SIGUSR2 halts (new places rejected by kill_switch), a second SIGUSR2 restores trading', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-kill-'));
    const daemon = await startDaemon(join(dir, 'KILL'));
    expect(daemon.lines.some(rejectedBy('kill_switch'))).toBe(false);

    let from = daemon.mark();
    daemon.proc.kill('SIGUSR2');
    const toggled = await daemon.next((l) => l.msg === 'kill switch toggled by SIGUSR2', from, 'the toggle');
    expect(toggled.killSwitch).toBe('halted');
    from = daemon.lines.indexOf(toggled);
    const rejected = await daemon.next(rejectedBy('kill_switch'), from, 'a kill_switch rejection');
    expect(rejected).toMatchObject({ strategy: 'ping', reason: 'kill_switch: trading is halted; no new orders until the kill switch is released' });
    // Halted: every place after the toggle is rejected, none is acknowledged.
    const rejectedAt = daemon.lines.indexOf(rejected);
    await daemon.next(rejectedBy('kill_switch'), rejectedAt + 1, 'a second kill_switch rejection');
    expect(daemon.lines.slice(rejectedAt).some(orderOpen)).toBe(false);

    from = daemon.mark();
    daemon.proc.kill('SIGUSR2');
    const restored = await daemon.next((l) => l.msg === 'kill switch toggled by SIGUSR2', from, 'the second toggle');
    expect(restored.killSwitch).toBe('off');
    from = daemon.lines.indexOf(restored);
    await daemon.next(orderOpen, from, 'an order after the restore');
    await stop(daemon);
  });
});

describe('kill switch by file', () => {
  it('creating the file halts, reduce_only in it allows only reducing orders, removing it restores the configured mode', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-kill-'));
    const file = join(dir, 'KILL');
    const daemon = await startDaemon(file);
    const changed = (mode: string) => (l: Line) => l.msg === 'kill switch changed by its file' && l.killSwitch === mode;

    let from = daemon.mark();
    writeFileSync(file, '');
    const halted = await daemon.next(changed('halted'), from, 'halted by the file');
    expect(halted.file).toBe(file);
    from = daemon.lines.indexOf(halted);
    await daemon.next(rejectedBy('kill_switch'), from, 'a halted rejection');

    writeFileSync(file, 'reduce_only\n');
    const reduce = await daemon.next(changed('reduce_only'), from, 'reduce-only by the file');
    from = daemon.lines.indexOf(reduce);
    // The pinger only buys and holds no position: every buy would grow it, so each is refused.
    const refused = await daemon.next(rejectedBy('kill_switch'), from, 'a reduce-only rejection');
    expect(refused.reason).toMatch(/^kill_switch: reduce-only: BUY 0\.001 BTCUSDT with open buys [\d.]+ would take the position [\d.-]+ to [\d.-]+; only orders that shrink it are allowed$/);
    expect(daemon.lines.slice(from).some(orderOpen)).toBe(false);

    unlinkSync(file);
    const back = await daemon.next(changed('off'), from, 'the configured mode back');
    from = daemon.lines.indexOf(back);
    await daemon.next(orderOpen, from, 'an order after the file was removed');
    await stop(daemon);
  });
});
