// The kill switch, bans and the venue's rate window, on the contract's letter (the simulator's
// strict profile): a halt stops what is queued too, a ban heard on a read is journaled, drift
// and the operator compose, and a restart never exceeds a window the venue still counts. Each
// case failed on the engine before the strict profile existed.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { WINDOW_MS } from '../../src/exchange/endpoints.js';
import { createExchangeClient } from '../../src/app/client.js';
import type { Arrival } from '../../src/sim/index.js';
import { defineStrategy, z } from '../../src/strategy/api.js';
import { childEnv, DaemonProcess } from '../fixtures/daemon-process.js';
import { rigApp, passes, strictRig, untilReconciled, type StrictRig } from '../fixtures/strict-venue.js';

let rig: StrictRig | undefined;
let daemon: DaemonProcess | undefined;
// A rig stopped with a lost answer open (the killed daemon's order in flight) settles it first:
// up to reconcile.unknownTimeoutMs and drift.graceMs (30 + 10 s by default) before it is given up.
afterEach(async () => {
  daemon?.child.kill('SIGKILL');
  await daemon?.exited;
  daemon = undefined;
  await rig?.close();
  rig = undefined;
}, 60_000);

const ROOT = resolve(import.meta.dirname, '../..');
const SYMBOL = 'BTCUSDT';
const freeze = (r: StrictRig) => r.sim.exchange.applyMarketEvent({ type: 'book', symbol: SYMBOL, bids: [['29990', '5']], asks: [['30010', '5']] });

/** Places `n` resting buys on its first tick with a price. */
const burst = (n: number) =>
  defineStrategy({
    apiVersion: 1,
    name: 'burst',
    params: z.object({}),
    create(ctx) {
      let done = false;
      return {
        onTick() {
          if (done || !ctx.lastPrice(SYMBOL)) return;
          done = true;
          for (let i = 0; i < n; i++) ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: `2998${i % 10}`, volume: '0.001' });
        },
      };
    },
  });

/** The most requests of one key on one endpoint inside any rolling window of the venue. */
function busiestWindow(arrivals: readonly Arrival[], endpoint: string): number {
  const times = arrivals.filter((a) => a.endpoint === endpoint && a.status !== 429 && a.status !== 418).map((a) => a.at);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= WINDOW_MS) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('the kill switch', () => {
  it('is enforced when a request leaves: after a halt, queued orders are not sent (cancels still are)', async () => {
    rig = await strictRig();
    freeze(rig);
    // Room for 5 single orders and 2 batches per 2 s: most of the 100 wait in the queue.
    const { app } = await rigApp(rig, [{ id: 'burst', definition: burst(100), symbols: [SYMBOL] }], { venue: { limits: { 'spot.order': 5, 'spot.batchOrders': 2 } }, engine: { maxQueueMs: 60000 } });
    await app.start();
    await untilReconciled(app, () => rig!.sim.exchange.orderLog().length > 0);
    app.riskGate.setKillSwitch('halted');
    const haltedAt = rig.sim.exchange.now();
    const sentBefore = rig.sim.exchange.orderLog().length;
    await passes(app, 30);
    expect(sentBefore).toBeLessThan(100);
    expect(rig.sim.exchange.orderLog().filter((o) => o.at > haltedAt + 50)).toEqual([]);
    // The ones never sent are final for their strategy, with the reason.
    const dropped = app.journal.orders().filter((o) => o.status === 'canceled');
    expect(dropped.length).toBeGreaterThan(0);
    expect(app.journal.history(dropped[0]!.clientOrderId).at(-1)!.reason).toMatch(/kill switch/);
  });

  it('drift and the operator compose: the stricter holds, so toggling SIGUSR2 off again does not lift drift\'s reduce-only', async () => {
    rig = await strictRig();
    freeze(rig);
    const { app, tap } = await rigApp(rig, [{ id: 'burst', definition: burst(1), symbols: [SYMBOL] }], { reconcile: { drift: { graceMs: 0 } } });
    await app.start();
    await untilReconciled(app, () => app.engine.reconciler.lastDrift.length > 0);
    const hand = createExchangeClient({ spotUrl: rig.sim.url, credentials: { apiKey: rig.sim.apiKey, apiSecret: rig.sim.apiSecret } });
    await hand.start();
    await hand.executor.call('spot.order', { symbol: SYMBOL, side: 'BUY', type: 'MARKET', volume: d('100') });
    await hand.close();
    await tap.waitFor(/position drift/);
    expect(app.riskGate.killSwitch()).toBe('reduce_only');
    expect(app.riskGate.toggleHalt()).toBe('halted');
    expect(app.riskGate.toggleHalt()).toBe('reduce_only');
    await passes(app, 2);
    expect(app.riskGate.killSwitch()).toBe('reduce_only');
  });
});

