// A strategy at max_open_orders that cancels more than a batch cancel's worth of quotes quotes anew
// once a reconcile pass finds them gone from the venue's book, not drift.graceMs later: they stay
// pending_cancel in the journal until then (their last fills may still show), and their volume
// still counts, but they hold no place at the venue. The engine on the in-process simulator, on a
// manual clock.
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

describe('max_open_orders after a cancel', () => {
  it("does not count orders the venue's book no longer lists while their fills may still show", async () => {
    const quotes: ClientOrderId[] = [];
    const retries: ClientOrderId[] = [];
    let cancelledAt: number | undefined;
    const strategy = defineStrategy({
      apiVersion: 2,
      name: 'requote',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last) return;
          const bid = (pct: string) => ctx.roundPrice('BTCUSDT', dec.mul(last, d(pct)), 'BUY');
          if (quotes.length === 0) {
            for (let k = 0; k < 12; k++) quotes.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: bid(`0.${90 - k}`) }));
            return;
          }
          const open = ctx.openOrders('BTCUSDT');
          if (cancelledAt === undefined) {
            if (open.filter((o) => o.status === 'open').length < 12) return;
            ctx.cancelAll('BTCUSDT');
            cancelledAt = ctx.now();
            return;
          }
          // One new quote a tick until one is accepted.
          if (retries.some((id) => ctx.orders('BTCUSDT').some((o) => o.clientOrderId === id && o.status !== 'rejected'))) return;
          retries.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: bid('0.70') }));
        },
      }),
    });
    running = await engineApp(
      `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 1000, summaryEveryMs: 600000 }
reconcile: { drift: { graceMs: 10000 } }
risk: { maxOpenOrders: 12, duplicateWindowMs: 0, priceBandPct: "50" }
strategies:
  - { id: requote, use: inline:requote, symbols: [BTCUSDT], everyMs: 250 }
`,
      [loaded('requote', strategy, { everyMs: 250 })],
    );
    const { app, clock } = running;
    void app.start();
    await runUntil(clock, SIM_START + 30_000);

    const { journal } = app;
    expect(cancelledAt).toBeDefined();
    // Refused while the book still listed the twelve (the cancels answered, no pass since)...
    expect(retries.length).toBeGreaterThan(1);
    expect(retries.slice(0, -1).map((id) => journal.order(id)?.status)).toEqual(retries.slice(0, -1).map(() => 'rejected'));
    expect(app.engine.stats.refusedBy).toEqual({ max_open_orders: { count: retries.length - 1, first: 'max_open_orders: requote has 12 open orders, at the 12 limit' } });
    // ...then accepted at the first pass after the cancels, while the twelve were still
    // pending_cancel in the journal: more than a batch cancel's worth are not asked about one by
    // one (commit.ts), so they settle drift.graceMs after leaving the book.
    const accepted = journal.order(retries.at(-1)!)!;
    expect(accepted.status).toBe('open');
    expect(accepted.createdAt - cancelledAt!).toBeLessThan(3_000);
    for (const id of quotes) {
      const events = journal.history(id);
      expect(events.at(-1)!.status).toBe('canceled');
      expect(events.at(-1)!.at).toBeGreaterThan(accepted.createdAt + 5_000);
    }
  });
});
