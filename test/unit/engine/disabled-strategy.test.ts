// A strategy disabled while the engine runs, through the whole engine (the composition root's
// backtest profile: the in-process simulator on a manual clock): its open orders are cancelled
// (engine.onStrategyFailure: cancel, the default), again after reconcile passes while a ban
// outlasts the first cancels, or left resting (leave); another strategy's orders and one placed
// by hand are untouched either way; it is logged, alerted and kept for the report.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { Order } from '../../../src/core/types.js';
import { USER } from '../../../src/sim/index.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

const yaml = (more = '') => `
mode: paper
engine:
  marketDataEveryMs: 100
  reconcileEveryMs: 500
  summaryEveryMs: 600000
  maxQueueMs: 1000
  shutdown: { queued: drop, cancelOpenOrders: false }
${more}
risk:
  maxOrdersPerSecond: 100
`;

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

/** Rests a bid and an ask 3% away; the first tick at or after `throwAt` (ms into the run) with both open throws. */
function thrower(throwAt: number) {
  const ids: ClientOrderId[] = [];
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'thrower',
    params: z.object({}),
    create(ctx) {
      return {
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last) return;
          if (ids.length === 0) {
            ids.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: ctx.roundPrice('BTCUSDT', dec.mul(last, d('0.97')), 'BUY') }));
            ids.push(ctx.place({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', volume: '0.001', price: ctx.roundPrice('BTCUSDT', dec.mul(last, d('1.03')), 'SELL') }));
            return;
          }
          if (ctx.now() >= SIM_START + throwAt && ctx.openOrders().filter((o) => o.status === 'open').length === 2) throw new Error('bug in my requote');
        },
      };
    },
  });
  return { definition, ids };
}

/** Rests one bid 3% under the market and keeps it. */
function steady() {
  const ids: ClientOrderId[] = [];
  const definition = defineStrategy({
    apiVersion: 1,
    name: 'steady',
    params: z.object({}),
    create: (ctx) => ({
      onTick() {
        const last = ctx.lastPrice('BTCUSDT');
        if (last && ids.length === 0) ids.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: ctx.roundPrice('BTCUSDT', dec.mul(last, d('0.96')), 'BUY') }));
      },
    }),
  });
  return { definition, ids };
}

/** Resolves once every one of `ids` has ended cancelled (the engine's own order events). */
function allCanceled(e: EngineApp, ids: () => readonly string[]): Promise<void> {
  return new Promise((resolve) => {
    const done = new Set<string>();
    const on = (o: Order) => {
      if (o.status === 'canceled') done.add(o.clientOrderId);
      if (ids().length > 0 && ids().every((id) => done.has(id))) {
        e.app.engine.events.off('order', on);
        resolve();
      }
    };
    e.app.engine.events.on('order', on);
  });
}

/** Resolves after `n` more reconcile passes. */
function passes(e: EngineApp, n: number): Promise<void> {
  return new Promise((resolve) => {
    let left = n;
    const on = () => {
      if (--left > 0) return;
      e.app.engine.events.off('reconciled', on);
      resolve();
    };
    e.app.engine.events.on('reconciled', on);
  });
}

/** Resolves at the first reconcile pass after a strategy was disabled. */
function untilDisabled(e: EngineApp): Promise<void> {
  return new Promise((resolve) => {
    const on = () => {
      if (e.app.engine.disabledStrategies().length === 0) return;
      e.app.engine.events.off('reconciled', on);
      resolve();
    };
    e.app.engine.events.on('reconciled', on);
  });
}

