// The Engine as a scheduler, built by the real composition root (buildApp) with the backtest
// profile: the in-process simulator on a manual clock, a memory journal, the virtual pacer.
// Time moves only when the test moves the clock.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec, type Decimal } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import { defineStrategy, z, type StrategyDefinition } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

const yaml = (shutdown = '{ queued: drop, cancelOpenOrders: true }') => `
mode: paper
engine:
  marketDataEveryMs: 100
  reconcileEveryMs: 500
  summaryEveryMs: 60000
  shutdown: ${shutdown}
risk:
  maxOrdersPerSecond: 100
`;

let running: EngineApp | undefined;
afterEach(async () => {
  // An app a test started and did not stop: stop it so no loop outlives the test.
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

/** Places one LIMIT buy 3% under the last price on the first tick that knows a price; records what it heard. */
function restingBuyer() {
  const heard: string[] = [];
  const placed: Array<{ id: ClientOrderId; price: Decimal; last: Decimal }> = [];
  const definition = defineStrategy({
    apiVersion: 1,
    name: 'buyer',
    params: z.object({}),
    create(ctx) {
      return {
        onStart: () => void heard.push('start'),
        onMarketData: (e) => void heard.push(`marketData ${e.kind}`),
        onOrderUpdate: (o) => void heard.push(`order ${o.status}`),
        onStop: () => void heard.push('stop'),
        onTick() {
          heard.push('tick');
          const last = ctx.lastPrice('BTCUSDT');
          if (!last || placed.length > 0) return;
          const price = dec.truncate(dec.mul(last, d('0.97')), 2);
          placed.push({ id: ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price }), price, last });
        },
      };
    },
  });
  return { definition, heard, placed };
}

describe('Engine.runOnce through the dry-run gateway', () => {
  it('runs start, a market-data poll and one tick, and hands the strategy\'s intents to the gateway; nothing reaches the venue', async () => {
    const buyer = restingBuyer();
    const e = await engineApp(yaml(), [loaded('buyer', buyer.definition)], { orders: 'dry-run' });
    await drive(e.clock, e.app.engine.runOnce());

    expect(buyer.heard).toEqual(['start', 'marketData ticker', 'tick']);
    expect(buyer.placed).toHaveLength(1);
    const { id, price, last } = buyer.placed[0]!;
    expect(id).toBe('slbuyer-0');
    // The last price is the simulator's, as the poll read it.
    expect(e.app.engine.riskInputs().lastPrices.get('spot:BTCUSDT')).toBe(last);
    expect(e.app.dryRun!.batches).toEqual([
      {
        market: 'spot',
        symbol: 'BTCUSDT',
        kind: 'place',
        items: [{ kind: 'place', intentId: 'slbuyer-0', clientOrderId: 'slbuyer-0', strategyId: 'buyer', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price }],
      },
    ]);
    // Journaled before it was handed over; no answer ever comes.
    expect(e.app.journal.history('slbuyer-0').map((h) => [h.status, h.reason])).toEqual([['pending', 'intent']]);
    expect(e.sim.orderLog()).toEqual([]);
    expect(e.sim.arrivals().map((a) => a.endpoint)).not.toContain('spot.order');
    expect(e.app.engine.pipeline.stats).toMatchObject({ sent: 1, accepted: 0, rejected: 0, unknown: 0 });
    expect(e.app.engine.ready).toBe(true);
  });

  it('a strategy that throws is disabled and reported; the others run on', async () => {
    const calls: string[] = [];
    const bad = defineStrategy({
      apiVersion: 1,
      name: 'bad',
      params: z.object({}),
      create: () => ({
        onStart() {
          calls.push('bad start');
          throw new Error('boom');
        },
        onTick: () => void calls.push('bad tick'),
        onMarketData: () => void calls.push('bad marketData'),
      }),
    });
    const good = restingBuyer();
    const e = await engineApp(yaml(), [loaded('bad', bad), loaded('good', good.definition)], { orders: 'dry-run' });
    await drive(e.clock, e.app.engine.runOnce());

    expect(calls).toEqual(['bad start']);
    expect(good.heard).toEqual(['start', 'marketData ticker', 'tick']);
    expect(e.app.dryRun!.batches.flatMap((b) => b.items.map((i) => i.clientOrderId))).toEqual(['slgood-0']);
    const bh = e.app.engine.hosts.find((h) => h.id === 'bad')!;
    expect(bh.enabled).toBe(false);
    // Where it threw, in the message, and the stack in the log line.
    expect(bh.disabledBy?.message).toMatch(/^strategy bad: onStart threw: boom \(at \/.*engine\.test\.ts:\d+:\d+\); the strategy is disabled, the others run on$/);
    expect(e.logs.withMsg('strategy disabled').map((l) => [l.level, l.strategy, l.reason])).toEqual([[50, 'bad', bh.disabledBy?.message]]);
    expect(e.logs.withMsg('strategy disabled')[0]!.stack).toMatch(/^Error: boom\n\s+at /);
    expect(e.app.engine.summary().disabled).toEqual(['bad']);
  });
});

