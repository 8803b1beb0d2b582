// Plugin handlers that never finish (they await a promise that never settles): each one gets a
// deadline on the engine clock (engine.handlerTimeoutMs), past which its strategy is disabled
// as a throw would disable it, and nothing else waits for it: not the other strategies, not the
// market-data poll, not a reconcile pass, not the stop. The engine runs on the manual clock.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import { defineStrategy, z, type StrategyHandlers } from '../../../src/strategy/api.js';
import type { StrategyContext } from '../../../src/strategy/index.js';
import { drive, engineApp, loaded, runUntil, settle, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

const yaml = (handlerTimeoutMs = 2000) => `
mode: paper
engine:
  marketDataEveryMs: 100
  reconcileEveryMs: 500
  summaryEveryMs: 60000
  handlerTimeoutMs: ${handlerTimeoutMs}
  shutdown: { queued: drop, cancelOpenOrders: true }
risk:
  maxOrdersPerSecond: 100
`;

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

const never = () => new Promise<void>(() => undefined);

/** A strategy whose handlers are `make(ctx)`, recording what it heard with the engine time. */
function plugin(name: string, make: (ctx: StrategyContext<unknown>, heard: string[]) => StrategyHandlers) {
  const heard: string[] = [];
  const definition = defineStrategy({ apiVersion: 1, name, params: z.object({}), create: (ctx) => make(ctx as StrategyContext<unknown>, heard) });
  return { definition, heard };
}

/** Hears everything; places one LIMIT buy 3% under the last price on its first tick that knows one. */
function listener(name = 'good') {
  const placed: ClientOrderId[] = [];
  const p = plugin(name, (ctx, heard) => ({
    onStart: () => void heard.push('start'),
    onMarketData: (e) => void heard.push(`marketData ${e.kind}`),
    onOrderUpdate: (o) => void heard.push(`order ${o.status}`),
    onStop: () => void heard.push('stop'),
    onTick() {
      heard.push('tick');
      const last = ctx.lastPrice('BTCUSDT');
      if (last && placed.length === 0) placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d('0.97')), 2) }));
    },
  }));
  return { ...p, placed };
}

const count = (heard: readonly string[], what: string) => heard.filter((h) => h === what).length;

function reason(e: EngineApp, id: string): string | undefined {
  return e.app.engine.hosts.find((h) => h.id === id)!.disabledBy?.message;
}

const late = (id: string, handler: string, ms = 2000) =>
  `strategy ${id}: ${handler} did not finish within ${ms} ms (engine.handlerTimeoutMs); nothing waits for it any more; the strategy is disabled, the others run on`;

