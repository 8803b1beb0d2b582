// The daemon's ops endpoint and alerts as an operator meets them: `sluice run` as a child
// process in paper mode with `http.enabled` on a free port, and a webhook receiver in the test.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, DaemonProcess, WebhookReceiver } from '../fixtures/daemon-process.js';
import { dec, type Decimal } from '../../src/core/decimal.js';
import type { OpsStatus } from '../../src/ops/index.js';

type Status = OpsStatus;

/** The first message of the dashboard's event stream (everything kept, and the state of that moment). */
async function firstEvent<T>(url: string): Promise<T> {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
  controller.abort();
  return JSON.parse(text.slice(0, text.indexOf('\n\n')).replace(/^data: /, '')) as T;
}

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/sluice.js');

let dir: string | undefined;
let daemon: DaemonProcess | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  if (daemon && daemon.child.exitCode === null) {
    daemon.child.kill('SIGKILL');
    await daemon.exited;
  }
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  daemon = undefined;
  receiver = undefined;
});

describe('sluice run with http.enabled (paper)', () => {
  it('serves /healthz (503 starting, then 200), /metrics with real endpoints, alerts a SIGUSR2 halt by webhook, and closes on SIGTERM', async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    dir = mkdtempSync(join(tmpdir(), 'sluice-ops-'));
    const configPath = join(dir, 'ops.yaml');
    // Simulated network delay makes start-up (clock sync, instruments, reconcile) take a few
    // hundred ms, so the endpoint is seen answering "starting" before the engine is ready.
    writeFileSync(
      configPath,
      `
mode: paper
sim: { seed: 3, latencyMs: { min: 150, max: 150 } }
log: { level: info, pretty: false }
engine: { summaryEveryMs: 200 }
http: { enabled: true, port: 0 }
alerts: { webhookUrl: "${receiver.url}", minIntervalMs: 0 }
strategies:
  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { spacingPct: "0.01" } }
`,
    );
    daemon = new DaemonProcess(spawn(process.execPath, [BIN, 'run', '--config', configPath], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] }));

    const listening = await daemon.waitFor((l) => typeof l.url === 'string' && /^ops endpoint listening/.test(l.msg), 'the ops endpoint');
    const url = listening.url as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(url).port)).toBeGreaterThan(0);

    const starting = await fetch(`${url}/healthz`);
    expect(starting.status).toBe(503);
    expect(await starting.json()).toMatchObject({ status: 'starting', reasons: expect.arrayContaining([expect.stringMatching(/^starting/)]) });

    await daemon.waitFor((l) => l.msg === 'running; Ctrl-C stops', 'running');
    const ok = await fetch(`${url}/healthz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ok' });

    const metrics = await (await fetch(`${url}/metrics`)).text();
    for (const endpoint of ['spot.time', 'spot.symbols', 'spot.openOrders', 'spot.myTrades', 'spot.account']) {
      const m = new RegExp(`^sluice_venue_requests_total\\{endpoint="${endpoint.replace('.', '\\.')}"\\} (\\d+)$`, 'm').exec(metrics);
      expect(m, `${endpoint} in\n${metrics}`).not.toBeNull();
      expect(Number(m![1])).toBeGreaterThan(0);
    }
    expect(metrics).toMatch(/^sluice_ready 1$/m);
    expect(metrics).toMatch(/^sluice_limiter_limit\{endpoint="spot\.order"\} 100$/m);

    const status = (await (await fetch(`${url}/status.json`)).json()) as { mode: string; strategies: unknown[] };
    expect(status.mode).toBe('paper');
    expect(status.strategies).toEqual([{ id: 'grid1', enabled: true }]);

    // Intent-to-ack latency: once an order shows as acknowledged (open) in status.json, its
    // latency is in the histogram. Checked at each summary line, not on a timer.
    for (let n = 0; ; n++) {
      const s = (await (await fetch(`${url}/status.json`)).json()) as { openOrders: { status: string }[] };
      if (s.openOrders.some((o) => o.status === 'open')) break;
      const count = daemon.lines.filter((l) => l.msg === 'summary').length;
      await daemon.waitFor((l) => l.msg === 'summary' && daemon!.lines.filter((x) => x.msg === 'summary').length > count, 'the next summary');
      expect(n, 'no order acknowledged after 50 summaries').toBeLessThan(50);
    }
    const acked = /^sluice_intent_to_ack_ms_count (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text());
    expect(Number(acked?.[1])).toBeGreaterThan(0);

    // The dashboard's data is the engine's: fills from the journal add up to the position, orders
    // carry their journal time, the limiter counts what left, and the charts have samples.
    type Dash = {
      status: Status;
      history: { full: boolean; prices: Record<string, { at: number; value: string }[]>; equity: { value: string }[]; realized: { value: string }[] };
    };
    let dash: Dash;
    for (let n = 0; ; n++) {
      dash = await firstEvent(`${url}/events`);
      if (dash.status.fills.length > 0 && (dash.history.prices['spot:BTCUSDT']?.length ?? 0) > 0 && dash.history.equity.length > 0) break;
      const count = daemon.lines.filter((l) => l.msg === 'summary').length;
      await daemon.waitFor((l) => l.msg === 'summary' && daemon!.lines.filter((x) => x.msg === 'summary').length > count, 'the next summary');
      expect(n, 'no fill and no samples after 100 summaries').toBeLessThan(100);
    }
    const s = dash.status;
    expect(dash.history.full).toBe(true);
    const signed = s.fills.filter((f) => f.symbol === 'BTCUSDT').map((f) => (f.side === 'BUY' ? (f.volume as Decimal) : dec.neg(f.volume as Decimal)));
    // Fills and position from one message, so one moment (paper mode starts flat: every fill is in the list).
    expect(dec.eq(dec.sum(signed), (s.positions.find((p) => p.symbol === 'BTCUSDT')?.quantity ?? '0') as Decimal)).toBe(true);
    for (const f of s.fills) expect(f).toMatchObject({ market: 'spot', symbol: 'BTCUSDT', price: expect.stringMatching(/^\d+(\.\d+)?$/), volume: expect.stringMatching(/^\d+(\.\d+)?$/) });
    for (const o of s.openOrders) expect(o.createdAt).toBeLessThanOrEqual(s.now);
    expect(s.limiter['spot.openOrders']!.requests).toBeGreaterThan(0);
    expect(s.limiter['spot.order']!.requests).toBeGreaterThan(0);
    expect(s.limiter['futures.order']!.requests).toBe(0);
    expect(s.quoteAsset).toBe('USDT');
    for (const p of [...dash.history.prices['spot:BTCUSDT']!, ...dash.history.equity, ...dash.history.realized]) expect(p.value).toMatch(/^-?\d+(\.\d+)?$/);

    // The kill switch by signal: a halt alert reaches the webhook and health turns unhealthy.
    daemon.child.kill('SIGUSR2');
    const halt = await receiver.next('halt');
    expect(halt.message).toMatch(/halted by SIGUSR2/);
    expect(halt.details).toMatchObject({ killSwitch: 'halted', by: 'SIGUSR2' });
    const unhealthy = await fetch(`${url}/healthz`);
    expect(unhealthy.status).toBe(503);
    expect(await unhealthy.json()).toMatchObject({ status: 'unhealthy', reasons: ['kill switch is halted'] });
    expect((await (await fetch(`${url}/metrics`)).text())).toMatch(/^sluice_halted 1$/m);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(daemon.lines.map((l) => l.msg)).toContain('ops endpoint closed and every alert delivered');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    // Exactly the one alert: nothing else went wrong in this run.
    expect(receiver.alerts.map((a) => a.kind)).toEqual(['halt']);
  }, 60_000);
});
