// What a strategy reads when the reconciler learns of executions: within one pass its fills are
// booked and told before the order changes they explain, and onFill's order is the journal's
// version after them. The engine on the in-process simulator (a manual clock); another
// participant's trade fills a resting order between two passes.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

const yaml = (id: string) => `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 500, summaryEveryMs: 600000 }
risk: { duplicateWindowMs: 0, maxOrdersPerSecond: 100 }
strategies:
  - { id: ${id}, use: inline:${id}, symbols: [BTCUSDT], everyMs: 250 }
`;

describe('a resting order filled between two passes', () => {
  it("onOrderEvent('filled') comes after onFill, with the fill in ctx.fills() and the position booked; onFill's order is 'filled' with its full executedVolume", async () => {
    const heard: string[] = [];
    let buy: ClientOrderId | undefined;
    const rester = defineStrategy({
      apiVersion: 2,
      name: 'rester',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last || buy) return;
          buy = ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.002', price: dec.truncate(dec.mul(last, d('0.97')), 2) });
        },
        onFill(f, o) {
          heard.push(`fill ${f.volume} order ${o.status} ${o.executedVolume}`);
        },
        onOrderEvent(e) {
          if (e.kind !== 'filled') return;
          const own = ctx.ownPosition('BTCUSDT');
          heard.push(`filled own ${own.quantity} unbooked ${own.unbookedQuantity} fills ${ctx.fills('BTCUSDT').length} booked entry ${dec.isPositive(own.avgEntryPrice)}`);
        },
      }),
    });
    running = await engineApp(yaml('rester'), [loaded('rester', rester)]);
    const { app, clock, sim } = running;
    void app.start();
    await runUntil(clock, SIM_START + 1000);
    expect(app.journal.order(buy!)?.status).toBe('open');
    const price = app.journal.order(buy!)!.price!;
    // Another participant sells into the buy: the next pass finds it gone and its trade together.
    sim.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [], asks: [[dec.add(price, d('10')), '5']] });
    sim.applyMarketEvent({ type: 'trade', symbol: 'BTCUSDT', price, qty: '0.002', side: 'SELL' });
    expect(sim.openOrders().spot).toEqual([]);
    await runUntil(clock, SIM_START + 2000);
    expect(app.journal.order(buy!)?.status).toBe('filled');
    expect(heard).toEqual(['fill 0.002 order filled 0.002', 'filled own 0.002 unbooked 0 fills 1 booked entry true']);
  });
});

