// Each strategy's own books across a restart on a SQLite journal: restored from the checkpoint
// taken with the positions' (only the fills after it replayed), they are what a rebuild from
// every fill gives, and the strategies' latest fills and orders come from the journal either
// way. The engine through the composition root on the in-process simulator, manual clock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { d, dec } from '../../src/core/decimal.js';
import { LEDGER_CHECKPOINT } from '../../src/engine/ledger-checkpoint.js';
import { POSITIONS_CHECKPOINT } from '../../src/engine/positions-checkpoint.js';
import { Database } from '../../src/store/driver.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { defineStrategy, z, type StrategyContext } from '../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../fixtures/engine-parts.js';

export const yaml = `
mode: paper
engine:
  marketDataEveryMs: 100
  reconcileEveryMs: 500
  summaryEveryMs: 600000
  shutdown: { queued: drop, cancelOpenOrders: true }
risk:
  maxOrdersPerSecond: 100
  maxNotionalPerOrder: "100000"
`;

let dir: string | undefined;
const opened: EngineApp[] = [];
afterEach(async () => {
  for (const a of opened.splice(0)) await drive(a.clock, a.app.stop());
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * A strategy that, while `trading`, crosses the spread every tick: buys `pattern` volumes then
 * sells, so its own position moves both ways, realises PnL and pays fees. Keeps its ctx.
 */
export function trader(pattern: readonly string[], trading: { on: boolean }) {
  const held: { ctx?: StrategyContext<Record<string, never>> } = {};
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'trader',
    params: z.object({}),
    subscribe: () => [{ kind: 'depth', limit: 5 }],
    create(ctx) {
      held.ctx = ctx;
      let n = 0;
      return {
        onTick() {
          if (!trading.on) return;
          const ask = ctx.bestAsk('BTCUSDT');
          const bid = ctx.bestBid('BTCUSDT');
          if (!ask || !bid) return;
          const volume = pattern[n % pattern.length]!;
          const side = n % 3 === 2 ? 'SELL' : 'BUY';
          n++;
          const price = side === 'BUY' ? ctx.roundPrice('BTCUSDT', dec.mul(ask, d('1.01')), 'BUY') : ctx.roundPrice('BTCUSDT', dec.mul(bid, d('0.99')), 'SELL');
          ctx.place({ symbol: 'BTCUSDT', side, type: 'LIMIT', volume, price });
        },
      };
    },
  });
  return { definition, held };
}

/** What a strategy's own reads say, decimals as strings. */
export function ownOf(ctx: StrategyContext<Record<string, never>>) {
  const p = ctx.ownPosition('BTCUSDT');
  return { position: { quantity: p.quantity, avgEntryPrice: p.avgEntryPrice, realizedPnl: p.realizedPnl, fees: p.fees }, fills: ctx.fills(), orders: ctx.orders() };
}

/** Runs two strategies trading on a SQLite journal in a temp dir for `ms`, then stops; returns what each read just before the stop. */
export async function tradeThenStop(ms: number) {
  dir = mkdtempSync(join(tmpdir(), 'sluice-ledger-'));
  const path = join(dir, 'journal.db');
  const trading = { on: true };
  const a = trader(['0.002', '0.001', '0.003'], trading);
  const b = trader(['0.001', '0.004'], trading);
  const one = await engineApp(yaml, [loaded('alpha', a.definition), loaded('beta', b.definition)], { journal: SqliteJournal.open(path) });
  void one.app.start();
  await runUntil(one.clock, SIM_START + ms);
  trading.on = false;
  await runUntil(one.clock, one.clock.now() + 2000);
  const before = { alpha: ownOf(a.held.ctx!), beta: ownOf(b.held.ctx!) };
  await drive(one.clock, one.app.stop());
  return { one, path, before };
}

/** Starts the two strategies again (not trading) on the journal at `path`; returns what each reads once started. */
export async function restartOn(one: EngineApp, path: string) {
  const trading = { on: false };
  const a = trader(['0.001'], trading);
  const b = trader(['0.001'], trading);
  const journal = SqliteJournal.open(path);
  const replayedFrom = vi.spyOn(journal, 'eachFill');
  const again = await engineApp(yaml, [loaded('alpha', a.definition), loaded('beta', b.definition)], { restartOf: one, journal });
  opened.push(again);
  void again.app.start();
  // It waits out the venue's rate windows first (the last run's requests), then starts.
  for (let i = 0; i < 100 && !again.app.engine.ready; i++) await runUntil(again.clock, again.clock.now() + 500);
  await runUntil(again.clock, again.clock.now() + 1500);
  expect(again.app.engine.ready).toBe(true);
  const own = { alpha: ownOf(a.held.ctx!), beta: ownOf(b.held.ctx!) };
  const account = again.app.engine.positions.snapshot();
  await drive(again.clock, again.app.stop());
  opened.splice(opened.indexOf(again), 1);
  return { own, account, replayedFrom: replayedFrom.mock.calls.map((c) => c[0] ?? 0), logs: again.logs };
}

export function deleteCursors(path: string, keys: readonly string[]): void {
  const db = new Database(path);
  db.prepare(`DELETE FROM cursors WHERE key IN (${keys.map(() => '?').join(', ')})`).run(...keys);
  db.close();
}

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
