// Plugin API 2 through the whole engine (the composition root's backtest profile: the in-process
// simulator on a manual clock): a klines warm-up holds the start, timers run on the engine
// clock, order events carry reasons, a feed polls at its own period, the strategy's own
// position follows its fills, and onSave's state is journaled.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import { defineStrategy, z, type OrderEvent } from '../../../src/strategy/api.js';
import { USER } from '../../../src/sim/index.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

const yaml = `
mode: paper
engine:
  marketDataEveryMs: 100
  reconcileEveryMs: 500
  summaryEveryMs: 600000
  shutdown: { queued: drop, cancelOpenOrders: true }
risk:
  maxOrdersPerSecond: 100
  maxNotionalPerOrder: "10000"
`;

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

function probe() {
  const seen = { startedAt: undefined as number | undefined, events: [] as Array<[string, string | undefined]>, placedAt: [] as number[], resting: undefined as ClientOrderId | undefined, own: [] as string[] };
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'probe',
    params: z.object({}),
    subscribe: () => [{ kind: 'klines', interval: '1min', history: 2 }, { kind: 'depth', limit: 5 }, { kind: 'ticker', everyMs: 400 }],
    create(ctx) {
      let ticks = 0;
      return {
        onStart() {
          seen.startedAt = ctx.now();
          // A resting buy 250 ms later, from a timer; an order risk refuses, at once.
          ctx.setTimer(250, () => {
            const last = ctx.lastPrice('BTCUSDT')!;
            seen.placedAt.push(ctx.now());
            seen.resting = ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: ctx.roundPrice('BTCUSDT', dec.mul(last, d('0.97')), 'BUY') });
          });
          ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', volume: '20000' });
          // A marketable buy that fills: the strategy's own position follows.
          ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.002', price: ctx.roundPrice('BTCUSDT', dec.mul(ctx.bestAsk('BTCUSDT')!, d('1.01')), 'BUY') });
        },
        onTick: () => void ticks++,
        onFill: () => void seen.own.push(ctx.ownPosition('BTCUSDT').quantity),
        onOrderEvent: (e: OrderEvent) => void seen.events.push([e.kind, 'reason' in e ? e.reason : undefined]),
        onSave: () => ({ ticks }),
      };
    },
  });
  return { definition, seen };
}

describe('plugin API 2 in the engine', () => {
  it('starts after the warm-up, runs timers on the engine clock, reports order events with reasons, polls a feed at its own period, follows its own position and keeps its state', async () => {
    const p = probe();
    running = await engineApp(yaml, [loaded('probe', p.definition)]);
    const { app, clock, sim, logs } = running;
    void app.start();

    // Two closed 1-minute candles exist only after the second minute of the simulator's market.
    await runUntil(clock, SIM_START + 60_000);
    expect(p.seen.startedAt).toBeUndefined();
    expect(logs.withMsg('strategy waits for its klines warm-up before it starts')).toHaveLength(1);
    await runUntil(clock, SIM_START + 125_000);
    const startedAt = p.seen.startedAt!;
    expect(startedAt).toBeGreaterThanOrEqual(SIM_START + 120_000);
    expect(startedAt).toBeLessThan(SIM_START + 121_000);
    expect(app.engine.hosts[0]!.enabled).toBe(true);

    // The timer fired 250 ms after onStart, on the manual clock.
    expect(p.seen.placedAt).toEqual([startedAt + 250]);
    const resting = app.journal.order(p.seen.resting!)!;
    expect(resting.status).toBe('open');

    // Depth every 100 ms (the default), the ticker every 400 ms (its own period).
    const arrivals = sim.arrivals().filter((a) => a.at >= startedAt && a.at < startedAt + 4000);
    const count = (endpoint: string) => arrivals.filter((a) => a.endpoint === endpoint).length;
    expect(count('spot.depth')).toBeGreaterThanOrEqual(38);
    expect(count('spot.ticker')).toBeGreaterThanOrEqual(9);
    expect(count('spot.ticker')).toBeLessThanOrEqual(11);

    // Its own fill moved its own position.
    expect(p.seen.own).toEqual(['0.002']);
    expect(app.engine.positions.position('spot', 'BTCUSDT').quantity).toBe('0.002');

    await drive(clock, app.stop());
    running = undefined;
    // Risk's refusal with its rule; the fill; the resting order accepted, then cancelled at the stop with the reason.
    expect(p.seen.events[0]![0]).toBe('rejected');
    expect(p.seen.events[0]![1]).toMatch(/^max_notional_per_order: /);
    expect(p.seen.events.map((e) => e[0])).toEqual(['rejected', 'filled', 'accepted', 'cancel_pending', 'canceled']);
    expect(p.seen.events.at(-1)![1]).toBe('venue order query');
    // onSave's state is in the journal.
    expect(JSON.parse(app.journal.cursor('strategy:probe:state')!)).toMatchObject({ ticks: expect.any(Number) });
    expect((JSON.parse(app.journal.cursor('strategy:probe:state')!) as { ticks: number }).ticks).toBeGreaterThan(40);
  });
});

