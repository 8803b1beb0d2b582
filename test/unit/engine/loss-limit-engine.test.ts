// The daily loss limit through the whole engine on the in-process simulator (a manual clock): a
// losing strategy hits strategies[].lossLimit.daily; its resting order is cancelled, an alert
// goes, a new buy is refused with the reason (the strategy hears it), a sell that reduces its
// position still goes; a restart the same UTC day keeps the block; after midnight UTC it buys again.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { AlertKind } from '../../../src/core/types.js';
import type { SimExchange } from '../../../src/sim/index.js';
import { createDaemonOpsSource, VenueWatch } from '../../../src/app/ops-source.js';
import { defineStrategy, z, type OrderRequest } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

const yaml = `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 500, summaryEveryMs: 600000 }
risk: { duplicateWindowMs: 0, maxOrdersPerSecond: 100, priceBandPct: "50" }
strategies:
  - { id: loser, use: inline:loser, symbols: [BTCUSDT], everyMs: 250 }
`;

function priceAt(sim: SimExchange, price: string): void {
  const p = d(price);
  sim.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [[dec.sub(p, d('1')), '50']], asks: [[dec.add(p, d('1')), '50']] });
  sim.applyMarketEvent({ type: 'trade', symbol: 'BTCUSDT', price: p, qty: '0.001', side: 'SELL' });
}

/** Buys 0.01 (a crossing limit), then rests a far BUY; places `want` on its next tick. */
function loser() {
  const state = { bought: false, rested: false, want: undefined as ((last: string) => OrderRequest | OrderRequest[]) | undefined, placed: [] as ClientOrderId[], heard: [] as string[] };
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'loser',
    params: z.object({}),
    create: (ctx) => ({
      onTick() {
        const last = ctx.lastPrice('BTCUSDT');
        if (!last) return;
        if (!state.bought) {
          state.bought = true;
          state.placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.01', price: dec.truncate(dec.mul(last, d('1.002')), 2) }));
        } else if (!state.rested) {
          state.rested = true;
          state.placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d('0.9')), 2) }));
        } else if (state.want) {
          const w = state.want(last);
          state.want = undefined;
          for (const one of [w].flat()) state.placed.push(ctx.place(one));
        }
      },
      onOrderEvent(e) {
        if (e.kind === 'rejected') state.heard.push(`rejected ${e.reason}`);
      },
    }),
  });
  return { definition, state };
}

