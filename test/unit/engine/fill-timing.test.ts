// What the engine knows of fills between the venue's word and the trades read: risk counts
// executions the venue told of before their fills are booked (a strategy buying at a marketable
// price every tick stops at risk.maxPosition, not after the next trades read), and a strategy's
// state is saved after each fill it hears. The engine on the in-process simulator (a manual
// clock), and the tracker alone.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec, ZERO, type Decimal } from '../../../src/core/decimal.js';
import type { Order } from '../../../src/core/types.js';
import { UnbookedExecutions, withUnbooked } from '../../../src/engine/unbooked.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

describe('risk counts executions whose fills are not booked yet', () => {
  it('a buyer at a marketable price every 250 ms stops at maxPosition 0.003, though the trades read comes only a minute later', async () => {
    const placed: string[] = [];
    const buyer = defineStrategy({
      apiVersion: 2,
      name: 'taker',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last || placed.length >= 8) return;
          placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d('1.002')), 2) }));
        },
      }),
    });
    running = await engineApp(
      `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 60000, summaryEveryMs: 600000 }
risk: { maxPosition: { BTCUSDT: "0.003" }, duplicateWindowMs: 0, maxOrdersPerSecond: 100 }
strategies:
  - { id: taker, use: inline:taker, symbols: [BTCUSDT], everyMs: 250 }
`,
      [loaded('taker', buyer, { everyMs: 250 })],
    );
    const { app, clock, sim } = running;
    void app.start();
    await runUntil(clock, SIM_START + 3000);
    expect(placed).toHaveLength(8);
    // The venue filled three; the other five were refused by max_position before any was sent.
    const filled = sim.orderLog().filter((o) => o.symbol === 'BTCUSDT' && o.side === 'BUY');
    expect(filled.map((o) => o.volume)).toEqual(['0.001', '0.001', '0.001']);
    expect(placed.map((id) => app.journal.order(id)?.status)).toEqual(['filled', 'filled', 'filled', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    const refusal = running.logs.lines.find((l) => l.msg === 'intent rejected' && l.clientOrderId === placed[3]);
    expect(refusal?.reason).toMatch(/^max_position: position 0.003 \+ open buys 0 \+ this 0.001 = 0.004 BTCUSDT, above the 0.003 limit/);
    // The trades read after the start has not come: the book does not hold all three yet.
    expect(dec.lt(app.engine.positions.position('spot', 'BTCUSDT').quantity, d('0.003'))).toBe(true);
  });
});

describe('UnbookedExecutions', () => {
  const order = (id: string, executed: string, side: 'BUY' | 'SELL' = 'BUY'): Order =>
    ({ clientOrderId: id, venueOrderId: `v${id}`, strategyId: 's', market: 'spot', symbol: 'BTCUSDT', side, type: 'LIMIT', volume: '1', price: '100', executedVolume: executed, status: 'partially_filled', createdAt: 0, updatedAt: 0 }) as unknown as Order;

  it('adds what each order executed beyond its booked fills, signed by side, until they are booked', () => {
    const booked = new Map<string, Decimal>();
    const u = new UnbookedExecutions((_m, _s, id) => booked.get(id) ?? ZERO);
    u.update(order('a', '0.5'));
    u.update(order('b', '0.2', 'SELL'));
    u.update(order('c', '0'));
    expect(u.addTo(new Map([['spot:BTCUSDT', d('1')]])).get('spot:BTCUSDT')).toBe('1.3');
    // A fill of a booked: 0.4 of its 0.5; an older answer saying less does not shrink what the venue said.
    booked.set('va', d('0.4'));
    u.booked(order('a', '0.4'));
    u.update(order('a', '0.3'));
    expect(u.addTo(new Map()).get('spot:BTCUSDT')).toBe('-0.1');
    booked.set('va', d('0.5'));
    booked.set('vb', d('0.2'));
    u.booked(order('a', '0.5'));
    u.booked(order('b', '0.2', 'SELL'));
    expect(u.addTo(new Map())).toEqual(new Map());
  });
});

describe('a strategy\'s saved state after fills', () => {
  it('is saved after each fill it hears, not only every minute: a crash loses none of the fills it counted', async () => {
    let heard = 0;
    let placed = 0;
    const counter = defineStrategy({
      apiVersion: 2,
      name: 'counter',
      params: z.object({}),
      create: (ctx) => ({
        onSave: () => ({ heard }),
        onFill() {
          heard++;
        },
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last || placed >= 3) return;
          placed++;
          ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d('1.002')), 2) });
        },
      }),
    });
    running = await engineApp(
      `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 500, summaryEveryMs: 600000 }
risk: { duplicateWindowMs: 0 }
strategies:
  - { id: counter, use: inline:counter, symbols: [BTCUSDT], everyMs: 250 }
`,
      [loaded('counter', counter, { everyMs: 250 })],
    );
    const { app, clock } = running;
    void app.start();
    await runUntil(clock, SIM_START + 10_000);
    expect(heard).toBe(3);
    // Ten seconds in, long before the minute's save: the journal already holds all three.
    expect(app.journal.cursor('strategy:counter:state')).toBe('{"heard":3}');
  });
});

