// The kill switch as an operator works it: `kill -USR2 <pid>` and the kill-switch file, on the
// daemon as a real child process (paper mode). Every step waits on the daemon's own log lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, DaemonProcess, type LogLine } from '../fixtures/daemon-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/sluice.js');

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

const rejectedBy = (rule: string) => (l: LogLine) => l.msg === 'intent rejected' && l.rule === rule;
const orderOpen = (l: LogLine) => l.msg === 'pinger order open';

async function startDaemon(killFile: string): Promise<DaemonProcess> {
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
  child = spawn(process.execPath, [BIN, 'run', '--config', config], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const daemon = new DaemonProcess(child);
  await daemon.waitFor((l) => l.msg === 'running; Ctrl-C stops', 'running');
  // Trading: an order got through before any switch is touched.
  await daemon.waitFor(orderOpen, 'a first order');
  return daemon;
}

async function stop(daemon: DaemonProcess): Promise<void> {
  daemon.child.kill('SIGTERM');
  expect(await daemon.exited).toBe(0);
}

describe('kill switch by signal', () => {
  it('SIGUSR2 halts (new places rejected by kill_switch), a second SIGUSR2 restores trading', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-kill-'));
    const daemon = await startDaemon(join(dir, 'KILL'));
    expect(daemon.lines.some(rejectedBy('kill_switch'))).toBe(false);

    let from = daemon.mark();
    daemon.child.kill('SIGUSR2');
    const toggled = await daemon.waitFor((l: LogLine) => l.msg === 'kill switch toggled by SIGUSR2', 'the toggle', from);
    expect(toggled.killSwitch).toBe('halted');
    from = daemon.lines.indexOf(toggled);
    const rejected = await daemon.waitFor(rejectedBy('kill_switch'), 'a kill_switch rejection', from);
    expect(rejected).toMatchObject({ strategy: 'ping', reason: 'kill_switch: trading is halted; no new orders until the kill switch is released' });
    // Halted: every place after the toggle is rejected, none is acknowledged.
    const rejectedAt = daemon.lines.indexOf(rejected);
    await daemon.waitFor(rejectedBy('kill_switch'), 'a second kill_switch rejection', rejectedAt + 1);
    expect(daemon.lines.slice(rejectedAt).some(orderOpen)).toBe(false);

    from = daemon.mark();
    daemon.child.kill('SIGUSR2');
    const restored = await daemon.waitFor((l: LogLine) => l.msg === 'kill switch toggled by SIGUSR2', 'the second toggle', from);
    expect(restored.killSwitch).toBe('off');
    from = daemon.lines.indexOf(restored);
    await daemon.waitFor(orderOpen, 'an order after the restore', from);
    await stop(daemon);
  });
});

describe('kill switch by file', () => {
  it('creating the file halts, reduce_only in it allows only reducing orders, removing it restores the configured mode', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-kill-'));
    const file = join(dir, 'KILL');
    const daemon = await startDaemon(file);
    const changed = (mode: string) => (l: LogLine) => l.msg === 'kill switch changed by its file' && l.killSwitch === mode;

    let from = daemon.mark();
    writeFileSync(file, '');
    const halted = await daemon.waitFor(changed('halted'), 'halted by the file', from);
    expect(halted.file).toBe(file);
    from = daemon.lines.indexOf(halted);
    await daemon.waitFor(rejectedBy('kill_switch'), 'a halted rejection', from);

    writeFileSync(file, 'reduce_only\n');
    const reduce = await daemon.waitFor(changed('reduce_only'), 'reduce-only by the file', from);
    from = daemon.lines.indexOf(reduce);
    // The pinger only buys and holds no position: every buy would grow it, so each is refused.
    const refused = await daemon.waitFor(rejectedBy('kill_switch'), 'a reduce-only rejection', from);
    expect(refused.reason).toMatch(/^kill_switch: reduce-only: BUY 0\.001 BTCUSDT with open buys [\d.]+ would take the position [\d.-]+ to [\d.-]+; only orders that shrink it are allowed$/);
    expect(daemon.lines.slice(from).some(orderOpen)).toBe(false);

    unlinkSync(file);
    const back = await daemon.waitFor(changed('off'), 'the configured mode back', from);
    from = daemon.lines.indexOf(back);
    await daemon.waitFor(orderOpen, 'an order after the file was removed', from);
    await stop(daemon);
  });
});
