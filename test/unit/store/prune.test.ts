// Retention on a real SQLite file (store/prune.ts): what goes (final orders last updated before
// the cutoff, with their events, intents and fills, none above the checkpoints' fill number) and
// what always stays (every order not final, each strategy's latest orders and the orders of its
// latest fills, an order sharing its venue id with one kept, sequences, cursors), the highest
// trade id pruned per symbol, and the file shrinking under VACUUM.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { PRUNED_KEY, type VenueOrderId } from '../../../src/core/ids.js';
import type { Order, OrderStatus } from '../../../src/core/types.js';
import { pruneRows, rowCounts, usedBytes, vacuum } from '../../../src/store/prune.js';
import { SqliteJournal } from '../../../src/store/sqlite.js';
import { fill, pendingOrder, placeIntent } from '../../contract/journal.contract.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-prune-'));
  path = join(dir, 'journal.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const OLD = 1_000_000;
const CUTOFF = 2_000_000;
const NEW = 3_000_000;
let venue = 0;

/** An order of `strategy` ending `status` at `at`, with a fill per `fills` (trade ids from `trade`). */
function order(j: SqliteJournal, strategy: string, status: OrderStatus, at: number, fills = 0): Order {
  const n = ++venue;
  const coid = `sl${strategy}-${j.nextSequence(strategy).toString(36)}`;
  const intent = placeIntent(strategy, coid, { volume: d('1'), price: d('100') });
  j.recordIntent(intent, pendingOrder(intent, at));
  const o: Order = { ...pendingOrder(intent, at), venueOrderId: String(n) as VenueOrderId, status, updatedAt: at };
  j.updateOrder(o, status);
  for (let i = 0; i < fills; i++) j.recordFill(fill(`${n * 10 + i}`, { venueOrderId: String(n) as VenueOrderId, volume: d('0.001'), price: d('100'), fee: d('0'), feeAsset: 'USDT', time: at }));
  return o;
}

const ids = (j: SqliteJournal, strategy: string) => j.orders({ strategyId: strategy }).map((o) => o.clientOrderId);

describe('journal prune (store)', () => {
  it('keeps every order not final and the latest 1000 of each strategy; deletes the rest that ended before the cutoff, with their events, intents and fills', () => {
    const j = SqliteJournal.open(path);
    const old: Order[] = [];
    j.transaction(() => {
      for (let i = 0; i < 1100; i++) old.push(order(j, 'a', i % 3 === 0 ? 'canceled' : i % 3 === 1 ? 'filled' : 'rejected', OLD + i, i % 3 === 1 ? 3 : 0));
    });
    const open = (['open', 'unknown', 'pending_cancel', 'pending', 'partially_filled'] as const).map((s) => order(j, 'a', s, OLD, 1));
    const recent = Array.from({ length: 20 }, () => order(j, 'a', 'filled', NEW, 1));
    const b = Array.from({ length: 5 }, () => order(j, 'b', 'filled', OLD, 2));
    j.setCursor('trades:spot:BTCUSDT', '99');
    j.setCursor('state:a', '{"x":1}');
    const sequencesBefore = [j.nextSequence('a'), j.nextSequence('b')];
    const through = j.lastFillId();
    const before = j.maintain('t', rowCounts);

    const result = j.maintain('t', (db) => pruneRows(db, { before: CUTOFF, throughFill: through, now: NEW }));

    // The latest 1000 of a: 20 recent, 5 not final, and the last 975 of the old ones; its latest
    // 1000 fills (of 1126) are of those same orders (25 + the last 975 of the old ones' 1101).
    const kept = new Set(ids(j, 'a'));
    expect(kept.size).toBe(1000);
    for (const o of [...open, ...recent, ...old.slice(-975)]) expect(kept.has(o.clientOrderId)).toBe(true);
    for (const o of old.slice(0, 125)) {
      expect(kept.has(o.clientOrderId)).toBe(false);
      expect(j.history(o.clientOrderId)).toEqual([]);
      expect(j.intents(o.clientOrderId)).toEqual([]);
      expect(j.ordersByVenueId(o.venueOrderId!)).toEqual([]);
    }
    expect(ids(j, 'b')).toEqual(b.map((o) => o.clientOrderId));
    // Pruned: 125 orders (42 of them filled, each with its 3 fills), 2 events and 1 intent each.
    expect(result).toEqual({ orders: 125, events: 250, intents: 125, fills: 126 });
    expect(j.maintain('t', rowCounts)).toEqual({ orders: before.orders - 125, order_events: before.order_events - 250, intents: before.intents - 125, fills: before.fills - 126 });
    // Every fill of a kept order stays.
    for (const o of [...open, ...recent, ...b]) expect(j.fillVolumes('spot', 'BTCUSDT', o.venueOrderId!).length).toBeGreaterThan(0);
    // Sequences, cursors and state stay; the highest trade id pruned is kept for the reconciler.
    expect([j.nextSequence('a'), j.nextSequence('b')]).toEqual(sequencesBefore.map((n) => n + 1));
    expect(j.cursor('trades:spot:BTCUSDT')).toBe('99');
    expect(j.cursor('state:a')).toBe('{"x":1}');
    const lastPrunedFilled = old.slice(0, 125).filter((o) => o.status === 'filled').at(-1)!;
    // The note says what it deleted (`sluice status` shows it).
    expect(JSON.parse(j.cursor('journal:pruned')!)).toEqual({ at: NEW, before: CUTOFF, throughFill: through, deleted: { orders: 125, events: 250, intents: 125, fills: 126 } });
    expect(j.cursor('pruned:spot:BTCUSDT')).toBe(`${Number(lastPrunedFilled.venueOrderId) * 10 + 2}`);
    j.close();
  });

  it('keeps an order with a fill above the checkpoints, the orders of a strategy\'s latest fills, and an order sharing its venue id with one kept', () => {
    const j = SqliteJournal.open(path);
    // keepLatest 2: c's latest two orders stay by that rule alone.
    const withLatestFills = order(j, 'c', 'filled', OLD, 3);
    const plain = order(j, 'c', 'canceled', OLD);
    const uncovered = order(j, 'c', 'filled', OLD);
    const through = j.lastFillId();
    j.recordFill(fill('999999', { venueOrderId: uncovered.venueOrderId!, volume: d('1'), price: d('100') }));
    const shared = order(j, 'c', 'canceled', OLD);
    // A later order the venue knows by the same id (an adoption), still open.
    const intent = placeIntent('c', 'slc-zz', { volume: d('1'), price: d('100') });
    j.recordIntent(intent, pendingOrder(intent, NEW));
    j.updateOrder({ ...pendingOrder(intent, NEW), venueOrderId: shared.venueOrderId!, status: 'open', updatedAt: NEW }, 'adopted');
    order(j, 'c', 'filled', NEW);
    order(j, 'c', 'filled', NEW);

    j.maintain('t', (db) => pruneRows(db, { before: CUTOFF, throughFill: through, now: NEW, keepLatest: 2 }));
    const left = new Set(ids(j, 'c'));
    expect(left.has(plain.clientOrderId)).toBe(false);
    expect(left.has(withLatestFills.clientOrderId)).toBe(true); // owns c's latest fills (with the uncovered one)
    expect(left.has(uncovered.clientOrderId)).toBe(true); // its fill is above the checkpoints
    expect(left.has(shared.clientOrderId)).toBe(true); // its venue id is the open order's
    j.close();
  });

  it('keeps an order whose fills do not yet add up to what it executed: its trades are still to be read', () => {
    const j = SqliteJournal.open(path);
    const executed = (o: Order, volume: string) => j.updateOrder({ ...o, executedVolume: d(volume) }, 'venue order query');
    const whole = order(j, 'e', 'filled', OLD, 2);
    executed(whole, '0.002');
    const short = order(j, 'e', 'filled', OLD, 1);
    executed(short, '0.003');
    const partly = order(j, 'e', 'canceled', OLD, 0);
    executed(partly, '0.5');
    const through = j.lastFillId();
    j.maintain('t', (db) => pruneRows(db, { before: CUTOFF, throughFill: through, now: NEW, keepLatest: 0 }));
    const left = new Set(ids(j, 'e'));
    expect([left.has(whole.clientOrderId), left.has(short.clientOrderId), left.has(partly.clientOrderId)]).toEqual([false, true, true]);
    expect(j.cursor(PRUNED_KEY)).toBeDefined();
    j.close();
  });

  it('a prune that deletes nothing leaves no note (a checkpoint set aside later would warn of pruned fills)', () => {
    const j = SqliteJournal.open(path);
    order(j, 'f', 'filled', NEW, 1);
    const result = j.maintain('t', (db) => pruneRows(db, { before: CUTOFF, throughFill: j.lastFillId(), now: NEW }));
    expect(result.orders).toBe(0);
    expect(j.cursor(PRUNED_KEY)).toBeUndefined();
    j.close();
  });

  it('VACUUM shrinks the file to what is in use', () => {
    const j = SqliteJournal.open(path);
    j.transaction(() => {
      for (let i = 0; i < 3000; i++) order(j, 'a', 'filled', OLD, 1);
    });
    j.close();
    const reopened = SqliteJournal.open(path);
    const sizeBefore = statSync(path).size;
    reopened.maintain('t', (db) => pruneRows(db, { before: CUTOFF, throughFill: reopened.lastFillId(), now: NEW }));
    const used = reopened.maintain('t', usedBytes);
    expect(used).toBeLessThan(sizeBefore / 2);
    reopened.maintain('t', vacuum);
    reopened.close();
    expect(statSync(path).size).toBeLessThan(sizeBefore / 2);
    expect(statSync(path).size).toBeLessThanOrEqual(used + 4096 * 4);
    const after = SqliteJournal.open(path);
    expect(after.integrityCheck()).toEqual(['ok']);
    expect(after.orders().length).toBe(1000);
    after.close();
  });
});