describe('Engine scheduling on the manual clock', () => {
  it('ticks each strategy every everyMs; one that throws in a tick is never called again', async () => {
    const ticks: number[] = [];
    let badTicks = 0;
    const steady: StrategyDefinition = defineStrategy({ apiVersion: 1, name: 'steady', params: z.object({}), create: (ctx) => ({ onTick: () => void ticks.push(ctx.now() - SIM_START) }) });
    const flaky: StrategyDefinition = defineStrategy({
      apiVersion: 1,
      name: 'flaky',
      params: z.object({}),
      create: () => ({
        onTick() {
          badTicks++;
          throw new Error('tick bug');
        },
      }),
    });
    running = await engineApp(yaml(), [loaded('steady', steady, { everyMs: 250 }), loaded('flaky', flaky)]);
    const { app, clock } = running;
    void app.start();
    await runUntil(clock, SIM_START + 1000);

    expect(ticks).toEqual([0, 250, 500, 750, 1000]);
    expect(badTicks).toBe(1);
    expect(app.engine.hosts.map((h) => [h.id, h.enabled])).toEqual([
      ['steady', true],
      ['flaky', false],
    ]);
  });
});

describe('Engine.stop', () => {
  async function withRestingOrder(shutdown: string) {
    const buyer = restingBuyer();
    running = await engineApp(yaml(shutdown), [loaded('buyer', buyer.definition)]);
    const { app, clock, sim } = running;
    void app.start();
    await runUntil(clock, SIM_START + 1000);
    const id = buyer.placed[0]!.id;
    expect(app.journal.order(id)).toMatchObject({ status: 'open', price: buyer.placed[0]!.price });
    expect(sim.openOrders().spot.map((o) => o.clientOrderId)).toEqual([id]);
    return { ...running, buyer, id };
  }

  it('cancels our open orders when configured, and journals how they ended', async () => {
    const { app, clock, sim, buyer, id } = await withRestingOrder('{ queued: drop, cancelOpenOrders: true }');
    await drive(clock, app.stop());
    running = undefined;

    expect(sim.openOrders().spot).toEqual([]);
    // Placed on the first tick, which runs after the first market-data poll (so it has a price),
    // cancelled at the stop (1000 ms), and settled by a query in one of the final reconcile passes
    // (a lone cancel is asked about rather than left to wait for its fills to show).
    expect(app.journal.history(id).map((h) => [h.at - SIM_START, h.status, h.reason])).toEqual([
      [0, 'pending', 'intent'],
      [0, 'open', 'acknowledged'],
      [1000, 'pending_cancel', 'cancel accepted'],
      [expect.any(Number), 'canceled', 'venue order query'],
    ]);
    expect(app.journal.order(id)!.status).toBe('canceled');
    expect(buyer.heard.filter((h) => !h.startsWith('tick') && !h.startsWith('marketData'))).toEqual(['start', 'order open', 'stop', 'order pending_cancel', 'order canceled']);
  });

  it('sends what onStop asks for, and nothing a strategy asks for after it: its orders end as the stop settles them', async () => {
    // Re-places every order that ends, and places one more in onStop: the stop's cancels would
    // otherwise be answered by fresh orders left resting after the daemon exited.
    const asked: ClientOrderId[] = [];
    const replacer = defineStrategy({
      apiVersion: 1,
      name: 'replacer',
      params: z.object({}),
      create(ctx) {
        const bid = () => {
          const last = ctx.lastPrice('BTCUSDT');
          // A volume of its own each time, or risk would refuse a repeat as a duplicate.
          if (last) asked.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d(`0.00${asked.length + 1}`), price: dec.truncate(dec.mul(last, d('0.97')), 2) }));
        };
        return {
          onTick: () => void (asked.length === 0 && bid()),
          onOrderUpdate: (o) => void (o.status === 'canceled' && bid()),
          onStop: bid,
        };
      },
    });
    running = await engineApp(yaml('{ queued: flush, cancelOpenOrders: true }'), [loaded('replacer', replacer)]);
    const { app, clock, sim, logs } = running;
    void app.start();
    await runUntil(clock, SIM_START + 1000);
    await drive(clock, app.stop());
    running = undefined;

    // The tick's order and onStop's were sent, and cancelled by the stop; the two asked for when
    // they ended were refused, and reached neither the journal nor the venue.
    expect(asked).toHaveLength(4);
    expect(sim.openOrders().spot).toEqual([]);
    expect(sim.orderLog().map((o) => o.clientOrderId)).toEqual(asked.slice(0, 2));
    expect(asked.slice(0, 2).map((id) => app.journal.order(id)?.status)).toEqual(['canceled', 'canceled']);
    expect(asked.slice(2).map((id) => app.journal.order(id))).toEqual([undefined, undefined]);
    expect(logs.withMsg('intent rejected').map((l) => [l.clientOrderId, l.rule, l.reason])).toEqual(
      asked.slice(2).map((id) => [id, 'invalid', 'not sent: the strategy has stopped (onOrderUpdate after onStop); the stop settles its orders as engine.shutdown says']),
    );
  });

  it('hears a timer that fires while the stop waits for a running tick, as it hears that tick', async () => {
    // The tick takes 10 s of the engine clock; its timer places after 5 s, once the stop has begun.
    const asked: ClientOrderId[] = [];
    const late = defineStrategy({
      apiVersion: 1,
      name: 'late',
      params: z.object({}),
      create(ctx) {
        let ticked = false;
        return {
          async onTick() {
            const last = ctx.lastPrice('BTCUSDT');
            if (ticked || !last) return;
            ticked = true;
            ctx.setTimer(5000, () => void asked.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d('0.97')), 2) })));
            await new Promise<void>((resolve) => ctx.setTimer(10_000, resolve));
          },
        };
      },
    });
    running = await engineApp(yaml('{ queued: flush, cancelOpenOrders: true }'), [loaded('late', late)]);
    const { app, clock, sim, logs } = running;
    void app.start();
    await runUntil(clock, SIM_START + 1000);
    expect(asked).toEqual([]);
    await drive(clock, app.stop());
    running = undefined;

    // Sent, as queued intents are with queued: flush, then cancelled by the stop.
    expect(asked).toHaveLength(1);
    expect(sim.orderLog().map((o) => o.clientOrderId)).toEqual(asked);
    expect(app.journal.order(asked[0]!)?.status).toBe('canceled');
    expect(logs.withMsg('intent rejected')).toEqual([]);
  });

  it('leaves them open when not', async () => {
    const { app, clock, sim, id } = await withRestingOrder('{ queued: drop, cancelOpenOrders: false }');
    await drive(clock, app.stop());
    running = undefined;

    expect(sim.openOrders().spot.map((o) => o.clientOrderId)).toEqual([id]);
    expect(app.journal.order(id)!.status).toBe('open');
    expect(sim.arrivals().filter((a) => a.endpoint === 'spot.cancel' || a.endpoint === 'spot.batchCancel')).toEqual([]);
  });
});
