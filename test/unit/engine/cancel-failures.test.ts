// A cancel that ends without effect, through the whole engine (the composition root's backtest
// profile: the in-process simulator on a manual clock): a strategy asks to cancel its resting
// bid every tick while the venue bans the key; the cancels asked during the ban wait, expire
// (engine.maxQueueMs) and are reported to the strategy, which asks again, and once the ban ends
// its cancel goes out and the order ends cancelled.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import { defineStrategy, z, type OrderEvent } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

const BAN_AT = 1500;
const BAN_MS = 4000;
const yaml = `
mode: paper
sim:
  scenario:
    - { kind: ban, atMs: ${BAN_AT}, durationMs: ${BAN_MS} }
engine:
  marketDataEveryMs: 100
  reconcileEveryMs: 500
  summaryEveryMs: 600000
  maxQueueMs: 1000
  shutdown: { queued: drop, cancelOpenOrders: false }
risk:
  maxOrdersPerSecond: 100
`;

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

/** Places one bid 3% under the market; from 2 s into the run, asks to cancel it on every tick while it is open. */
function persistentCanceller() {
  const events: Array<[string, string | undefined]> = [];
  let resolveCanceled!: () => void;
  const canceled = new Promise<void>((resolve) => (resolveCanceled = resolve));
  let id: ClientOrderId | undefined;
  let asked = 0;
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'canceller',
    params: z.object({}),
    create(ctx) {
      return {
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last) return;
          if (!id) {
            id = ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: ctx.roundPrice('BTCUSDT', dec.mul(last, d('0.97')), 'BUY') });
            return;
          }
          const order = ctx.openOrders().find((o) => o.clientOrderId === id);
          if (order?.status !== 'open' || ctx.now() < SIM_START + 2000) return;
          asked++;
          ctx.cancel(id);
        },
        onOrderEvent(e: OrderEvent) {
          events.push([e.kind, 'reason' in e ? e.reason : undefined]);
          if (e.kind === 'canceled') resolveCanceled();
        },
      };
    },
  });
  return { definition, events, canceled, asked: () => asked, id: () => id };
}

describe('a cancel that fails during a ban', () => {
  it('is reported to the strategy, which asks again; once the ban ends its cancel goes and the order ends cancelled', async () => {
    const c = persistentCanceller();
    running = await engineApp(yaml, [loaded('canceller', c.definition)]);
    const { app, clock } = running;
    void app.start();
    await drive(clock, c.canceled, 20_000);

    const order = app.journal.order(c.id()!)!;
    expect(order.status).toBe('canceled');
    // Cancelled after the ban, not during it.
    expect(order.updatedAt).toBeGreaterThanOrEqual(SIM_START + BAN_AT + BAN_MS);
    const kinds = c.events.map(([kind]) => kind);
    expect(kinds[0]).toBe('accepted');
    expect(kinds.slice(-2)).toEqual(['cancel_pending', 'canceled']);
    const failed = c.events.filter(([kind]) => kind === 'cancel_failed');
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(new Set(failed.map(([, reason]) => reason))).toEqual(new Set(['not sent within 1000 ms (engine.maxQueueMs)']));
    // Asked on every tick, but one cancel left the strategy per failure it heard (and the first),
    // next to its one place: a cancel on its way is not asked for twice.
    expect(c.asked()).toBeGreaterThan(failed.length + 1);
    expect(app.engine.stats.intents).toBe(1 + failed.length + 1);
    // Cancels asked during the ban waited for its end instead of meeting its refusal.
    expect(app.engine.pipeline.stats.cancelsSent).toBe(1);
  });
});
