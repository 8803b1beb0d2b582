// A stop whose orders the venue never settles (it stopped answering) ends with them named: an
// error line, a stop_unsettled alert, and the outcome the daemon turns into its exit code. The
// real composition root on the in-process simulator, a manual clock.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../../../src/core/ids.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { Order } from '../../../src/core/types.js';
import { pendingOrder, withStatus } from '../../../src/engine/orders.js';
import type { OrderPipeline } from '../../../src/engine/pipeline.js';
import { settleAtStop } from '../../../src/engine/stop.js';
import { UnbookedExecutions } from '../../../src/engine/unbooked.js';
import { PURGED_REASON } from '../../../src/reconciler/settle.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { drive, engineApp, loaded, MemoryLog, placeOf, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

const yaml = (cancel: boolean) => `
mode: paper
engine:
  marketDataEveryMs: 100
  reconcileEveryMs: 500
  summaryEveryMs: 60000
  shutdown: { queued: drop, cancelOpenOrders: ${cancel} }
venue:
  retry: { retries: 1, baseDelayMs: 100, maxDelayMs: 100 }
risk:
  maxOrdersPerSecond: 100
`;

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

/** Places two LIMIT buys 3% and 4% under the last price, once. */
const twoBids = (placed: ClientOrderId[]) =>
  defineStrategy({
    apiVersion: 1,
    name: 'bids',
    params: z.object({}),
    create(ctx) {
      return {
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last || placed.length > 0) return;
          for (const f of ['0.97', '0.96']) placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d(f)), 2) }));
        },
      };
    },
  });

async function withRestingOrders(cancel: boolean) {
  const placed: ClientOrderId[] = [];
  const alerts: { kind: string; message: string; details: Record<string, unknown> }[] = [];
  running = await engineApp(yaml(cancel), [loaded('bids', twoBids(placed))], { alert: (kind, message, details) => void alerts.push({ kind, message, details }) });
  void running.app.start();
  await runUntil(running.clock, SIM_START + 1000);
  expect(placed.map((id) => running!.app.journal.order(id)?.status)).toEqual(['open', 'open']);
  return { ...running, placed, alerts };
}

describe('a stop the venue does not answer', () => {
  it('leaves our orders resting, and says so: an error line, a stop_unsettled alert naming them and what to do, and the outcome', async () => {
    const { app, clock, sim, logs, placed, alerts } = await withRestingOrders(true);
    sim.setFaults({ resetRate: 1 }); // every connection drops: the cancels and the reads fail
    const outcome = await drive(clock, app.stop());
    running = undefined;

    expect(sim.openOrders().spot.map((o) => o.clientOrderId).sort()).toEqual([...placed].sort());
    expect(outcome.unsettled.map((o) => o.clientOrderId).sort()).toEqual([...placed].sort());
    expect(alerts.map((a) => a.kind)).toEqual(['stop_unsettled']);
    expect(alerts[0]!.message).toBe(
      'sluice stopped with 2 orders of ours that may still be resting at the venue (2 open) on BTCUSDT: the venue did not settle them within the stop\'s bound (is it unreachable?). ' +
        'Check them with `sluice status`, cancel them on the venue by hand, or start sluice again to reconcile them',
    );
    expect(alerts[0]!.details).toEqual({ orders: 2, symbols: ['BTCUSDT'], byStatus: { open: 2 }, clientOrderIds: placed, reason: 'deadline', cancelOpenOrders: true });
    expect(logs.lines.filter((l) => l.alert === 'stop_unsettled').map((l) => [l.level, l.orders])).toEqual([[50, 2]]);
  });

  it('a hurried stop with the venue gone says it was hurried', async () => {
    const { app, clock, sim, alerts } = await withRestingOrders(true);
    sim.setFaults({ resetRate: 1 });
    const stopping = app.stop();
    app.hurry();
    const outcome = await drive(clock, stopping);
    running = undefined;
    expect(outcome.unsettled).toHaveLength(2);
    expect(alerts.map((a) => [a.kind, a.details.reason])).toEqual([['stop_unsettled', 'hurried']]);
    expect(alerts[0]!.message).toContain('(2 open) on BTCUSDT: a second signal hurried the stop. Check them with');
  });

  it('a hurried stop whose cancels the venue took alerts nothing: those orders only wait for the venue to settle them', async () => {
    const { app, clock, placed, alerts } = await withRestingOrders(true);
    const stopping = app.stop();
    app.hurry();
    const outcome = await drive(clock, stopping);
    running = undefined;
    expect(placed.map((id) => app.journal.order(id)?.status)).toEqual(['pending_cancel', 'pending_cancel']);
    expect([outcome.unsettled, alerts]).toEqual([[], []]);
  });

  it('a stop that settles everything alerts nothing and leaves nothing, cancelling or not', async () => {
    for (const cancel of [true, false]) {
      const { app, clock, sim, alerts } = await withRestingOrders(cancel);
      const outcome = await drive(clock, app.stop());
      running = undefined;
      expect([outcome.unsettled, alerts, sim.openOrders().spot.length]).toEqual([[], [], cancel ? 0 : 2]);
    }
  });

  it('resting orders the config leaves are not unsettled, even with the venue gone', async () => {
    const { app, clock, sim, alerts } = await withRestingOrders(false);
    sim.setFaults({ resetRate: 1 });
    const outcome = await drive(clock, app.stop());
    running = undefined;
    expect([outcome.unsettled, alerts]).toEqual([[], []]);
  });
});

