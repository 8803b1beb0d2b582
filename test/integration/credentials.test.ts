// The venue refusing the credentials: a start stops saying what to check, and a running daemon
// halts trading with one alert (the design's AuthError is fatal), over real HTTP to the simulator.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthError } from '../../src/core/errors.js';
import { startSimServer } from '../../src/sim/index.js';
import { defineStrategy, z } from '../../src/strategy/api.js';
import type { App } from '../../src/app/build.js';
import { liveApp } from '../fixtures/app.js';

type Started = Awaited<ReturnType<typeof startSimServer>>;
let sim: Started | undefined;
let app: App | undefined;
const dir = mkdtempSync(join(tmpdir(), 'sluice-creds-'));
afterEach(async () => {
  await app?.stop().catch(() => undefined);
  await sim?.close();
  app = undefined;
  sim = undefined;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** No orders to cancel at stop, so no grace for their late fills. */
const QUICK_STOP = { engine: { shutdown: { cancelOpenOrders: false } } };
const started: string[] = [];
const watcher = defineStrategy({
  apiVersion: 1,
  name: 'watcher',
  params: z.object({}),
  create: () => ({ onStart: () => void started.push('watcher') }),
});

describe('refused credentials', () => {
  it('stop the start with what the venue said and what to check; no strategy starts', async () => {
    sim = await startSimServer({ port: 0, seed: 3 });
    const built = await liveApp({ url: sim.url, apiKey: sim.apiKey, apiSecret: 'not-the-secret' }, join(dir, 'journal.db'), [{ id: 'w1', definition: watcher, symbols: ['BTCUSDT'] }], QUICK_STOP);
    app = built.app;
    const err = await app.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).message).toMatch(
      /^spot\.account: the venue refused the credentials \(.*[Ss]ignature.*\): check SLUICE_API_KEY and SLUICE_API_SECRET, and the key's IP whitelist and trading permissions on the venue$/,
    );
    expect(started).toEqual([]);
    expect(app.engine.ready).toBe(false);
  });

  it('halt a running daemon (the kill switch, one alert) when the venue starts refusing the key', async () => {
    let refusing = false;
    // The venue's answer to a key it no longer accepts (an IP whitelist changed, say): -2015.
    const refusal = { code: -2015, msg: 'Invalid API key, IP, or permissions for action.' };
    sim = await startSimServer({ port: 0, seed: 3, rewrite: (endpoint, body) => (refusing && endpoint !== 'spot.time' && endpoint !== 'spot.depth' && endpoint !== 'spot.ticker' ? refusal : body) });
    const alerts: string[] = [];
    const built = await liveApp(sim, join(dir, 'journal2.db'), [{ id: 'w2', definition: watcher, symbols: ['BTCUSDT'] }], QUICK_STOP, (kind, message) => alerts.push(`${kind}: ${message}`));
    app = built.app;
    await app.start();
    expect(app.riskGate.killSwitch()).toBe('off');
    refusing = true;
    await built.tap.waitFor(/trading halted: the venue refused the credentials/);
    expect(app.riskGate.killSwitch()).toBe('halted');
    await built.tap.waitFor(/the venue still refuses the credentials; trading stays halted/);
    expect(alerts).toEqual([
      "halt: trading halted: the venue refused the credentials (spot.account: venue code -2015: Invalid API key, IP, or permissions for action.); check SLUICE_API_KEY and SLUICE_API_SECRET, and the key's IP whitelist and trading permissions on the venue, then lift the halt (SIGUSR2 or the kill-switch file)",
    ]);
  });
});
