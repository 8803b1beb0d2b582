// A fill the venue shows late, of an order that was final before the stop began (a MARKET order
// answered filled), is journaled before the daemon exits: the stop's settling passes wait for it
// (up to drift.graceMs) though no order of ours is open. The engine on the in-process simulator,
// every fill shown 2 s late, a manual clock.
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientOrderId } from '../../../src/core/ids.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

describe('a stop after a market order answered filled, its trade not shown yet', () => {
  it('journals the fill before it ends', async () => {
    const ids: ClientOrderId[] = [];
    const strategy = defineStrategy({
      apiVersion: 1,
      name: 'mk',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          if (ids.length === 0 && ctx.lastPrice('BTCUSDT')) ids.push(ctx.place({ symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', volume: '0.01' }));
        },
      }),
    });
    running = await engineApp(
      `
mode: paper
sim: { faults: { lateFillRate: 1, lateFillDelayMs: 2000 } }
engine: { marketDataEveryMs: 100, reconcileEveryMs: 5000, summaryEveryMs: 600000, shutdown: { queued: drop, cancelOpenOrders: true } }
`,
      [loaded('mk', strategy, { everyMs: 100 })],
    );
    const { app, clock } = running;
    void app.start();
    // On the manual clock, 50 ms at a time, until the sell is answered filled.
    for (let t = SIM_START; t < SIM_START + 30_000 && !(ids[0] && app.journal.order(ids[0])?.status === 'filled'); t += 50) await runUntil(clock, t);
    const order = app.journal.order(ids[0]!)!;
    expect([order.status, order.executedVolume, app.journal.fills().length]).toEqual(['filled', '0.01', 0]);

    const stopAt = clock.now();
    await drive(clock, app.stop());
    running = undefined;
    expect(app.journal.fills().map((f) => [f.venueOrderId, f.volume])).toEqual([[order.venueOrderId, '0.01']]);
    // The fill shows 2 s after it was booked; the grace (10 s) is not run out.
    expect(clock.now() - stopAt).toBeLessThan(10_000);
  });
});
