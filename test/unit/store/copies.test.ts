// The orders the SQLite journal keeps beside its table (store/copies.ts): the open orders and
// orders by venue id, kept by its own writes. Each read must answer what the table holds, after
// any write, a rolled-back transaction, or as another connection reads it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { VenueOrderId } from '../../../src/core/ids.js';
import { SqliteJournal } from '../../../src/store/sqlite.js';
import { pendingOrder, placeIntent } from '../../contract/journal.contract.js';

let dir: string;
let path: string;
const open: SqliteJournal[] = [];

function journal(): SqliteJournal {
  const j = new SqliteJournal(path, { now: () => 1_700_000_000_000 });
  open.push(j);
  return j;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-journal-copies-'));
  path = join(dir, 'journal.db');
});

afterEach(() => {
  for (const j of open.splice(0)) j.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteJournal: what it keeps beside the table', () => {
  it('lists open orders as the table holds them after a rolled-back transaction, and as another connection reads them', () => {
    const j = journal();
    const a = placeIntent('a', 'sla-0');
    j.recordIntent(a, pendingOrder(a, 1));
    expect(j.orders({ openOnly: true }).map((o) => o.clientOrderId)).toEqual(['sla-0']);
    const b = placeIntent('a', 'sla-1');
    expect(() =>
      j.transaction(() => {
        j.recordIntent(b, pendingOrder(b, 1));
        j.updateOrder({ ...pendingOrder(a, 1), status: 'filled', executedVolume: a.volume, updatedAt: 2 });
        expect(j.orders({ openOnly: true }).map((o) => o.clientOrderId)).toEqual(['sla-1']);
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(j.orders({ openOnly: true })).toEqual([pendingOrder(a, 1)]);
    j.updateOrder({ ...pendingOrder(a, 1), status: 'open', venueOrderId: '9007199254740993' as VenueOrderId, updatedAt: 3 });
    const reader = new SqliteJournal(path, { readOnly: true });
    open.push(reader);
    expect(j.orders({ openOnly: true })).toEqual(reader.orders({ openOnly: true }));
    expect(j.orders({ openOnly: true })[0]).toMatchObject({ status: 'open', venueOrderId: '9007199254740993', updatedAt: 3 });
  });


  it('answers orders by venue id as the table holds them after every write that touches them, read before or not (it keeps what it read)', () => {
    const j = journal();
    const V1 = '9007199254740993' as VenueOrderId;
    const V2 = '9007199254740995' as VenueOrderId;
    const [a, b] = [placeIntent('a', 'sla-0'), placeIntent('a', 'sla-1')];
    j.recordIntent(a, pendingOrder(a, 1));
    expect(j.ordersByVenueId(V1)).toEqual([]);
    // An order newly under a remembered id; a change to a remembered order.
    j.updateOrder({ ...pendingOrder(a, 2), venueOrderId: V1, status: 'open' });
    expect(j.ordersByVenueId(V1).map((o) => [o.clientOrderId, o.status])).toEqual([['sla-0', 'open']]);
    j.updateOrder({ ...pendingOrder(a, 3), venueOrderId: V1, status: 'filled', executedVolume: a.volume });
    expect(j.ordersByVenueId(V1).map((o) => [o.clientOrderId, o.status])).toEqual([['sla-0', 'filled']]);
    // A second order under the same id (a lost answer bound by looks), listed in intent order.
    j.recordIntent(b, { ...pendingOrder(b, 4), venueOrderId: V1 });
    expect(j.ordersByVenueId(V1).map((o) => o.clientOrderId)).toEqual(['sla-0', 'sla-1']);
    // Moved to another id: gone from the first.
    expect(j.ordersByVenueId(V2)).toEqual([]);
    j.updateOrder({ ...pendingOrder(b, 5), venueOrderId: V2, status: 'open' });
    expect(j.ordersByVenueId(V1).map((o) => o.clientOrderId)).toEqual(['sla-0']);
    expect(j.ordersByVenueId(V2).map((o) => o.clientOrderId)).toEqual(['sla-1']);
    // A rolled-back change is not seen.
    expect(() =>
      j.transaction(() => {
        j.updateOrder({ ...pendingOrder(b, 6), venueOrderId: V2, status: 'canceled' });
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(j.ordersByVenueId(V2).map((o) => o.status)).toEqual(['open']);
    // What it answers is what another connection reads, and a caller cannot change it.
    const reader = new SqliteJournal(path, { readOnly: true });
    open.push(reader);
    for (const id of [V1, V2]) expect(j.ordersByVenueId(id)).toEqual(reader.ordersByVenueId(id));
    expect(() => Object.assign(j.ordersByVenueId(V2)[0]!, { status: 'filled' })).toThrow(TypeError);
  });

  it('reads the orders under a venue id from the table as it writes an order under it, so reading them afterwards costs no query', () => {
    const j = journal();
    const V1 = '9007199254740993' as VenueOrderId;
    const [a, b] = [placeIntent('a', 'sla-0'), placeIntent('a', 'sla-1')];
    j.recordIntent(a, pendingOrder(a, 1));
    j.recordIntent(b, pendingOrder(b, 1));
    // Every statement's all(), the one ordersByVenueId reads with among them.
    const scratch = new Database(':memory:');
    const all = vi.spyOn(Object.getPrototypeOf(scratch.prepare('SELECT 1')) as Database.Statement, 'all');
    scratch.close();
    try {
      // The answer to an order: its first venue id, never asked for.
      j.updateOrder({ ...pendingOrder(a, 2), venueOrderId: V1, status: 'open' });
      const atWrite = all.mock.calls.length;
      expect(atWrite).toBeGreaterThan(0);
      expect(j.ordersByVenueId(V1).map((o) => [o.clientOrderId, o.status])).toEqual([['sla-0', 'open']]);
      expect(all.mock.calls.length).toBe(atWrite);
      // A second order under the same id: read again at the write, both listed.
      j.updateOrder({ ...pendingOrder(b, 3), venueOrderId: V1, status: 'open' });
      const afterSecond = all.mock.calls.length;
      expect(j.ordersByVenueId(V1).map((o) => o.clientOrderId)).toEqual(['sla-0', 'sla-1']);
      expect(all.mock.calls.length).toBe(afterSecond);
    } finally {
      all.mockRestore();
    }
  });
});
