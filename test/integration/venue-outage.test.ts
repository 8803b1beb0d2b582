// A venue that stops answering, as an operator meets it: `sluice run` live as a child process
// against the simulator, whose connections all drop from a point on, with a webhook receiver.
// Every step waits on what the daemon logs or posts, never on time.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { childEnv, DaemonProcess, WebhookReceiver } from '../fixtures/daemon-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/sluice.js');
const API_KEY = 'outage-key-1234';
const API_SECRET = 'outage-secret-5678';

let dir: string | undefined;
let sim: SimServer | undefined;
let receiver: WebhookReceiver | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }
  await receiver?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  child = dir = sim = receiver = undefined;
});

async function startDaemon(): Promise<DaemonProcess> {
  sim = await startSimServer({ seed: 5, apiKey: API_KEY, apiSecret: API_SECRET, cancelSettleMs: 0 });
  receiver = new WebhookReceiver();
  await receiver.start();
  dir = mkdtempSync(join(tmpdir(), 'sluice-outage-'));
  const config = join(dir, 'live.yaml');
  writeFileSync(
    config,
    `mode: live
venue: { spotUrl: "${sim.url}", recvWindowMs: 1000, retry: { retries: 1, baseDelayMs: 50, maxDelayMs: 50 } }
journal: { path: ${join(dir, 'journal.db')} }
alerts: { webhookUrl: "${receiver.url}", minIntervalMs: 0 }
log: { level: info, pretty: false }
engine: { marketDataEveryMs: 100, reconcileEveryMs: 200, summaryEveryMs: 60000, shutdown: { queued: drop, cancelOpenOrders: true } }
reconcile: { unknownTimeoutMs: 2500, drift: { graceMs: 200 } }
strategies:
  - { id: ping, use: test/fixtures/plugins/pinger.ts, symbols: [BTCUSDT], everyMs: 100 }
`,
  );
  child = spawn(process.execPath, [BIN, 'run', '--config', config], { cwd: ROOT, env: childEnv({ apiKey: API_KEY, apiSecret: API_SECRET }), stdio: ['ignore', 'pipe', 'pipe'] });
  const daemon = new DaemonProcess(child);
  await daemon.waitFor((l) => l.msg === 'running; Ctrl-C stops', 'running');
  await daemon.waitFor((l) => l.msg === 'pinger order open', 'a resting order');
  return daemon;
}

describe('sluice run when the venue stops answering', () => {
  it('alerts venue_unreachable once as the outage starts and venue_reachable once it answers again, then stops cleanly', async () => {
    const daemon = await startDaemon();
    sim!.exchange.setFaults({ resetRate: 1 });
    const down = await receiver!.next('venue_unreachable');
    expect(down.message).toMatch(/^the venue is unreachable: no answer to the last \d+ requests, over 3 reconcile passes in a row \(its last answer: \d{4}-.+Z\); orders can be neither placed, cancelled nor read until it answers, and sluice keeps trying$/);
    // Its log line too (it may reach us after the webhook's POST: two pipes, no order between them).
    await daemon.waitFor((l) => l.alert === 'venue_unreachable', 'the log line of the venue_unreachable alert');
    sim!.exchange.setFaults({ resetRate: 0 });
    const up = await receiver!.next('venue_reachable');
    expect(up.details.unreachableSince).toBe(down.details.lastOkAt);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    // One of each, however many requests failed in between.
    expect(receiver!.alerts.map((a) => a.kind)).toEqual(['venue_unreachable', 'venue_reachable']);
  }, 60_000);

  it('a stop that cannot cancel our orders sends a stop_unsettled alert naming them before it exits, and exits 3', async () => {
    const daemon = await startDaemon();
    sim!.exchange.setFaults({ resetRate: 1 });
    const from = daemon.mark();
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(3);

    const resting = sim!.exchange.openOrders().spot.map((o) => o.clientOrderId);
    expect(resting.length).toBeGreaterThan(0);
    const alert = receiver!.alerts.find((a) => a.kind === 'stop_unsettled');
    expect(alert, JSON.stringify(receiver!.alerts)).toBeDefined();
    expect(alert!.details).toMatchObject({ symbols: ['BTCUSDT'], reason: 'deadline', cancelOpenOrders: true });
    // Every order still resting at the venue is named (with lost answers, more may be unsettled).
    expect(alert!.details.orders as number).toBeGreaterThanOrEqual(resting.length);
    expect(alert!.details.clientOrderIds).toEqual(expect.arrayContaining(resting));
    expect(alert!.message).toMatch(/^sluice stopped with \d+ orders? of ours that may still be resting at the venue \(.+\) on BTCUSDT: the venue did not settle them within the stop's bound \(is it unreachable\?\)\. Check them with `sluice status`, cancel them on the venue by hand, or start sluice again to reconcile them$/);
    const after = daemon.lines.slice(from).map((l) => l.msg);
    expect(after).toContain('stopped and every alert delivered');
    expect(daemon.lines.slice(from).find((l) => l.exitCode === 3)).toMatchObject({ unsettled: alert!.details.orders });
  }, 60_000);
});
