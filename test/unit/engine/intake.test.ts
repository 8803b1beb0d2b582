// admit(): a strategy's output to the journal and the order pipeline, on the real MemoryJournal,
// RiskGate and BalanceHolds (the pipeline rig's), on a manual clock.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { RiskRejection } from '../../../src/risk/index.js';
import { admit, refusals } from '../../../src/engine/intake.js';
import { BTCUSDT, cid, pipelineRig, placeOf, settle } from '../../fixtures/engine-parts.js';

function intake(rig: ReturnType<typeof pipelineRig>) {
  const refusedByRisk: RiskRejection[] = [];
  const stats = { intents: 0, riskRejections: 0, refusedBy: {} };
  const riskInputs = () => ({ positions: new Map(), openOrders: rig.journal.orders({ openOnly: true }), balances: rig.holds.free([{ asset: 'USDT', free: d('100000'), locked: d('0') }], 0), lastPrices: new Map([['spot:BTCUSDT', d('20000')]]), instruments: new Map([['spot:BTCUSDT', BTCUSDT]]) });
  const parts = { clock: rig.clock, repeats: refusals(rig.log, rig.clock), journal: rig.journal, risk: rig.risk, holds: rig.holds, pipeline: rig.pipeline, riskInputs, onRejected: (r: RiskRejection) => refusedByRisk.push(r), stats };
  return { parts, refusedByRisk, stats };
}

describe('admit: strategy output to journal and pipeline', () => {
  it('journals the accepted pending and the refused rejected in one go, queues only the accepted, and counts each kind', async () => {
    const rig = pipelineRig({ free: { 'spot.order': 5 } });
    const { parts, refusedByRisk, stats } = intake(rig);
    // 100 BTC at 20000 is 2,000,000 USDT: over the rig's 1,000,000 per order.
    const refused = admit(parts, {
      intents: [placeOf('ok'), placeOf('big', { volume: d('100') })],
      invalid: [{ strategyId: 't', clientOrderId: cid('bad'), reason: 'volume must be positive' }],
    });
    expect(refused.map(({ order: o, reason }) => [o.clientOrderId, o.status, reason.split(':')[0]])).toEqual([['big', 'rejected', 'max_notional_per_order']]);
    expect(refusedByRisk.map((r) => [r.intent.clientOrderId, r.rule])).toEqual([['big', 'max_notional_per_order']]);
    expect([rig.order('ok').status, rig.order('big').status]).toEqual(['pending', 'rejected']);
    expect(rig.journal.order('bad')).toBeUndefined();
    expect(stats).toEqual({ intents: 2, riskRejections: 1, refusedBy: { invalid: { count: 1, first: 'volume must be positive' }, max_notional_per_order: { count: 1, first: expect.stringMatching(/^max_notional_per_order: /) as unknown as string } } });
    expect(rig.pipeline.stats.rejected).toBe(1);
    expect(rig.log.withMsg('intent rejected').map((l) => l.fields.rule)).toEqual(['invalid', 'max_notional_per_order']);
    await settle();
    expect(rig.gateway.handed.flatMap((h) => h.batch.items.map((i) => i.clientOrderId))).toEqual(['ok']);
  });

  it('an output with nothing to place touches neither risk nor the journal', () => {
    const rig = pipelineRig();
    const { parts, stats } = intake(rig);
    expect(admit(parts, { intents: [], invalid: [] })).toEqual([]);
    expect(stats).toEqual({ intents: 0, riskRejections: 0, refusedBy: {} });
    expect(rig.journal.orders({})).toEqual([]);
  });

  it('a plugin refused thousands of times logs each strategy, rule and reason five times a 10 s window, then a count; the journal and the counts miss none', async () => {
    const rig = pipelineRig();
    const { parts } = intake(rig);
    const bad = (n: number, reason = `volume ${n} must be positive`) => ({ strategyId: 't', clientOrderId: cid(`bad${n}`), reason });
    admit(parts, { intents: [], invalid: Array.from({ length: 1000 }, (_, n) => bad(n)) });
    // Another reason is another group, in full at once.
    admit(parts, { intents: [], invalid: [bad(1000, 'price is missing')] });
    expect(rig.log.withMsg('intent rejected').map((l) => l.fields.clientOrderId)).toEqual(['bad0', 'bad1', 'bad2', 'bad3', 'bad4', 'bad1000']);
    expect(rig.pipeline.stats.rejected).toBe(1001);
    await rig.clock.advance(9_999);
    admit(parts, { intents: [], invalid: [bad(1001)] });
    expect(rig.log.lines.filter((l) => l.msg.startsWith('intent rejected'))).toHaveLength(6);
    await rig.clock.advance(1);
    admit(parts, { intents: [], invalid: [bad(1002)] });
    const told = rig.log.lines.at(-1)!;
    expect([told.fields.clientOrderId, told.fields.repeats, told.msg]).toEqual(['bad1002', 996, `intent rejected (996 more since ${new Date(rig.clock.now() - 10_000).toISOString()})`]);
    // The engine's stop tells what is held back then.
    admit(parts, { intents: [], invalid: Array.from({ length: 7 }, (_, n) => bad(2000 + n)) });
    parts.repeats.flush();
    const flushed = rig.log.lines.at(-1)!;
    expect([flushed.fields.clientOrderId, flushed.fields.repeats]).toEqual(['bad2006', 3]);
  });
});