describe('a strategy reads executions whose fills are not booked yet', () => {
  it('ctx.position and ctx.ownPosition count a filled buy before the trades read books it; unbookedQuantity says how much, the entry price only booked fills', async () => {
    const seen: { account: string; own: string; unbooked: string; ownUnbooked: string; entry: string }[] = [];
    let placed = false;
    const buyer = defineStrategy({
      apiVersion: 2,
      name: 'once',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          const p = ctx.position('BTCUSDT');
          const own = ctx.ownPosition('BTCUSDT');
          if (placed) seen.push({ account: p.quantity, own: own.quantity, unbooked: p.unbookedQuantity, ownUnbooked: own.unbookedQuantity, entry: own.avgEntryPrice });
          const last = ctx.lastPrice('BTCUSDT');
          // After the reconcile loop's first pass (at the start), which may still be reading trades at the first tick.
          if (!last || placed || ctx.now() < SIM_START + 1000) return;
          placed = true;
          ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.002', price: dec.truncate(dec.mul(last, d('1.002')), 2) });
        },
      }),
    });
    running = await engineApp(
      `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 60000, summaryEveryMs: 600000 }
risk: { duplicateWindowMs: 0 }
strategies:
  - { id: once, use: inline:once, symbols: [BTCUSDT], everyMs: 250 }
`,
      [loaded('once', buyer, { everyMs: 250 })],
    );
    const { app, clock } = running;
    void app.start();
    await runUntil(clock, SIM_START + 2000);
    // The place answer said filled; the trades read is a minute away: the book holds none of it.
    expect(app.engine.positions.position('spot', 'BTCUSDT').quantity).toBe('0');
    expect(seen.at(-1)).toEqual({ account: '0.002', own: '0.002', unbooked: '0.002', ownUnbooked: '0.002', entry: '0' });
    await runUntil(clock, SIM_START + 61_000);
    // Booked: the same quantity, now with its entry price, and nothing unbooked.
    const last = seen.at(-1)!;
    expect([last.account, last.own, last.unbooked, last.ownUnbooked]).toEqual(['0.002', '0.002', '0', '0']);
    expect(dec.isPositive(d(last.entry))).toBe(true);
  });
});

describe('UnbookedExecutions per strategy', () => {
  const order = (id: string, strategyId: string, executed: string, side: 'BUY' | 'SELL', market: 'spot' | 'futures' = 'spot', symbol = 'BTCUSDT'): Order =>
    ({ clientOrderId: id, venueOrderId: `v${id}`, strategyId, market, symbol, side, type: 'LIMIT', volume: '5', price: '100', executedVolume: executed, status: 'partially_filled', createdAt: 0, updatedAt: 0 }) as unknown as Order;

  it('sums signed quantity by symbol, for the account or one strategy', () => {
    const booked = new Map<string, Decimal>([['vb', d('0.5')]]);
    const u = new UnbookedExecutions((_m, _s, id) => booked.get(id) ?? ZERO);
    u.update(order('a', 's1', '2', 'BUY'));
    u.update(order('b', 's1', '1.5', 'SELL'));
    u.update(order('c', 's2', '0.25', 'BUY'));
    u.update(order('f', 's1', '100', 'SELL', 'futures', 'E-BTC-USDT'));
    u.update(order('x', 's1', '7', 'BUY', 'spot', 'ETHUSDT'));
    expect(u.quantity('spot', 'BTCUSDT')).toBe('1.25');
    expect(u.quantity('spot', 'BTCUSDT', 's1')).toBe('1');
    expect(u.quantity('spot', 'BTCUSDT', 's2')).toBe('0.25');
    expect(u.quantity('spot', 'BTCUSDT', 's3')).toBe('0');
    expect(u.quantity('futures', 'E-BTC-USDT', 's1')).toBe('-100');
  });

  it('withUnbooked adds to quantity and netQuantity only', () => {
    const p = { market: 'spot', symbol: 'BTCUSDT', quantity: d('1'), avgEntryPrice: d('100'), realizedPnl: d('3'), fees: d('0.1'), otherFees: { BTC: d('0.001') }, netQuantity: d('0.999'), unbookedQuantity: ZERO } as const;
    expect(withUnbooked(p, d('-0.4'))).toEqual({ ...p, quantity: '0.6', netQuantity: '0.599', unbookedQuantity: '-0.4' });
    expect(withUnbooked(p, ZERO)).toBe(p);
  });
});

describe('UnbookedExecutions of an answer that says filled without a volume', () => {
  const base = { clientOrderId: 'f', venueOrderId: 'vf', strategyId: 's', market: 'futures', symbol: 'E-BTC-USDT', side: 'SELL', type: 'LIMIT', volume: '10', price: '100', executedVolume: '0', status: 'filled', createdAt: 0, updatedAt: 0 };

  it('counts all of a filled order (a futures place answer), but nothing of a spot market buy, whose volume is quote', () => {
    const u = new UnbookedExecutions(() => ZERO);
    u.update(base as unknown as Order);
    u.update({ ...base, clientOrderId: 'm', venueOrderId: 'vm', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', volume: '50' } as unknown as Order);
    u.update({ ...base, clientOrderId: 'o', venueOrderId: 'vo', status: 'open' } as unknown as Order);
    expect(u.quantity('futures', 'E-BTC-USDT')).toBe('-10');
    expect(u.quantity('spot', 'BTCUSDT')).toBe('0');
  });
});
