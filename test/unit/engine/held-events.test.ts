// A restart on the same journal and venue, on the manual clock: a resting order fills while the
// daemon is down, and the start-up reconcile finds the fill before any strategy runs. Its
// strategy hears nothing before its onLoad and onStart; what came before is delivered right
// after its start, in order, when prices are known.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TemporaryError } from '../../../src/core/errors.js';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

const yaml = `
mode: paper
engine:
  marketDataEveryMs: 100
  reconcileEveryMs: 500
  summaryEveryMs: 60000
  shutdown: { queued: drop, cancelOpenOrders: false }
risk:
  maxOrdersPerSecond: 100
`;

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

/**
 * The pattern strategies/README.md and signal-mm use: a count of its fills kept with onSave and
 * restored by onLoad. It rests one buy 3% under the last price; on a fill it counts it and places
 * a sell 3% over the fill's price to take the profit.
 */
function keeper() {
  const heard: string[] = [];
  const placed: ClientOrderId[] = [];
  let fills = 0;
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'keeper',
    params: z.object({}),
    create(ctx) {
      return {
        onLoad(state) {
          fills = (state as { fills: number }).fills;
          heard.push(`load fills=${fills}`);
        },
        onStart: () => void heard.push('start'),
        onMarketData: (e) => void heard.push(`marketData ${e.kind}`),
        onOrderUpdate: (o) => void heard.push(`order ${o.clientOrderId} ${o.status}`),
        onFill(f) {
          fills++;
          heard.push(`fill ${f.side} ${f.volume}`);
          placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', volume: f.volume, price: dec.roundUp(dec.mul(f.price, d('1.03')), 2) }));
        },
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last || placed.length > 0) return;
          placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d('0.97')), 2) }));
        },
        onSave: () => ({ fills }),
      };
    },
  });
  return { definition, heard, placed, fills: () => fills };
}

describe('events that come before a strategy has started', () => {
  it('a fill found by the start-up reconcile reaches it after onLoad and onStart (and the prices), and what it places then is sent', async () => {
    // First run: the buy rests; the stop leaves it open and saves the state (no fills yet).
    const first = keeper();
    const one = await engineApp(yaml, [loaded('keeper', first.definition)]);
    void one.app.start();
    await runUntil(one.clock, SIM_START + 1000);
    const buy = first.placed[0]!;
    expect(one.app.journal.order(buy)?.status).toBe('open');
    await drive(one.clock, one.app.stop());
    expect(one.sim.openOrders().spot.map((o) => o.clientOrderId)).toEqual([buy]);

    // While the daemon is down, another participant sells into the buy.
    await runUntil(one.clock, one.clock.now() + 5000);
    const price = one.app.journal.order(buy)!.price!;
    one.sim.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [], asks: [[dec.add(price, d('10')), '5']] });
    one.sim.applyMarketEvent({ type: 'trade', symbol: 'BTCUSDT', price, qty: '0.001', side: 'SELL' });
    expect(one.sim.openOrders().spot).toEqual([]);

    // Second run, on the same journal and venue.
    const second = keeper();
    second.placed.push(buy);
    running = await engineApp(yaml, [loaded('keeper', second.definition)], { restartOf: one });
    const { app, clock, sim, logs } = running;
    void app.start();
    await runUntil(clock, clock.now() + 1000);

    expect(second.heard.slice(0, 5)).toEqual(['load fills=0', 'start', 'marketData ticker', 'fill BUY 0.001', `order ${buy} filled`]);
    // What onFill recorded stands (onLoad ran before it), and its sell was sent, not refused.
    expect(second.fills()).toBe(1);
    const sell = second.placed[1]!;
    expect(sim.orderLog().map((o) => o.clientOrderId)).toEqual([buy, sell]);
    expect(app.journal.order(sell)?.status).toBe('open');
    expect(logs.withMsg('intent rejected')).toEqual([]);
  });

  it('a start-up reconcile that cannot read the trades holds every strategy until a pass that does', async () => {
    const first = keeper();
    const one = await engineApp(yaml, [loaded('keeper', first.definition)]);
    void one.app.start();
    await runUntil(one.clock, SIM_START + 1000);
    const buy = first.placed[0]!;
    await drive(one.clock, one.app.stop());
    // While the daemon is down, another participant sells into the buy.
    const price = one.app.journal.order(buy)!.price!;
    one.sim.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [], asks: [[dec.add(price, d('10')), '5']] });
    one.sim.applyMarketEvent({ type: 'trade', symbol: 'BTCUSDT', price, qty: '0.001', side: 'SELL' });

    const second = keeper();
    second.placed.push(buy);
    running = await engineApp(yaml, [loaded('keeper', second.definition)], { restartOf: one });
    const { app, clock, logs } = running;
    // The venue's trades reads fail for the first two passes (a 503 after the retries).
    let failing = 2;
    const trades = app.readers.spot.trades.bind(app.readers.spot);
    vi.spyOn(app.readers.spot, 'trades').mockImplementation(async (symbol, fromId) => {
      if (failing > 0) {
        failing--;
        throw new TemporaryError({ endpoint: 'spot.myTrades', httpStatus: 503 }, 'HTTP 503 (service unavailable)', false);
      }
      return trades(symbol, fromId);
    });
    let started = false;
    void app.start().then(() => (started = true));
    // The restart first waits out the last run's rate windows (2 s), then the first pass fails.
    await runUntil(clock, clock.now() + 2300);
    expect(failing).toBe(1);
    expect(app.engine.ready).toBe(false);
    expect(second.heard).toEqual([]);
    expect(logs.withMsg('the start-up reconcile could not read the whole account; strategies start after a pass that does')).toHaveLength(1);
    await runUntil(clock, clock.now() + 3000);
    expect(failing).toBe(0);
    expect(started).toBe(true);
    expect(second.heard.slice(0, 5)).toEqual(['load fills=0', 'start', 'marketData ticker', 'fill BUY 0.001', `order ${buy} filled`]);
    expect(app.engine.positions.position('spot', 'BTCUSDT').quantity).toBe('0.001');
  });
});
