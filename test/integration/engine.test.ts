// The engine end to end over real HTTP against the simulated exchange on 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec, type Decimal } from '../../src/core/decimal.js';
import type { Fill, Order } from '../../src/core/types.js';
import { parseConfig } from '../../src/config/index.js';
import { startSimServer } from '../../src/sim/index.js';
import { defineStrategy, z } from '../../src/strategy/api.js';
import { createLogger } from '../../src/app/logger.js';
import { buildApp, type App } from '../../src/app/build.js';
import { deferred, liveApp, type InlineStrategy } from '../fixtures/app.js';
import { daemon } from '../../src/app/profiles.js';

type Started = Awaited<ReturnType<typeof startSimServer>>;
let sim: Started | undefined;
let app: App | undefined;
let dir: string | undefined;
afterEach(async () => {
  await app?.stop().catch(() => undefined);
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  app = undefined;
  sim = undefined;
});

async function start(strategies: InlineStrategy[]) {
  sim = await startSimServer({ port: 0, seed: 7 });
  dir = mkdtempSync(join(tmpdir(), 'sluice-e2e-'));
  const started = await liveApp(sim, join(dir, 'journal.db'), strategies, { risk: { maxOrdersPerSecond: 100 } });
  app = started.app;
  await app.start();
  return { app, sim, lines: started.tap.lines };
}

describe('engine over HTTP against the simulator', () => {
  it('intents become batches, fills reach positions, a throwing plugin is disabled, risk rejects with reasons', async () => {
    const filled = deferred<void>();
    const rejected = deferred<Order>();
    let boughtVolume: Decimal = d('0');
    const heard: { fill: Fill; order: Order }[] = [];
    const taker = defineStrategy({
      apiVersion: 1,
      name: 'taker',
      params: z.object({}),
      create(ctx) {
        let sent = false;
        return {
          onTick() {
            const last = ctx.lastPrice('BTCUSDT');
            if (sent || !last) return;
            sent = true;
            // Twelve marketable limit buys: one batch of 10 and two more.
            const price = dec.truncate(dec.mul(last, d('1.01')), 2);
            // Each a cent apart: identical intents would be suppressed as duplicates.
            for (let i = 0; i < 12; i++) ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: dec.add(price, d(`0.${String(i).padStart(2, "0")}`)), volume: '0.001' });
            // And one far outside the price band.
            ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: dec.truncate(dec.mul(last, d('0.5')), 2), volume: '0.001' });
          },
          onFill(fill: Fill, order: Order) {
            heard.push({ fill, order });
            boughtVolume = dec.add(boughtVolume, fill.volume);
            if (dec.eq(boughtVolume, d('0.012'))) filled.resolve();
          },
          onOrderUpdate(order: Order) {
            if (order.status === 'rejected') rejected.resolve(order);
          },
        };
      },
    });
    let crashes = 0;
    const crasher = defineStrategy({
      apiVersion: 1,
      name: 'crasher',
      params: z.object({}),
      create: () => ({
        onTick() {
          crashes++;
          throw new Error('bug in my plugin');
        },
      }),
    });
    const { app, sim, lines } = await start([
      { id: 'taker', definition: taker, symbols: ['BTCUSDT'], everyMs: 100 },
      { id: 'crasher', definition: crasher, symbols: ['BTCUSDT'], everyMs: 100 },
    ]);
    await filled.promise;
    const rejectedOrder = await rejected.promise;

    expect(app.engine.hosts.find((h) => h.id === 'crasher')!.enabled).toBe(false);
    expect(crashes).toBe(1);
    const position = (app.engine.summary().positions as Record<string, string>)['spot:BTCUSDT']!;
    // Buys are charged their fee in BTC by the venue; the position counts what was bought.
    expect(position).toBe('0.012');

    const accepted = sim.exchange.orderLog();
    expect(accepted).toHaveLength(12);
    expect(new Set(accepted.map((o) => o.clientOrderId)).size).toBe(12);
    // Each fill comes with the order it belongs to: the venue's record of that order names it.
    expect(heard.length).toBeGreaterThanOrEqual(12);
    for (const { fill, order } of heard) {
      expect(order.venueOrderId).toBe(fill.venueOrderId);
      expect(accepted.find((o) => o.orderId === fill.venueOrderId)?.clientOrderId).toBe(order.clientOrderId);
      expect(order.strategyId).toBe('taker');
    }
    const batches = sim.exchange.arrivals().filter((a) => a.endpoint === 'spot.batchOrders');
    expect(batches.length).toBeGreaterThanOrEqual(1);

    expect(rejectedOrder.price).toBeDefined();
    const text = lines.join('');
    expect(text).toMatch(/"rule":"price_band","reason":"price_band: price [\d.]+ is 50(\.\d+)?% from the last price [\d.]+, beyond 5%"/);
    expect(text).toMatch(/"strategy":"crasher","reason":"strategy crasher: onTick threw: bug in my plugin \(at \/[^"]*:\d+:\d+\); the strategy is disabled, the others run on","stack":"Error: bug in my plugin\\n/);
    expect(text).not.toContain(sim.apiSecret);
  });
});

describe('restart', () => {
  it('rebuilds positions from the fills in the journal in prepare(), before any strategy runs', async () => {
    const { MemoryJournal } = await import('../../src/store/memory.js');
    const journal = new MemoryJournal();
    const base = { market: 'spot' as const, symbol: 'BTCUSDT', venueOrderId: '1' as never, fee: d('0'), feeAsset: 'USDT', isMaker: true, time: 1 };
    journal.recordFill({ ...base, tradeId: '10', side: 'BUY', price: d('100'), volume: d('0.75') });
    journal.recordFill({ ...base, tradeId: '11', side: 'SELL', price: d('110'), volume: d('0.25') });
    const { config } = await parseConfig('mode: paper\n', { env: {} });
    const quiet = new Writable({ write: (_c, _e, done) => done() });
    const restarted = buildApp({ config, profile: daemon(config), strategies: [], log: createLogger({ level: 'warn', pretty: false, secrets: [], destination: quiet }), journal });
    expect(restarted.engine.summary()).toMatchObject({ positions: {} });
    await restarted.engine.prepare();
    expect(restarted.engine.summary()).toMatchObject({ positions: { 'spot:BTCUSDT': '0.5' }, realizedPnl: '2.5' });
  });
});