/** A resting bid placed by hand on the venue before the start (adopted by the start-up reconcile). */
function handOrder(e: EngineApp): string {
  const bid = e.sim.top('BTCUSDT').bid!;
  return e.sim.spot.place(USER, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.001'), price: dec.truncate(dec.mul(bid, d('0.95')), 2) }, e.clock.now()).orderId;
}

describe('a strategy disabled while the engine runs', () => {
  it('has its open orders cancelled through the pipeline; another strategy\'s and one placed by hand rest on; logged, alerted and kept', async () => {
    const t = thrower(1000);
    const s = steady();
    const alerts: Array<[string, string]> = [];
    running = await engineApp(yaml(), [loaded('thrower', t.definition), loaded('steady', s.definition)], { alert: (kind, message) => alerts.push([kind, message]) });
    const e = running;
    const hand = handOrder(e);
    const cancelled = allCanceled(e, () => t.ids);
    void e.app.start();
    await drive(e.clock, cancelled, 20_000);

    for (const id of t.ids) expect(e.app.journal.history(id).map((h) => h.status)).toEqual(['pending', 'open', 'pending_cancel', 'canceled']);
    expect(e.app.journal.order(s.ids[0]!)!.status).toBe('open');
    const adopted = e.app.journal.ordersByVenueId(hand as never);
    expect(adopted.map((o) => [o.strategyId, o.status])).toEqual([['adopted', 'open']]);
    expect(e.sim.openOrders().spot.map((o) => o.orderId).sort()).toEqual([hand, e.app.journal.order(s.ids[0]!)!.venueOrderId].sort());

    const [line] = e.logs.withMsg('strategy disabled');
    expect(line).toMatchObject({ strategy: 'thrower', openOrders: 2, onStrategyFailure: 'cancel' });
    expect(String(line!.reason)).toMatch(/^strategy thrower: onTick threw: bug in my requote \(at .*disabled-strategy\.test\.ts:\d+:\d+\)/);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]![0]).toBe('plugin_disabled');
    expect(alerts[0]![1]).toMatch(/^strategy thrower was disabled: onTick threw: bug in my requote .*; its 2 open orders are cancelled \(engine\.onStrategyFailure: cancel\)$/);
    const [disabled] = e.app.engine.disabledStrategies();
    expect(disabled).toMatchObject({ strategy: 'thrower', openOrders: 'cancel' });
    expect(disabled!.reason).toMatch(/^onTick threw: bug in my requote \(at /);
    expect(disabled!.at).toBeGreaterThanOrEqual(SIM_START + 1000);
    expect(e.app.engine.disabledStrategies()).toHaveLength(1);
    // Asked for the moment it was disabled, not at the next reconcile pass.
    for (const id of t.ids) expect(e.app.journal.history(id).find((h) => h.status === 'pending_cancel')!.at).toBe(disabled!.at);
  });

  it('when a ban outlasts the first cancels, a reconcile pass after it asks again and they go', async () => {
    const t = thrower(1000);
    running = await engineApp(`${yaml()}sim:\n  scenario:\n    - { kind: ban, atMs: 900, durationMs: 4000 }\n`, [loaded('thrower', t.definition)]);
    const e = running;
    const cancelled = allCanceled(e, () => t.ids);
    void e.app.start();
    await drive(e.clock, cancelled, 20_000);
    const [disabled] = e.app.engine.disabledStrategies();
    expect(disabled!.at).toBeLessThan(SIM_START + 4900);
    for (const id of t.ids) {
      const ended = e.app.journal.history(id).at(-1)!;
      expect(ended.status).toBe('canceled');
      expect(ended.at).toBeGreaterThanOrEqual(SIM_START + 4900);
    }
  });

  it('with onStrategyFailure: leave, its orders rest on, and the log and alert say so', async () => {
    const t = thrower(1000);
    const alerts: string[] = [];
    running = await engineApp(yaml('  onStrategyFailure: leave'), [loaded('thrower', t.definition)], { alert: (_kind, message) => alerts.push(message) });
    const e = running;
    void e.app.start();
    await drive(e.clock, untilDisabled(e), 20_000);
    await drive(e.clock, passes(e, 3), 20_000);
    expect(t.ids.map((id) => e.app.journal.order(id)!.status)).toEqual(['open', 'open']);
    expect(e.app.engine.pipeline.stats.cancelsSent).toBe(0);
    expect(e.logs.withMsg('strategy disabled')[0]).toMatchObject({ openOrders: 2, onStrategyFailure: 'leave' });
    expect(alerts[0]).toMatch(/; its 2 open orders are left resting \(engine\.onStrategyFailure: leave\)$/);
    expect(e.app.engine.disabledStrategies()[0]).toMatchObject({ strategy: 'thrower', openOrders: 'leave' });
  });

  it('with no open order, the alert says it had none rather than that 0 are cancelled', async () => {
    const definition = defineStrategy({
      apiVersion: 2,
      name: 'early',
      params: z.object({}),
      create: () => ({
        onTick() {
          throw new Error('bug before any order');
        },
      }),
    });
    const alerts: string[] = [];
    running = await engineApp(yaml(), [loaded('early', definition)], { alert: (_kind, message) => alerts.push(message) });
    const e = running;
    void e.app.start();
    await drive(e.clock, untilDisabled(e), 20_000);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatch(/^strategy early was disabled: onTick threw: bug before any order .*; it had no open order \(engine\.onStrategyFailure: cancel\)$/);
  });
});