describe('a strategy\'s own history', () => {
  it('has its fills replayed in the start\'s one read of the journal\'s fills, before any strategy runs; its latest orders are read at its first ask', async () => {
    const heard: string[] = [];
    const asker = defineStrategy({
      apiVersion: 2,
      name: 'asker',
      params: z.object({}),
      create: (ctx) => ({
        onStart: () => void heard.push('start'),
        onTick() {
          heard.push('tick');
          ctx.orders();
        },
      }),
    });
    running = await engineApp(yaml, [loaded('asker', asker)]);
    const { app, clock } = running;
    vi.spyOn(app.journal, 'eachFill').mockImplementation(function* () {
      heard.push('fills read');
    });
    vi.spyOn(app.journal, 'eachOrder').mockImplementation(function* () {
      heard.push('every order read');
    });
    vi.spyOn(app.journal, 'latestOrders').mockImplementation((strategyId, limit) => {
      heard.push(`latest ${limit} orders of ${strategyId} read`);
      return [];
    });
    void app.start();
    await runUntil(clock, SIM_START + 1000);
    // One read of the fills serves the account's book and the strategy's own.
    expect(heard.slice(0, 4)).toEqual(['fills read', 'start', 'tick', 'latest 1000 orders of asker read']);
    expect(heard.filter((h) => h !== 'tick')).toEqual(['fills read', 'start', 'latest 1000 orders of asker read']);
  });
});

describe('futures leverage from the config', () => {
  const futuresYaml = (leverage: number) => `${yaml}
strategies:
  - { id: fut, use: inline, market: futures, symbols: [E-BTC-USDT], leverage: ${leverage}, params: {} }
`;
  const idle = defineStrategy({ apiVersion: 2, name: 'idle', params: z.object({}), subscribe: () => [{ kind: 'ticker' }], create: () => ({}) });

  it('is set on the venue before any order; the margin of what opens follows it', async () => {
    running = await engineApp(futuresYaml(20), [loaded('fut', idle, { market: 'futures', symbols: ['E-BTC-USDT'], leverage: 20 })]);
    const { app, clock, sim, logs } = running;
    void app.start();
    await runUntil(clock, SIM_START + 1000);
    expect(sim.futures.leverageOf(USER, sim.futures.spec('E-BTC-USDT'))).toBe(20);
    expect(logs.withMsg('leverage set').map((l) => [l.contract, l.leverage])).toEqual([['E-BTC-USDT', 20]]);
    const edits = sim.arrivals().filter((a) => a.endpoint === 'futures.editLever');
    const firstOrder = sim.arrivals().find((a) => a.endpoint === 'futures.order');
    expect(edits).toHaveLength(1);
    expect(firstOrder === undefined || firstOrder.at >= edits[0]!.at).toBe(true);
  });

  it('a venue that refuses it stops the start, saying what to fix', async () => {
    running = await engineApp(futuresYaml(20), [loaded('fut', idle, { market: 'futures', symbols: ['E-BTC-USDT'], leverage: 20 })]);
    const { app, clock, sim } = running;
    // An order resting on the contract: the venue refuses a leverage change.
    sim.futures.place(USER, { contract: 'E-BTC-USDT', side: 'BUY', type: 'LIMIT', volume: d('1'), price: d('1000'), open: 'OPEN', positionType: 1 }, clock.now());
    const failure = await drive(clock, app.start().then(() => undefined, (err: unknown) => err as Error));
    expect(failure?.message).toMatch(/^could not set the leverage of E-BTC-USDT to 20x: .*orders are open.*; fix strategies\[\]\.leverage or the account/);
    running = undefined;
  });

  it('refused again after a restart with orders resting, the level an earlier run set (journaled) lets the start go on', async () => {
    running = await engineApp(futuresYaml(20), [loaded('fut', idle, { market: 'futures', symbols: ['E-BTC-USDT'], leverage: 20 })]);
    const { app, clock, sim, logs } = running;
    // The run before set 20x and was killed with an order resting.
    sim.futures.setLeverage(USER, 'E-BTC-USDT', 20);
    app.journal.setCursor('leverage:E-BTC-USDT', '20');
    sim.futures.place(USER, { contract: 'E-BTC-USDT', side: 'BUY', type: 'LIMIT', volume: d('1'), price: d('1000'), open: 'OPEN', positionType: 1 }, clock.now());
    const failure = await drive(clock, app.start().then(() => undefined, (err: unknown) => err as Error));
    expect(failure).toBeUndefined();
    expect(app.engine.ready).toBe(true);
    expect(logs.withMsg('the venue refused to set the leverage again; an earlier run set this level, so trading goes on at it').map((l) => [l.contract, l.leverage])).toEqual([['E-BTC-USDT', 20]]);
    expect(sim.futures.leverageOf(USER, sim.futures.spec('E-BTC-USDT'))).toBe(20);
  });
});