describe('bans', () => {
  it('a 418 heard on a read is journaled, so a restart waits it out', async () => {
    const start = Date.now();
    rig = await strictRig({ troubles: [{ kind: 'ban', from: start + 1500, until: start + 600_000 }] });
    const idle = defineStrategy({ apiVersion: 1, name: 'idle', params: z.object({}), create: () => ({}) });
    const { app } = await rigApp(rig, [{ id: 'idle', definition: idle, symbols: [SYMBOL] }]);
    await app.start();
    await untilReconciled(app, () => rig!.sim.exchange.arrivals().some((a) => a.status === 418));
    expect(rig.sim.exchange.arrivals().filter((a) => a.status === 418).every((a) => !['spot.order', 'spot.batchOrders', 'spot.cancel', 'spot.batchCancel'].includes(a.endpoint))).toBe(true);
    expect(app.journal.banUntil()).toBeGreaterThanOrEqual(start + 600_000);
  });
});

describe('a restart', () => {
  it('never exceeds a window the venue is still counting: after kill -9, the new daemon waits before it reads', async () => {
    rig = await strictRig();
    const config = join(rig.dir, 'run.yaml');
    writeFileSync(
      config,
      `mode: live
venue: { spotUrl: "${rig.sim.url}" }
strategies: [{ id: idle, use: ${join(ROOT, 'test/fixtures/plugins/pinger.ts')}, symbols: [BTCUSDT], everyMs: 60000 }]
engine: { summaryEveryMs: 60000 }
journal: { path: "${rig.journalPath}" }
log: { level: info, pretty: false }
`,
    );
    const env = childEnv({ apiKey: rig.sim.apiKey, apiSecret: rig.sim.apiSecret });
    daemon = new DaemonProcess(spawn(process.execPath, [join(ROOT, 'bin/sluice.js'), 'run', '--config', config], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    await daemon.waitFor((l) => l.msg === 'running; Ctrl-C stops', 'running');
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    daemon = undefined;
    // What the dead daemon sent in its last moment, as the venue counts it (same key): the
    // open-orders window full.
    const last = createExchangeClient({ spotUrl: rig.sim.url, credentials: { apiKey: rig.sim.apiKey, apiSecret: rig.sim.apiSecret }, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    await last.start();
    await Promise.allSettled(Array.from({ length: 20 }, () => last.executor.call('spot.openOrders', { symbol: SYMBOL })));
    await last.close();
    const restartAt = rig.sim.exchange.now();
    const idle = defineStrategy({ apiVersion: 1, name: 'idle', params: z.object({}), create: () => ({}) });
    const { app } = await rigApp(rig, [{ id: 'idle', definition: idle, symbols: [SYMBOL] }]);
    await app.start();
    await passes(app, 3);
    const since = rig.sim.exchange.arrivals().filter((a) => a.at >= restartAt);
    expect(since.filter((a) => a.status === 429).map((a) => a.endpoint)).toEqual([]);
    expect(busiestWindow(rig.sim.exchange.arrivals(), 'spot.openOrders')).toBeLessThanOrEqual(20);
    // It waited for the window, not longer than one window and its margin.
    const first = since.find((a) => a.endpoint === 'spot.openOrders')!;
    expect(first.at - restartAt).toBeGreaterThanOrEqual(WINDOW_MS - 100);
  });
});