describe('strategies that trade on their position and open orders (a review)', () => {
  it('a stop-loss that sells its position when it has no open sell sells exactly once, though the trades read comes a minute after each fill', async () => {
    let bought = false;
    const stopLoss = defineStrategy({
      apiVersion: 2,
      name: 'stoploss',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last) return;
          if (!bought) {
            bought = true;
            ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.002', price: dec.truncate(dec.mul(last, d('1.002')), 2) });
            return;
          }
          const p = ctx.position('BTCUSDT');
          const selling = ctx.openOrders('BTCUSDT').some((o) => o.side === 'SELL');
          if (dec.isPositive(p.quantity) && !selling) ctx.place({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', volume: p.quantity, price: dec.roundUp(dec.mul(last, d('0.998')), 2) });
        },
      }),
    });
    running = await engineApp(
      `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 60000, summaryEveryMs: 600000 }
risk: { duplicateWindowMs: 0, maxOrdersPerSecond: 100 }
strategies:
  - { id: stoploss, use: inline:stoploss, symbols: [BTCUSDT], everyMs: 250 }
`,
      [loaded('stoploss', stopLoss)],
    );
    const { app, clock, sim } = running;
    void app.start();
    // Two trades reads after both fills: the position is booked flat and nothing more is sold.
    await runUntil(clock, SIM_START + 130_000);
    const sent = sim.orderLog().filter((o) => o.symbol === 'BTCUSDT');
    expect(sent.map((o) => [o.side, o.volume])).toEqual([
      ['BUY', '0.002'],
      ['SELL', '0.002'],
    ]);
    expect(sent.map((o) => app.journal.order(o.clientOrderId as ClientOrderId)?.status)).toEqual(['filled', 'filled']);
    expect(app.engine.positions.position('spot', 'BTCUSDT').quantity).toBe('0');
  });

  it('a futures strategy that opens 10 contracts when flat with nothing open opens them once', async () => {
    const entry = defineStrategy({
      apiVersion: 2,
      name: 'entry',
      params: z.object({}),
      subscribe: () => [{ kind: 'ticker' }],
      create: (ctx) => ({
        onTick() {
          const last = ctx.lastPrice('E-BTC-USDT');
          if (!last || !dec.isZero(ctx.ownPosition('E-BTC-USDT').quantity) || ctx.openOrders().length > 0) return;
          ctx.place({ symbol: 'E-BTC-USDT', side: 'BUY', type: 'LIMIT', volume: '10', price: dec.truncate(dec.mul(last, d('1.002')), 1), open: 'OPEN' });
        },
      }),
    });
    running = await engineApp(
      `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 60000, summaryEveryMs: 600000 }
risk: { duplicateWindowMs: 0, maxOrdersPerSecond: 100 }
strategies:
  - { id: entry, use: inline:entry, market: futures, symbols: [E-BTC-USDT], everyMs: 250, params: {} }
`,
      [loaded('entry', entry, { market: 'futures', symbols: ['E-BTC-USDT'] })],
    );
    const { app, clock, sim } = running;
    void app.start();
    await runUntil(clock, SIM_START + 130_000);
    const sent = sim.orderLog().filter((o) => o.market === 'futures');
    expect(sent.map((o) => [o.side, o.open, o.volume])).toEqual([['BUY', 'OPEN', '10']]);
    expect(app.journal.order(sent[0]!.clientOrderId as ClientOrderId)?.status).toBe('filled');
    expect(app.engine.positions.position('futures', 'E-BTC-USDT').quantity).toBe('10');
  });

  it('a futures IOC the venue cancels on arrival after trading part of it counts as resting until its fills settle it: the strategy opens once', async () => {
    const events: string[] = [];
    const entry = defineStrategy({
      apiVersion: 2,
      name: 'ioc',
      params: z.object({}),
      subscribe: () => [{ kind: 'depth' }],
      create: (ctx) => ({
        onTick() {
          const ask = ctx.bestAsk('E-BTC-USDT');
          // After the reconcile loop's first pass (at the start): the next reads trades a minute on.
          if (!ask || ctx.now() < SIM_START + 1000 || !dec.isZero(ctx.ownPosition('E-BTC-USDT').quantity) || ctx.openOrders().length > 0) return;
          // More than the best level holds: part trades, the venue cancels the rest at once.
          ctx.place({ symbol: 'E-BTC-USDT', side: 'BUY', type: 'LIMIT', volume: '5000', price: ask, open: 'OPEN', timeInForce: 'IOC' });
        },
        onOrderEvent(e) {
          events.push(`${e.kind}${'reason' in e && e.reason ? `: ${e.reason}` : ''}`);
        },
      }),
    });
    running = await engineApp(
      `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 60000, summaryEveryMs: 600000 }
risk: { duplicateWindowMs: 0, maxOrdersPerSecond: 100, maxNotionalPerOrder: "1000000000", maxNotionalPerMinute: "1000000000" }
strategies:
  - { id: ioc, use: inline:ioc, market: futures, symbols: [E-BTC-USDT], everyMs: 250, params: {} }
`,
      [loaded('ioc', entry, { market: 'futures', symbols: ['E-BTC-USDT'] })],
    );
    const { app, clock, sim } = running;
    void app.start();
    await runUntil(clock, SIM_START + 130_000);
    const sent = sim.orderLog().filter((o) => o.market === 'futures');
    expect(sent.map((o) => [o.side, o.open, o.volume])).toEqual([['BUY', 'OPEN', '5000']]);
    const order = app.journal.order(sent[0]!.clientOrderId as ClientOrderId)!;
    const held = app.engine.positions.position('futures', 'E-BTC-USDT').quantity;
    expect(dec.isPositive(d(held)) && dec.lt(d(held), d('5000')), `held ${held}`).toBe(true);
    expect([order.status, order.executedVolume]).toEqual(['canceled', held]);
    expect(app.journal.history(order.clientOrderId).map((e) => [e.status, e.reason])).toContainEqual(['pending_cancel', 'cancelled by the venue on arrival (IOC: what did not trade at once is cancelled); what it traded first shows with its fills']);
    expect(events[0]).toBe('cancel_pending');
    expect(events.at(-1)).toMatch(/^canceled/);
  });
});
