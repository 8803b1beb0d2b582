// The dashboard's data source over the real composition root (backtest profile: the in-process
// simulator, a memory journal, a manual clock).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDaemonOpsSource, RECENT_FILLS, UNREACHABLE_ALERT_AFTER_PASSES, VenueWatch, type VenueAlert } from '../../../src/app/ops-source.js';
import type { CallRecord } from '../../../src/executor/index.js';
import { d } from '../../../src/core/decimal.js';
import { fill } from '../../contract/journal.contract.js';
import { fill as trade } from '../../fixtures/builders.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

/** Trades nothing: its symbol is what the reconcile passes read. */
const idle = defineStrategy({ apiVersion: 1, name: 'idle', params: z.object({}), create: () => ({}) });

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

const fillAt = (n: number, time: number) => fill(`t${n}`, { time });

describe('the dashboard\'s recent fills', () => {
  it('at the first look are the journal\'s latest, newest first, read without streaming the journal; later ones arrive as the engine reports them', async () => {
    running = await engineApp('mode: paper\n', []);
    const { app, config } = running;
    // 3,000 fills journaled in time order, then a late one of an old trade (a catch-up).
    for (let i = 0; i < 3000; i++) app.journal.recordFill(fillAt(i, 1_000_000 + i));
    app.journal.recordFill(fillAt(9999, 5));
    const streamed = vi.spyOn(app.journal, 'eachFill');
    const ops = createDaemonOpsSource({ config, app: () => app, now: () => 0, watch: new VenueWatch() });

    const first = ops.status().fills;
    expect(streamed).not.toHaveBeenCalled();
    expect(first).toHaveLength(RECENT_FILLS);
    expect(first[0]).toMatchObject({ tradeId: 't2999', time: 1_002_999 });
    expect(first.at(-1)).toMatchObject({ tradeId: `t${3000 - RECENT_FILLS}` });
    expect(first.map((f) => f.time)).toEqual([...first.map((f) => f.time)].sort((a, b) => b - a));

    app.engine.events.emit('fill', fillAt(3000, 2_000_000));
    expect(ops.status().fills[0]).toMatchObject({ tradeId: 't3000' });
    expect(ops.status().fills).toHaveLength(RECENT_FILLS);
  });
});

describe("the dashboard's positions and PnL", () => {
  it('are rounded as sluice status shows them (the average entry to the price precision + 2, money to 8 places), fees in other assets beside', async () => {
    running = await engineApp('mode: paper\n', [loaded('idle', idle, { symbols: ['BTCUSDT'] })]);
    const { app, config, clock } = running;
    // Entry 180.00008/0.006 = 30000.01333...; fees 0.090000050000001; a buy's fee of 0.000001 BTC taken in the base coin.
    app.journal.recordFill(trade('BUY', '0.001', '30000.01', { tradeId: 's1', fee: d('0.03000001') }));
    app.journal.recordFill(trade('BUY', '0.002', '30000.02', { tradeId: 's2', fee: d('0.060000040000001') }));
    app.journal.recordFill(trade('BUY', '0.003', '30000.01', { tradeId: 's3', fee: d('0.000001'), feeAsset: 'BTC' }));
    void app.start();
    await runUntil(clock, clock.now() + 1000);
    const status = createDaemonOpsSource({ config, app: () => app, now: () => clock.now(), watch: new VenueWatch() }).status();
    expect(status.positions).toEqual([{ market: 'spot', symbol: 'BTCUSDT', quantity: '0.006', avgEntryPrice: '30000.0133', realizedPnl: '0', fees: '0.09000005', feesOther: { BTC: '0.000001' } }]);
    expect(status.pnl).toEqual({ realized: '0', fees: '0.09000005', feesOther: { BTC: '0.000001' } });
  });
});

