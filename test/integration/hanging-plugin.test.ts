// Plugins whose handlers never finish, in `sluice run` and `sluice plan` as real child processes
// (paper mode): each handler has a deadline (engine.handlerTimeoutMs), and a second signal ends
// a stop's waits at once. Every step waits on the daemon's own log lines or its exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

/** A paper config trading the hanger plugin as `stuck` (hanging in `hang`) and `fine`. */
function writeConfig(hang: string, handlerTimeoutMs: number): string {
  dir = mkdtempSync(join(tmpdir(), 'sluice-hang-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `mode: paper
log: { level: info, pretty: false }
http: { enabled: false }
engine: { marketDataEveryMs: 100, summaryEveryMs: 60000, handlerTimeoutMs: ${handlerTimeoutMs}, shutdown: { queued: drop, cancelOpenOrders: true } }
reconcile: { drift: { graceMs: 0 } }
strategies:
  - { id: stuck, use: test/fixtures/plugins/hanger.ts, symbols: [BTCUSDT], everyMs: 100, params: { hang: ${hang} } }
  - { id: fine, use: test/fixtures/plugins/hanger.ts, symbols: [BTCUSDT], everyMs: 100 }
`,
  );
  return config;
}

const is = (msg: string) => (l: LogLine) => l.msg === msg;

describe('sluice run with a plugin whose onStop never finishes', () => {
  it('a second signal during the stop ends it at once: the cancels of the open orders are sent, the journal closed, exit 0', async () => {
    // An hour: only the second signal can end the wait for onStop.
    const config = writeConfig('onStop', 3_600_000);
    child = spawn(process.execPath, [BIN, 'run', '--config', config], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const daemon = new DaemonProcess(child);
    await daemon.waitFor(is('running; Ctrl-C stops'), 'running');
    await daemon.waitFor((l) => l.msg === 'hanger order open' && l.strategy === 'fine', 'an order of fine');
    await daemon.waitFor((l) => l.msg === 'hanger order open' && l.strategy === 'stuck', 'an order of stuck');

    child.kill('SIGINT');
    const stopping = await daemon.waitFor(is('stopping: strategies first, then queued intents and open orders per config'), 'the stop');
    child.kill('SIGTERM');
    await daemon.waitFor(is('stopping at once: handlers still running are abandoned and no more settling passes run; the cancels asked for are still sent, and the next start settles the rest'), 'the hurry', daemon.lines.indexOf(stopping));
    expect(await daemon.exited).toBe(0);

    const disabled = daemon.lines.filter(is('strategy disabled'));
    expect(disabled.map((l) => [l.strategy, l.reason])).toEqual([['stuck', 'strategy stuck: onStop was abandoned unfinished: a second signal hurried the stop; the strategy is disabled, the others run on']]);
    // Both orders' cancels went out: none is left open in the journal's view of the stop.
    // Both orders' cancels went out; no pass waited for the venue to settle them.
    const stopped = daemon.lines.find(is('stopped'))!;
    expect(stopped).toMatchObject({ orders: { sent: 2 }, disabled: ['stuck'] });
    expect((stopped.limiter as Record<string, string>)['spot.cancel']).toMatch(/^2\//);
    expect(daemon.lines.find(is('the stop was hurried: no more settling passes; the next start settles what is left'))).toBeDefined();
    expect(daemon.lines.some(is('stopped; no alert webhook set (alerts.webhookUrl), so no alert was sent'))).toBe(true);
  });

  it('without a second signal, onStop is abandoned at its deadline and the stop finishes, exit 0', async () => {
    const config = writeConfig('onStop', 200);
    child = spawn(process.execPath, [BIN, 'run', '--config', config], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const daemon = new DaemonProcess(child);
    await daemon.waitFor(is('running; Ctrl-C stops'), 'running');
    await daemon.waitFor((l) => l.msg === 'hanger order open' && l.strategy === 'stuck', 'an order of stuck');
    child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(daemon.lines.filter(is('strategy disabled')).map((l) => l.reason)).toEqual([
      'strategy stuck: onStop did not finish within 200 ms (engine.handlerTimeoutMs); nothing waits for it any more; the strategy is disabled, the others run on',
    ]);
    const stopped = daemon.lines.find(is('stopped'))!;
    expect(stopped).toMatchObject({ orders: { sent: 2, open: 0 }, disabled: ['stuck'] });
  });
});

describe('sluice plan with a plugin whose onStart never finishes', () => {
  it('returns at its deadline with the others\' plan, listing it disabled', async () => {
    const config = writeConfig('onStart', 200);
    child = spawn(process.execPath, [BIN, 'plan', '--config', config], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += String(c)));
    const code = await new Promise<number | null>((r) => child!.on('exit', r));
    expect(code).toBe(0);
    expect(out).toMatch(/^plan: 1 intent accepted by risk, 0 rejected, 1 batch \(nothing sent\)$/m);
    expect(out).toMatch(/batch spot BTCUSDT place x1: slfine-\S+ BUY LIMIT 0\.001 BTCUSDT @ \d+/);
    expect(out).toContain('  disabled stuck: strategy stuck: onStart did not finish within 200 ms (engine.handlerTimeoutMs); nothing waits for it any more; the strategy is disabled, the others run on');
  });
});