describe("the stop's unsettled line and its grace for late fills", () => {
  const venueOrderId = '900000000000000001' as VenueOrderId;
  /**
   * One order of ours, `status` when the stop starts (default: its cancel taken, pending_cancel),
   * that the venue settles at `settlesAt` ms into the stop (never when undefined) as cancelled
   * having executed `executed` (or forgets it: -2013, when `purged`), whose fill shows at
   * `fillAt` ms (never when undefined). What the venue said executed and the fills journaled go
   * through the engine's UnbookedExecutions, as in the engine. Returns when the stop ended.
   */
  async function stopWith(o: { settlesAt: number | undefined; executed?: string; fillAt?: number; status?: 'pending_cancel' | 'filled'; purged?: boolean }) {
    const clock = new ManualClock(1_000_000);
    const start = clock.now();
    const journal = new MemoryJournal();
    const log = new MemoryLog();
    const unbooked = new UnbookedExecutions((market, symbol, id) => journal.fillVolumes(market, symbol, id).reduce(dec.add, d('0')));
    const executed = d(o.executed ?? '0');
    const intent = placeOf('t-1', { strategyId: 't' });
    const first = withStatus(pendingOrder(intent, start), o.status ?? 'pending_cancel', start, venueOrderId);
    journal.recordIntent(intent, o.status === 'filled' ? ({ ...first, executedVolume: executed } as Order) : first);
    unbooked.update(journal.order(intent.clientOrderId)!);
    const pipeline = { submit: () => undefined, drain: async () => undefined } as unknown as OrderPipeline;
    const reconcile = async () => {
      const at = clock.now() - start;
      const order = journal.order(intent.clientOrderId)!;
      if (o.settlesAt !== undefined && at >= o.settlesAt && order.status === 'pending_cancel') {
        journal.updateOrder({ ...withStatus(order, 'canceled', clock.now()), executedVolume: o.purged ? d('0') : executed } as Order, o.purged ? PURGED_REASON : 'canceled');
        unbooked.update(journal.order(intent.clientOrderId)!);
      }
      if (o.fillAt !== undefined && at >= o.fillAt && journal.fills().length === 0) {
        journal.recordFill({ tradeId: '1', market: 'spot', symbol: 'BTCUSDT', venueOrderId, side: 'BUY', price: d('20000'), volume: executed, fee: d('0'), feeAsset: 'USDT', isMaker: true, time: clock.now() });
        unbooked.booked(journal.order(intent.clientOrderId)!);
      }
    };
    // The bound: twice graceMs (cancels may wait a grace to settle, then the grace for late
    // fills) + 8 passes of 300 ms = 4400 ms.
    const outcome = await drive(clock, settleAtStop({ journal, clock, log, pipeline, ours: new Set(['t']), cancel: true, unknownTimeoutMs: 10_000, graceMs: 1000, unbooked, reconcile }));
    return { outcome, log, tookMs: clock.now() - start, fills: journal.fills().length };
  }

  it('is not said when everything settled and only the grace for late fills was left when the bound came', async () => {
    // Settled 3700 ms in, a fill still to show: the grace would end at 4700, the bound at 4400.
    const { outcome, log } = await stopWith({ settlesAt: 3700, executed: '0.004' });
    expect(outcome.unsettled).toEqual([]);
    expect(log.withMsg('stopping with orders still unsettled; the next start settles them')).toEqual([]);
    expect(log.withMsg('the stop ends before the grace for late fills did: a fill the venue shows later is journaled at the next start')).toHaveLength(1);
  });

  it('is said with the count when an order is still unsettled at the bound', async () => {
    const { log } = await stopWith({ settlesAt: undefined });
    expect(log.withMsg('stopping with orders still unsettled; the next start settles them').map((l) => l.fields.unsettled)).toEqual([1]);
  });

  it('waits no grace once every execution the venue told of has its fills journaled', async () => {
    // Passes 300 ms apart: the one at 900 ms sees the order settled, with nothing executed or with its fill in.
    expect(await stopWith({ settlesAt: 800 })).toMatchObject({ tookMs: 900, fills: 0 });
    expect(await stopWith({ settlesAt: 800, executed: '0.004', fillAt: 0 })).toMatchObject({ tookMs: 900, fills: 1 });
  });

  it('waits for a fill the order says it made, up to the grace', async () => {
    // Settled at 900 ms: its fill shows at 1500 ms (the pass at 1500), or never (the grace ends at 1900, the pass at 2100).
    expect(await stopWith({ settlesAt: 800, executed: '0.004', fillAt: 1400 })).toMatchObject({ tookMs: 1500, fills: 1 });
    expect(await stopWith({ settlesAt: 800, executed: '0.004' })).toMatchObject({ tookMs: 2100, fills: 0 });
  });

  it('waits for the fill of an order already final when the stop began (a market order answered filled)', async () => {
    // Nothing to settle: the first pass (0 ms) starts the grace; the fill shows at the pass at 600 ms.
    expect(await stopWith({ settlesAt: undefined, status: 'filled', executed: '0.004', fillAt: 600 })).toMatchObject({ tookMs: 600, fills: 1 });
  });

  it('waits the grace for an order the venue forgot (-2013): it said nothing of what that order executed', async () => {
    expect(await stopWith({ settlesAt: 800, purged: true })).toMatchObject({ tookMs: 2100, fills: 0 });
  });
});