describe('VenueWatch: the venue\'s reachability, alerted per reconcile pass', () => {
  const call = (finishedAt: number, httpStatus?: number): CallRecord => ({ endpoint: 'spot.openOrders', attempt: 1, requestedAt: finishedAt, sentAt: finishedAt, finishedAt, ...(httpStatus !== undefined ? { httpStatus } : {}) });

  it('alerts once after UNREACHABLE_ALERT_AFTER_PASSES passes in a row end unreachable, and once when it answers again', () => {
    const watch = new VenueWatch();
    watch.observe(call(1_000, 200));
    const changes: (VenueAlert | undefined)[] = [];
    // A pass that ends unreachable, then one that ends reachable: a blip, nothing said.
    for (let i = 0; i < 3; i++) watch.observe(call(2_000 + i));
    changes.push(watch.passEnded());
    watch.observe(call(3_000, 503)); // a 5xx is no answer of the venue's own
    watch.observe(call(3_100, 400)); // a 4xx is
    changes.push(watch.passEnded());
    expect(changes).toEqual([undefined, undefined]);

    for (let pass = 1; pass <= UNREACHABLE_ALERT_AFTER_PASSES + 2; pass++) {
      for (let i = 0; i < 4; i++) watch.observe(call(10_000 * pass + i));
      changes.push(watch.passEnded());
    }
    expect(changes.slice(2).map((c) => c?.kind)).toEqual([undefined, undefined, 'venue_unreachable', undefined, undefined]);
    expect(changes[4]).toEqual({
      kind: 'venue_unreachable',
      message: 'the venue is unreachable: no answer to the last 12 requests, over 3 reconcile passes in a row (its last answer: 1970-01-01T00:00:03.100Z); orders can be neither placed, cancelled nor read until it answers, and sluice keeps trying',
      details: { lastOkAt: 3_100, failuresInARow: 12, passes: 3 },
    });

    watch.observe(call(60_000));
    watch.observe(call(61_000, 200));
    expect(watch.passEnded()).toEqual({
      kind: 'venue_reachable',
      message: 'the venue answers again: it was unreachable from 1970-01-01T00:00:03.100Z to 1970-01-01T00:01:01.000Z; reconcile passes catch up on what happened meanwhile',
      details: { unreachableSince: 3_100, answeredAt: 61_000, downMs: 57_900 },
    });
    expect(watch.passEnded()).toBeUndefined();
  });

  it('a call refused locally (never sent, as during a ban) says nothing about the venue', () => {
    const watch = new VenueWatch();
    const changes = Array.from({ length: 5 }, (_, pass) => {
      for (let i = 0; i < 4; i++) watch.observe({ endpoint: 'spot.openOrders', attempt: 1, requestedAt: pass, finishedAt: pass });
      return watch.passEnded();
    });
    expect(changes).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(watch.reachable()).toBe(true);
  });

  it('on the engine: a simulator that drops every connection is alerted once as its passes fail, and once when it answers again', async () => {
    const watch = new VenueWatch();
    const changes: VenueAlert[] = [];
    running = await engineApp('mode: paper\nengine: { reconcileEveryMs: 500, summaryEveryMs: 60000 }\nvenue: { retry: { retries: 1, baseDelayMs: 50, maxDelayMs: 50 } }\n', [loaded('idle', idle)], { onCall: (r) => void watch.observe(r) });
    const { app, clock, sim } = running;
    app.engine.events.on('reconciled', () => {
      const change = watch.passEnded();
      if (change) changes.push(change);
    });
    void app.start();
    await runUntil(clock, SIM_START + 2_000);
    expect(changes).toEqual([]);

    sim!.setFaults({ resetRate: 1 });
    await runUntil(clock, SIM_START + 30_000);
    expect(changes.map((c) => c.kind)).toEqual(['venue_unreachable']);
    expect(changes[0]!.details.passes).toBe(UNREACHABLE_ALERT_AFTER_PASSES);

    sim!.setFaults({ resetRate: 0 });
    await runUntil(clock, SIM_START + 40_000);
    expect(changes.map((c) => c.kind)).toEqual(['venue_unreachable', 'venue_reachable']);
  });
});