const farBuy = (last: string): OrderRequest => ({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(d(last), d('0.9')), 2) });
const farSell = (last: string): OrderRequest => ({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', volume: '0.005', price: dec.truncate(dec.mul(d(last), d('1.4')), 2) });

describe('the daily loss limit on the engine', () => {
  it('blocks a losing strategy for the rest of the UTC day: cancels its order, refuses its buy with the reason, lets a reducing sell go, alerts; a restart keeps it; the next day lifts it', async () => {
    const s = loser();
    const alerts: Array<[AlertKind, string]> = [];
    running = await engineApp(yaml, [loaded('loser', s.definition, { everyMs: 250, lossLimit: { daily: d('5') } })], { alert: (kind, message) => alerts.push([kind, message]) });
    const { app, clock, sim, logs } = running;
    priceAt(sim, '20000');
    void app.start();
    await runUntil(clock, SIM_START + 3000);
    const resting = s.state.placed[1]!;
    expect(app.journal.order(s.state.placed[0]!)?.status).toBe('filled');
    expect(app.journal.order(resting)?.status).toBe('open');
    expect(app.engine.lossLimits?.blockedUntil('loser')).toBeUndefined();

    // Down 5% on 0.01 BTC: about -10 plus fees, past the limit of 5.
    priceAt(sim, '19000');
    await runUntil(clock, clock.now() + 2000);
    const midnight = SIM_START + 86_400_000;
    expect(app.engine.lossLimits?.blockedUntil('loser')).toBe(midnight);
    expect(app.journal.order(resting)?.status).toBe('canceled');
    expect(alerts.map(([k]) => k)).toEqual(['loss_limit']);
    expect(alerts[0]![1]).toMatch(/^loser: lost -\d+(\.\d+)? today \(UTC 2026-01-01\), past its daily loss limit of 5: its open orders are cancelled and orders that add to its position are refused until 2026-01-02T00:00:00.000Z$/);
    expect(logs.withMsg('loss limit hit: the strategy opens nothing more today')).toHaveLength(1);
    // The daemon's status (dashboard, ops JSON) says so.
    const ops = createDaemonOpsSource({ config: running.config, app: () => app, now: () => clock.now(), watch: new VenueWatch() });
    expect(ops.status().strategies).toEqual([{ id: 'loser', enabled: true, lossLimitUntil: '2026-01-02T00:00:00.000Z' }]);
    // What a backtest's report lists.
    expect(app.engine.lossLimits?.hits.map((h) => [h.strategy, h.day])).toEqual([['loser', '2026-01-01']]);

    // A new buy: refused, and the strategy hears why.
    s.state.want = farBuy;
    await runUntil(clock, clock.now() + 1000);
    expect(s.state.heard).toHaveLength(1);
    expect(s.state.heard[0]).toMatch(/^rejected lossLimit: loser lost -\d+(\.\d+)? today, past its daily loss limit of 5; orders that add to its position are refused until 2026-01-02T00:00:00.000Z \(only reducing ones go\)$/);
    expect(app.journal.order(s.state.placed.at(-1)!)?.status).toBe('rejected');
    // A sell of part of what it holds: goes.
    s.state.want = farSell;
    await runUntil(clock, clock.now() + 1000);
    expect(app.journal.order(s.state.placed.at(-1)!)?.status).toBe('open');
    expect(s.state.heard).toHaveLength(1);
    // A second such sell, with the first still working, would sell past what it holds: refused.
    s.state.want = farSell;
    await runUntil(clock, clock.now() + 1000);
    expect(s.state.heard).toHaveLength(2);
    expect(s.state.heard[1]).toMatch(/^rejected lossLimit: loser lost /);
    // Two sells in one tick that each fit beside the working one but together pass the holding
    // (0.01 less its fee in BTC): the first goes, the second is refused.
    const smallSell = (last: string): OrderRequest => ({ ...farSell(last), volume: '0.003' });
    s.state.want = (last) => [smallSell(last), smallSell(last)];
    await runUntil(clock, clock.now() + 1000);
    expect(app.journal.order(s.state.placed.at(-2)!)?.status).toBe('open');
    expect(app.journal.order(s.state.placed.at(-1)!)?.status).toBe('rejected');
    expect(s.state.heard).toHaveLength(3);
    expect(s.state.heard[2]).toMatch(/^rejected lossLimit: loser lost /);

    // A restart the same day: still blocked.
    await drive(clock, app.stop());
    running = await engineApp(yaml, [loaded('loser', s.definition, { everyMs: 250, lossLimit: { daily: d('5') } })], { restartOf: running, alert: (kind, message) => alerts.push([kind, message]) });
    void running.app.start();
    await runUntil(clock, clock.now() + 2000);
    expect(running.app.engine.lossLimits?.blockedUntil('loser')).toBe(midnight);
    s.state.want = farBuy;
    await runUntil(clock, clock.now() + 1000);
    expect(s.state.heard).toHaveLength(4);
    expect(running.app.journal.order(s.state.placed.at(-1)!)?.status).toBe('rejected');
    expect(alerts).toHaveLength(1);

    // After midnight UTC (the engine stopped over the night: the clock jumps), it buys again.
    await drive(clock, running.app.stop());
    await clock.advanceTo(midnight + 1000);
    running = await engineApp(yaml, [loaded('loser', s.definition, { everyMs: 250, lossLimit: { daily: d('5') } })], { restartOf: running });
    void running.app.start();
    await runUntil(clock, clock.now() + 2000);
    expect(running.app.engine.lossLimits?.blockedUntil('loser')).toBeUndefined();
    const app2 = running.app;
    expect(createDaemonOpsSource({ config: running.config, app: () => app2, now: () => clock.now(), watch: new VenueWatch() }).status().strategies).toEqual([{ id: 'loser', enabled: true }]);
    expect(running.logs.withMsg('loss limit lifted: a new UTC day; the strategy may open positions again')).toHaveLength(1);
    s.state.want = farBuy;
    await runUntil(clock, clock.now() + 1000);
    expect(running.app.journal.order(s.state.placed.at(-1)!)?.status).toBe('open');
    expect(s.state.heard).toHaveLength(4);
  });
});
