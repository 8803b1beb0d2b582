// The shipped TWAP across a daemon restart on the same journal and venue (the composition root
// on the in-process simulator, manual clock): what the first run bought, and an order it sent
// whose answer never came back before it died, count toward `total` in the second run, so the
// venue sees `total` bought once, not again (review r2: 0.03 became 0.09 over three runs).
import { afterEach, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.js';
import type { LoadedStrategy } from '../../src/strategy/loader.js';
import twap from '../../strategies/twap/index.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../fixtures/engine-parts.js';

const yaml = `
mode: paper
engine:
  marketDataEveryMs: 100
  reconcileEveryMs: 500
  summaryEveryMs: 600000
  shutdown: { queued: drop, cancelOpenOrders: false }
risk:
  maxOrdersPerSecond: 100
`;

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

function twapEntry(): LoadedStrategy {
  const base = loaded('twap1', twap, { everyMs: 1000 });
  return { entry: base.entry, definition: base.definition, params: twap.params.parse({ side: 'BUY', total: '0.03', slices: 3, slippagePct: '0.5' }) };
}

/** What the venue holds of twap1's orders: how many, what they executed, and what is still open. */
function atVenue(one: EngineApp) {
  const mine = one.sim.orderLog().filter((o) => o.clientOrderId?.startsWith('sltwap1'));
  const ids = new Set(mine.map((o) => o.orderId));
  const trades = one.sim.allTrades().filter((t) => ids.has(t.orderId));
  return {
    orders: mine.map((o) => `${o.side} ${o.volume}`),
    bought: dec.sum(trades.filter((t) => t.side === 'BUY').map((t) => t.qty)),
    open: one.sim.openOrders().spot.filter((o) => ids.has(o.orderId)).length,
  };
}

describe('twap across a restart', () => {
  it('a stop after one slice filled and one sent without an answer, then a start: the venue is bought total, not more', async () => {
    const one = await engineApp(yaml, [twapEntry()]);
    void one.app.start();
    const journaled = (app: EngineApp) => app.app.journal.orders({ strategyId: 'twap1' });
    // The first slice goes out and fills.
    for (let i = 0; i < 40 && atVenue(one).bought === '0'; i++) await runUntil(one.clock, one.clock.now() + 100);
    expect(atVenue(one)).toMatchObject({ orders: ['BUY 0.01'], bought: '0.01' });
    // The second is sent and the venue takes it, but its answer is lost: the daemon stops with
    // it journaled and unanswered (no reconcile pass has found it yet).
    one.sim.setFaults({ lostResponseRate: 1 });
    for (let i = 0; i < 40 && atVenue(one).orders.length < 2; i++) await runUntil(one.clock, one.clock.now() + 50);
    expect(atVenue(one).orders).toEqual(['BUY 0.01', 'BUY 0.01']);
    const second = journaled(one).find((o) => o.clientOrderId !== journaled(one)[0]!.clientOrderId)!;
    expect(['pending', 'unknown']).toContain(second.status);
    await drive(one.clock, one.app.stop());
    one.sim.setFaults({ lostResponseRate: 0 });

    // Second run on the same journal and venue: it sends only the third slice.
    running = await engineApp(yaml, [twapEntry()], { restartOf: one });
    void running.app.start();
    await runUntil(running.clock, running.clock.now() + 20_000);
    const end = atVenue(running);
    expect(end.orders).toEqual(['BUY 0.01', 'BUY 0.01', 'BUY 0.01']);
    expect(end.bought).toBe('0.03');
    expect(end.open).toBe(0);
    expect(journaled(running).map((o) => [o.status, o.executedVolume])).toEqual([['filled', '0.01'], ['filled', '0.01'], ['filled', '0.01']]);
  }, 60_000);

  it('a clean stop once total is bought, then a start: nothing more is sent', async () => {
    const one = await engineApp(yaml, [twapEntry()]);
    void one.app.start();
    await runUntil(one.clock, SIM_START + 10_000);
    expect(atVenue(one)).toMatchObject({ orders: ['BUY 0.01', 'BUY 0.01', 'BUY 0.01'], bought: '0.03', open: 0 });
    await drive(one.clock, one.app.stop());
    running = await engineApp(yaml, [twapEntry()], { restartOf: one });
    void running.app.start();
    await runUntil(running.clock, running.clock.now() + 10_000);
    expect(atVenue(running)).toMatchObject({ orders: ['BUY 0.01', 'BUY 0.01', 'BUY 0.01'], bought: '0.03', open: 0 });
  }, 60_000);
});