describe('a plugin handler that never finishes', () => {
  it('onStart: the other strategies start and trade at once; it is disabled at its deadline, and the start then reports running', async () => {
    const stuck = plugin('stuck', (_ctx, heard) => ({ onStart: never, onTick: () => void heard.push('tick') }));
    const good = listener();
    running = await engineApp(yaml(), [loaded('stuck', stuck.definition), loaded('good', good.definition)]);
    const { app, clock, logs } = running;
    let started = false;
    void app.start().then(() => (started = true));
    await runUntil(clock, SIM_START + 1000);

    expect(good.heard.slice(0, 3)).toEqual(['start', 'marketData ticker', 'tick']);
    expect(count(good.heard, 'tick')).toBeGreaterThanOrEqual(10);
    expect(good.heard).toContain('order open');
    expect(reason(running, 'stuck')).toBeUndefined();
    expect(started).toBe(false);

    await runUntil(clock, SIM_START + 2000);
    expect(reason(running, 'stuck')).toBe(late('stuck', 'onStart'));
    expect(logs.withMsg('strategy disabled').map((l) => [l.strategy, l.reason])).toEqual([['stuck', late('stuck', 'onStart')]]);
    expect(started).toBe(true);
    expect(stuck.heard).toEqual([]);
    expect(app.engine.summary().disabled).toEqual(['stuck']);
  });

  it('onMarketData: polling goes on, the others hear every price; it is disabled at its deadline', async () => {
    const stuck = plugin('stuck', () => ({ onMarketData: never }));
    const good = listener();
    running = await engineApp(yaml(), [loaded('stuck', stuck.definition), loaded('good', good.definition)]);
    const { app, clock } = running;
    void app.start();
    await runUntil(clock, SIM_START + 1000);

    // The first poll, then one every 100 ms.
    expect(count(good.heard, 'marketData ticker')).toBeGreaterThanOrEqual(10);
    expect(reason(running, 'stuck')).toBeUndefined();
    await runUntil(clock, SIM_START + 2000);
    expect(reason(running, 'stuck')).toBe(late('stuck', 'onMarketData'));
    expect(app.engine.hosts.find((h) => h.id === 'good')!.enabled).toBe(true);
  });

  it('onTick: it is disabled at its deadline and reported; the others tick on', async () => {
    let ticks = 0;
    const stuck = plugin('stuck', () => ({
      onTick: () => {
        ticks++;
        return never();
      },
    }));
    const good = listener();
    running = await engineApp(yaml(), [loaded('stuck', stuck.definition), loaded('good', good.definition)]);
    const { app, clock, logs } = running;
    void app.start();
    await runUntil(clock, SIM_START + 1999);
    expect(reason(running, 'stuck')).toBeUndefined();
    await runUntil(clock, SIM_START + 3000);

    expect(ticks).toBe(1);
    expect(reason(running, 'stuck')).toBe(late('stuck', 'onTick'));
    expect(logs.withMsg('strategy disabled').map((l) => l.strategy)).toEqual(['stuck']);
    expect(app.engine.summary().disabled).toEqual(['stuck']);
    expect(count(good.heard, 'tick')).toBeGreaterThanOrEqual(30);
  });

  it('onFill: the reconcile passes go on while it hangs; it is disabled at its deadline', async () => {
    let filledAt: number | undefined;
    const taker = plugin('taker', (ctx) => {
      let placed = false;
      return {
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last || placed) return;
          placed = true;
          // Marketable: it fills at once, and the reconciler reads the fill from myTrades.
          ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d('1.02')), 2) });
        },
        onFill() {
          filledAt ??= ctx.now();
          return never();
        },
      };
    });
    running = await engineApp(yaml(), [loaded('taker', taker.definition)]);
    const { app, clock } = running;
    const passes: number[] = [];
    app.engine.events.on('reconciled', () => passes.push(clock.now()));
    void app.start();
    await runUntil(clock, SIM_START + 1000);
    expect(filledAt).toBeDefined();

    await runUntil(clock, filledAt! + 1999);
    // Every 500 ms, as if nothing hung.
    expect(passes.filter((at) => at > filledAt!).length).toBeGreaterThanOrEqual(3);
    expect(reason(running, 'taker')).toBeUndefined();
    await runUntil(clock, filledAt! + 2000);
    expect(reason(running, 'taker')).toBe(late('taker', 'onFill'));
  });

  it('onStop: abandoned at its deadline; the stop cancels the open orders, reconciles and finishes', async () => {
    const good = listener();
    const stuck = plugin('stuck', (ctx) => {
      const base = listener('inner').definition.create(ctx as never);
      return { onTick: base.onTick, onStop: never };
    });
    running = await engineApp(yaml(), [loaded('stuck', stuck.definition), loaded('good', good.definition)]);
    const { app, clock, sim, logs } = running;
    void app.start();
    await runUntil(clock, SIM_START + 1000);
    expect(sim.openOrders().spot).toHaveLength(2);

    const stopAt = clock.now();
    await drive(clock, app.stop());
    running = undefined;
    expect(sim.openOrders().spot).toEqual([]);
    expect(app.journal.orders({ openOnly: true })).toEqual([]);
    expect(reason({ app } as EngineApp, 'stuck')).toBe(late('stuck', 'onStop'));
    // The other strategy's onStop ran at once, and it heard its order end.
    expect(good.heard.slice(good.heard.indexOf('stop'))).toEqual(['stop', 'order pending_cancel', 'order canceled']);
    expect(logs.withMsg('stopped')).toHaveLength(1);
    expect(clock.now() - stopAt).toBeGreaterThanOrEqual(2000);
  });

  it('onStop, with a second signal during the stop: the stop ends its waits at once, still cancelling the open orders', async () => {
    const stuck = plugin('stuck', (ctx) => {
      const base = listener('inner').definition.create(ctx as never);
      return { onTick: base.onTick, onStop: never };
    });
    // A deadline the test will not reach: only the hurry can end the wait.
    running = await engineApp(yaml(3_600_000), [loaded('stuck', stuck.definition)]);
    const { app, clock, sim, logs } = running;
    void app.start();
    await runUntil(clock, SIM_START + 1000);
    expect(sim.openOrders().spot).toHaveLength(1);

    const stopping = app.stop();
    await settle();
    app.hurry();
    await drive(clock, stopping);
    running = undefined;
    expect(reason({ app } as EngineApp, 'stuck')).toBe('strategy stuck: onStop was abandoned unfinished: a second signal hurried the stop; the strategy is disabled, the others run on');
    // The cancel went out and the venue took it; no pass waited for it to settle.
    expect(sim.arrivals().filter((a) => a.endpoint === 'spot.cancel')).toHaveLength(1);
    expect(sim.openOrders().spot.map((o) => o.status)).toEqual(['PENDING_CANCEL']);
    expect(logs.withMsg('the stop was hurried: no more settling passes; the next start settles what is left')).toHaveLength(1);
    expect(logs.withMsg('stopped')).toHaveLength(1);
  });

  it('in runOnce (sluice plan): the round finishes with the others\' intents; the hanging one is listed disabled', async () => {
    const stuck = plugin('stuck', () => ({ onStart: never }));
    const good = listener();
    const e = await engineApp(yaml(), [loaded('stuck', stuck.definition), loaded('good', good.definition)], { orders: 'dry-run' });
    await drive(e.clock, e.app.engine.runOnce());

    expect(good.heard).toEqual(['start', 'marketData ticker', 'tick']);
    expect(e.app.dryRun!.batches.flatMap((b) => b.items.map((i) => i.clientOrderId))).toEqual(good.placed);
    expect(reason(e, 'stuck')).toBe(late('stuck', 'onStart'));
  });
});
