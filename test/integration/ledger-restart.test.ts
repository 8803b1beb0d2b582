// Each strategy's own books across a restart on a SQLite journal: restored from the checkpoint
// taken with the positions' (only the fills after it replayed), they are what a rebuild from
// every fill gives, and the strategies' latest fills and orders come from the journal either
// way. The engine through the composition root on the in-process simulator, manual clock.
import { afterEach, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.js';
import { LEDGER_CHECKPOINT } from '../../src/engine/ledger-checkpoint.js';
import { POSITIONS_CHECKPOINT } from '../../src/engine/positions-checkpoint.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { cleanUp, deleteCursors, restartOn, tradeThenStop } from '../fixtures/ledger-trading.js';

afterEach(cleanUp);

describe("strategies' own books across a restart on a SQLite journal", () => {
  it('restored from the checkpoint (only later fills replayed) equal a rebuild from every fill: positions, PnL, fees, fills and orders', async () => {
    const { one, path, before } = await tradeThenStop(20_000);
    // Both traded both ways: fills, realised PnL and fees in each.
    for (const s of [before.alpha, before.beta]) {
      expect(s.fills.length).toBeGreaterThan(40);
      expect(s.orders.length).toBeGreaterThan(40);
      expect(dec.isZero(s.position.realizedPnl)).toBe(false);
      expect(dec.isPositive(s.position.fees)).toBe(true);
    }
    expect(before.alpha.position).not.toEqual(before.beta.position);
    const probe = SqliteJournal.open(path, { readOnly: true });
    const last = probe.lastFillId();
    const saved = JSON.parse(probe.cursor(LEDGER_CHECKPOINT)!) as { throughFill: number; strategies: { strategyId: string }[] };
    const positionsThrough = (JSON.parse(probe.cursor(POSITIONS_CHECKPOINT)!) as { throughFill: number }).throughFill;
    probe.close();
    expect(saved.throughFill).toBe(last);
    expect(positionsThrough).toBe(last);
    expect(saved.strategies.map((s) => s.strategyId)).toEqual(['alpha', 'beta']);

    // With the checkpoint: the start's one read of the fills begins after it, and nothing is set aside.
    const restored = await restartOn(one, path);
    expect(restored.replayedFrom).toEqual([last]);
    expect(restored.logs.withMsg("the strategies' own checkpoint cannot be used: their positions are rebuilt from every fill")).toEqual([]);

    // Without it (the cursors deleted): every fill replayed, the same books.
    deleteCursors(path, [LEDGER_CHECKPOINT, POSITIONS_CHECKPOINT]);
    const rebuilt = await restartOn(one, path);
    expect(rebuilt.replayedFrom).toEqual([0]);

    expect(restored.own).toEqual(rebuilt.own);
    expect(restored.account).toEqual(rebuilt.account);
    for (const id of ['alpha', 'beta'] as const) {
      expect(restored.own[id].position).toEqual(before[id].position);
      expect(restored.own[id].fills).toEqual(before[id].fills);
      expect(restored.own[id].orders.map((o) => [o.clientOrderId, o.status, o.executedVolume])).toEqual(before[id].orders.map((o) => [o.clientOrderId, o.status, o.executedVolume]));
    }
  }, 60_000);
});
