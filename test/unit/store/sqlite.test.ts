// SqliteJournal beyond the port contract: what it refuses to open (and never writes to), its
// settings, its schema, its indexes and its transactions.
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { JournalError } from '../../../src/core/errors.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import { APPLICATION_ID, MIGRATIONS, openReadOnly, ORDER_QUERIES, SCHEMA_VERSION, SqliteJournal } from '../../../src/store/sqlite.js';
import { fill, pendingOrder, placeIntent } from '../../contract/journal.contract.js';

let dir: string;
let path: string;
const open: SqliteJournal[] = [];

function journal(at = path): SqliteJournal {
  const j = new SqliteJournal(at, { now: () => 1_700_000_000_000 });
  open.push(j);
  return j;
}

/** Opens `file` and returns the error it raised (failing the test if it opened). */
function refusal(file: string): JournalError {
  try {
    journal(file);
  } catch (err) {
    expect(err).toBeInstanceOf(JournalError);
    return err as JournalError;
  }
  throw new Error(`${file} opened, but it should have been refused`);
}

/** Bytes of the file and the names beside it, to show a refused open changed nothing. */
function snapshot(file: string): { bytes: Buffer; siblings: string[] } {
  return { bytes: readFileSync(file), siblings: readdirSync(dirname(file)).sort() };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-journal-unit-'));
  path = join(dir, 'journal.db');
});

afterEach(() => {
  for (const j of open.splice(0)) j.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteJournal: opening', () => {
  it('creates missing parent directories and a WAL journal with NORMAL sync (the fsync runs off the event loop: durable()), foreign keys, a busy timeout and savepoints undone from memory', () => {
    const j = journal(join(dir, 'a', 'b', 'journal.db'));
    expect(j.settings()).toEqual({ schemaVersion: SCHEMA_VERSION, journalMode: 'wal', synchronous: 'NORMAL', foreignKeys: true, busyTimeoutMs: 5000, cacheKib: 2000, tempStore: 'MEMORY' });
    expect(readdirSync(join(dir, 'a', 'b'))).toContain('journal.db');
  });

  it('marks the file as a sluice journal of this schema', () => {
    journal().close();
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(raw.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    } finally {
      raw.close();
    }
  });

  it('opens an empty file as a new journal', () => {
    writeFileSync(path, '');
    const j = journal();
    expect(j.nextSequence('a')).toBe(0);
  });

  it('refuses a file of garbage bytes, names the path and the fix, and leaves it untouched', () => {
    writeFileSync(path, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 251)));
    const before = snapshot(path);
    const err = refusal(path);
    expect(err.code).toBe('JOURNAL_UNUSABLE');
    expect(err.message).toContain(path);
    expect(err.message).toContain('move the file aside (keep it for forensics) and start again: sluice rebuilds its state from the venue');
    expect(err.message).toContain('not changed');
    expect(snapshot(path)).toEqual(before);
  });

  it('refuses a short text file', () => {
    writeFileSync(path, 'journal: yes\n');
    const before = snapshot(path);
    expect(refusal(path).message).toMatch(/not a SQLite database \(no SQLite header\)/);
    expect(snapshot(path)).toEqual(before);
  });

  it('refuses a real journal whose pages were damaged, and leaves it untouched', () => {
    const j = journal();
    for (let i = 0; i < 300; i++) {
      const intent = placeIntent('a', `sla-${i}`);
      j.recordIntent(intent, pendingOrder(intent, 1));
    }
    j.close();
    const bytes = readFileSync(path);
    const pageSize = bytes.readUInt16BE(16);
    expect(bytes.length).toBeGreaterThan(4 * pageSize);
    // Keep page 1 (header and schema), scribble over the b-tree pages after it.
    for (let at = pageSize; at < bytes.length; at += 97) bytes[at] = 0xa5;
    writeFileSync(path, bytes);
    const before = snapshot(path);
    const err = refusal(path);
    expect(err.message).toContain(path);
    expect(err.message).toContain('move the file aside');
    expect(readFileSync(path)).toEqual(before.bytes);
  });

  it('refuses a journal written by a newer sluice with a clear message, and never writes to it', () => {
    const j = journal();
    j.nextSequence('a');
    j.close();
    const raw = new Database(path);
    raw.pragma('user_version = 999');
    raw.close();
    const before = snapshot(path);
    const err = refusal(path);
    expect(err.message).toBe(
      `journal ${path}: written by a newer sluice (schema 999, this one knows ${SCHEMA_VERSION}): upgrade sluice, or point journal.path elsewhere; the file was not changed`,
    );
    expect(readFileSync(path)).toEqual(before.bytes);
  });

  it("refuses another program's SQLite database and leaves it untouched", () => {
    const raw = new Database(path);
    raw.exec(`CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x');`);
    raw.close();
    const before = snapshot(path);
    expect(refusal(path).message).toMatch(/not a sluice journal/);
    expect(snapshot(path)).toEqual(before);

    const other = join(dir, 'other.db');
    const tagged = new Database(other);
    tagged.pragma('application_id = 42');
    tagged.exec(`CREATE TABLE t (x)`);
    tagged.close();
    const otherBefore = readFileSync(other);
    expect(refusal(other).message).toMatch(/another program \(application_id 42\)/);
    expect(readFileSync(other)).toEqual(otherBefore);
  });

  it('migrates a schema 1 journal: fills keep their rows and become unique per side, orders get their creation time', () => {
    // A schema 1 journal, as the previous version wrote it (its migration text, verbatim).
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    raw.exec(MIGRATIONS[0]!);
    raw.pragma('user_version = 1');
    raw.prepare(`INSERT INTO intents (id, intent_id, kind, strategy, client_order_id, body, journaled_at) VALUES (1, 'i', 'place', 'a', 'sla-1', '{}', 1700000000000)`).run();
    raw
      .prepare(
        `INSERT INTO orders (client_order_id, intent, venue_order_id, strategy, market, symbol, side, type, volume, price, executed_volume, avg_price, status, updated_at)
         VALUES ('sla-1', 1, '55', 'a', 'spot', 'BTCUSDT', 'BUY', 'LIMIT', '1', '100', '0', NULL, 'open', 1700000000900)`,
      )
      .run();
    raw
      .prepare(
        `INSERT INTO fills (market, symbol, trade_id, venue_order_id, side, price, volume, fee, fee_asset, is_maker, time, recorded_at)
         VALUES ('spot', 'BTCUSDT', '7', '55', 'BUY', '100', '0.5', '0.001', 'BTC', 1, 1700000000500, 1700000000600)`,
      )
      .run();
    raw.close();
    const j = journal();
    expect(j.settings().schemaVersion).toBe(SCHEMA_VERSION);
    // The start says so (app/build.ts logs it): an older sluice can no longer open the file.
    expect(j.migratedFrom).toBe(1);
    expect(j.order('sla-1')).toMatchObject({ createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_900, status: 'open' });
    expect(j.fills()).toEqual([fill('7', { venueOrderId: '55' as VenueOrderId, price: d('100'), volume: d('0.5'), fee: d('0.001'), time: 1_700_000_000_500 })]);
    // The other side of the same trade is a fill of its own now.
    expect(j.recordFill(fill('7', { side: 'SELL', venueOrderId: '56' as VenueOrderId }))).toBe(true);
    expect(j.recordFill(fill('7', { venueOrderId: '55' as VenueOrderId }))).toBe(false);
    expect(j.integrityCheck()).toEqual(['ok']);
  });

  it('migrates a schema 2 journal: orders get the time in force their intents were sent with, and keep it', () => {
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    raw.exec(MIGRATIONS[0]!);
    raw.exec(MIGRATIONS[1]!);
    raw.pragma('user_version = 2');
    const body = (tif?: string) => JSON.stringify({ kind: 'place', market: 'futures', symbol: 'E-BTC-USDT', ...(tif ? { timeInForce: tif } : {}) });
    for (const [id, cid, tif] of [[1, 'slf-1', 'POST_ONLY'], [2, 'slf-2', undefined]] as const) {
      raw.prepare(`INSERT INTO intents (id, intent_id, kind, strategy, client_order_id, body, journaled_at) VALUES (?, ?, 'place', 'f', ?, ?, 1700000000000)`).run(id, `${cid}:place`, cid, body(tif));
      raw
        .prepare(
          `INSERT INTO orders (client_order_id, intent, venue_order_id, strategy, market, symbol, side, type, volume, price, executed_volume, avg_price, status, updated_at, created_at, open, position_type)
           VALUES (?, ?, NULL, 'f', 'futures', 'E-BTC-USDT', 'BUY', 'LIMIT', '3', '100', '0', NULL, 'open', 1700000000900, 1700000000000, 'OPEN', 1)`,
        )
        .run(cid, id);
    }
    raw.close();
    const j = journal();
    expect(j.migratedFrom).toBe(2);
    expect(j.order('slf-1')?.timeInForce).toBe('POST_ONLY');
    expect(j.order('slf-2')).not.toHaveProperty('timeInForce');
    // Written and read back as the order changes.
    j.updateOrder({ ...j.order('slf-1')!, status: 'partially_filled', executedVolume: d('1'), updatedAt: 1_700_000_001_000 }, 'venue open orders');
    j.close();
    expect(journal().order('slf-1')).toMatchObject({ timeInForce: 'POST_ONLY', status: 'partially_filled', open: 'OPEN', positionType: 1 });
  });

  it('migrates a schema 2 journal to 3: its rows as they were, final orders indexed by when they last changed (retention)', () => {
    // A schema 2 journal, as the previous version wrote it (its migrations, verbatim).
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    raw.exec(MIGRATIONS[0]!);
    raw.exec(MIGRATIONS[1]!);
    raw.pragma('user_version = 2');
    raw.prepare(`INSERT INTO intents (id, intent_id, kind, strategy, client_order_id, body, journaled_at) VALUES (1, 'i', 'place', 'a', 'sla-1', '{}', 1700000000000)`).run();
    raw
      .prepare(
        `INSERT INTO orders (client_order_id, intent, venue_order_id, strategy, market, symbol, side, type, volume, price, executed_volume, avg_price, status, updated_at, created_at)
         VALUES ('sla-1', 1, '55', 'a', 'spot', 'BTCUSDT', 'BUY', 'LIMIT', '1', '100', '1', '100', 'filled', 1700000000900, 1700000000000)`,
      )
      .run();
    raw.close();
    const j = journal();
    expect(j.migratedFrom).toBe(2);
    expect(j.settings().schemaVersion).toBe(3);
    expect(j.order('sla-1')).toMatchObject({ status: 'filled', updatedAt: 1_700_000_000_900, createdAt: 1_700_000_000_000 });
    expect(j.integrityCheck()).toEqual(['ok']);
    j.close();
    const check = new Database(path, { readonly: true });
    try {
      expect(check.prepare(`SELECT sql FROM sqlite_master WHERE name = 'orders_final_updated'`).get()).toEqual({ sql: expect.stringContaining('ON orders (updated_at) WHERE status IN') });
      expect((check.prepare(`EXPLAIN QUERY PLAN ${ORDER_QUERIES.finalBefore}`).all(1) as { detail: string }[]).map((r) => r.detail).join()).toContain('orders_final_updated');
    } finally {
      check.close();
    }
  });

  it('reopens without migrating again', () => {
    const created = journal();
    expect(created.migratedFrom).toBe(0);
    created.close();
    const j = journal();
    expect(j.migratedFrom).toBeUndefined();
    expect(j.settings().schemaVersion).toBe(SCHEMA_VERSION);
  });

  it('read only: sees what a writer committed, beside it or after it, and writes nothing, not even files beside it', () => {
    const writer = journal();
    const intent = placeIntent('ro', 'slro-1');
    writer.recordIntent(intent, pendingOrder(intent, 1));
    // Beside a running writer (its -wal exists): a read-only connection.
    const beside = new SqliteJournal(path, { readOnly: true });
    expect(beside.orders().map((o) => o.clientOrderId)).toEqual([intent.clientOrderId]);
    expect(() => beside.nextSequence('ro')).toThrow(JournalError);
    beside.close();
    writer.close();
    // After it (no -wal left): opened immutable, so no -wal or -shm appears.
    const before = snapshot(path);
    const after = new SqliteJournal(path, { readOnly: true });
    expect(after.orders().map((o) => o.clientOrderId)).toEqual([intent.clientOrderId]);
    after.close();
    expect(snapshot(path)).toEqual(before);
  });

  it('read only with no daemon beside it: reads the file in place, never a copy in memory (a journal of months is gigabytes), whatever its path holds', () => {
    // Characters a file: URI must escape.
    const odd = join(dir, 'a #1?x=%41 b', 'journal.db');
    const writer = journal(odd);
    const intent = placeIntent('ro', 'slro-2');
    writer.recordIntent(intent, pendingOrder(intent, 1));
    writer.close();
    const before = snapshot(odd);
    const db = openReadOnly(odd);
    expect(db.memory).toBe(false);
    expect(db.readonly).toBe(true);
    expect((db.prepare('SELECT client_order_id AS id FROM orders').all() as { id: string }[]).map((r) => r.id)).toEqual([intent.clientOrderId]);
    db.close();
    expect(snapshot(odd)).toEqual(before);
  });

  it('read only: refuses an empty file or a journal at another schema, and leaves it as it was', () => {
    writeFileSync(path, '');
    expect(() => new SqliteJournal(path, { readOnly: true })).toThrow(/is empty: the daemon has not written to it yet/);
    expect(readFileSync(path).length).toBe(0);
    // A SQLite file with no tables yet (schema 0): a writer would migrate it; a reader must not.
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    raw.close();
    const before = snapshot(path);
    expect(() => new SqliteJournal(path, { readOnly: true })).toThrow(`journal ${path} is at schema 0 and this sluice reads schema ${SCHEMA_VERSION}; it is not changed here`);
    expect(snapshot(path)).toEqual(before);
  });

  it('throws a clear error when used after close; closing twice is harmless', () => {
    const j = journal();
    expect(j.orders({ openOnly: true })).toEqual([]);
    j.close();
    j.close();
    expect(() => j.nextSequence('a')).toThrow(JournalError);
    expect(() => j.orders()).toThrow(/closed: orders after close\(\)/);
    expect(() => j.orders({ openOnly: true })).toThrow(/closed: orders after close\(\)/);
    expect(() => [...j.eachFill()]).toThrow(/closed: eachFill after close\(\)/);
  });
});

describe('SqliteJournal: schema', () => {
  it('keeps every table STRICT and never declares a REAL column (decimals are TEXT)', () => {
    journal().close();
    const raw = new Database(path, { readonly: true });
    try {
      const tables = raw.prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'table'`).all() as { name: string; sql: string }[];
      expect(tables.map((t) => t.name).sort()).toEqual(['bans', 'cursors', 'fills', 'intents', 'order_events', 'orders', 'positions', 'sequences']);
      for (const t of tables) {
        expect(t.sql, t.name).toMatch(/\)\s*STRICT$/);
        const columns = raw.pragma(`table_info(${t.name})`) as { name: string; type: string }[];
        for (const c of columns) expect(['TEXT', 'INTEGER'], `${t.name}.${c.name}`).toContain(c.type);
      }
      const decimalColumns = ['volume', 'price', 'executed_volume', 'avg_price', 'fee', 'quantity', 'avg_entry_price', 'realized_pnl', 'fees', 'venue_order_id', 'trade_id'];
      for (const t of tables) {
        for (const c of raw.pragma(`table_info(${t.name})`) as { name: string; type: string }[]) {
          if (decimalColumns.includes(c.name)) expect(c.type, `${t.name}.${c.name}`).toBe('TEXT');
        }
      }
    } finally {
      raw.close();
    }
  });

  it('answers every orders() filter from an index, never a scan of the whole table', () => {
    journal().close();
    const raw = new Database(path, { readonly: true });
    try {
      for (const [name, sql] of Object.entries(ORDER_QUERIES)) {
        const params = sql.includes('?') ? ['x'] : [];
        const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | ');
        expect(plan, name).toMatch(/USING (COVERING )?INDEX/);
        expect(plan, name).not.toMatch(/TEMP B-TREE/);
      }
    } finally {
      raw.close();
    }
  });

  it('stores decimals and venue ids as the exact text given', () => {
    const j = journal();
    const intent = placeIntent('a', 'sla-0', { volume: d('0.10000000000000000001'), price: d('123456789012345678901234567890.5') });
    j.recordIntent(intent, pendingOrder(intent, 1));
    j.updateOrder({ ...pendingOrder(intent, 2), venueOrderId: '18446744073709551617' as VenueOrderId, status: 'open' });
    j.close();
    const raw = new Database(path, { readonly: true });
    try {
      const row = raw.prepare(`SELECT volume, typeof(volume) AS t, price, venue_order_id FROM orders`).get();
      expect(row).toEqual({ volume: '0.10000000000000000001', t: 'text', price: '123456789012345678901234567890.5', venue_order_id: '18446744073709551617' });
    } finally {
      raw.close();
    }
  });
});

describe('SqliteJournal: writes', () => {
  it('journals the intent itself, readable for forensics', () => {
    const j = journal();
    const intent = placeIntent('a', 'sla-0');
    j.recordIntent(intent, pendingOrder(intent, 1));
    expect(j.intents('sla-0')).toEqual([intent]);
  });

  it('refuses an intent whose order is for another client order id', () => {
    const j = journal();
    const intent = placeIntent('a', 'sla-0');
    expect(() => j.recordIntent(intent, pendingOrder(placeIntent('a', 'sla-1'), 1))).toThrow(/sla-0.*sla-1/);
    expect(j.orders()).toEqual([]);
  });

  it('records intent, order and first event together or not at all', () => {
    const j = journal();
    // Make the third insert of the transaction fail, through a second connection.
    const raw = new Database(path);
    raw.exec(`CREATE TRIGGER refuse_event BEFORE INSERT ON order_events WHEN NEW.client_order_id = 'sla-1' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    raw.close();
    const ok = placeIntent('a', 'sla-0');
    j.recordIntent(ok, pendingOrder(ok, 1));
    const bad = placeIntent('a', 'sla-1');
    expect(() => j.recordIntent(bad, pendingOrder(bad, 1))).toThrow(JournalError);
    expect(j.order('sla-1')).toBeUndefined();
    expect(j.intents('sla-1')).toEqual([]);
    expect(j.history('sla-1')).toEqual([]);
    expect(j.orders().map((o) => o.clientOrderId)).toEqual(['sla-0']);
  });

  it('keeps a failed update from changing the order', () => {
    const j = journal();
    const intent = placeIntent('a', 'sla-0');
    const order = pendingOrder(intent, 1);
    j.recordIntent(intent, order);
    const raw = new Database(path);
    raw.exec(`CREATE TRIGGER refuse_event BEFORE INSERT ON order_events WHEN NEW.reason = 'boom' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    raw.close();
    expect(() => j.updateOrder({ ...order, status: 'open', updatedAt: 2 }, 'boom')).toThrow(JournalError);
    expect(j.order('sla-0')).toEqual(order);
    expect(j.history('sla-0')).toHaveLength(1);
  });

  /** Every insert of sla-1's first event fails, after its intent and order rows are written. */
  function refuseEventsOfSla1(): void {
    const raw = new Database(path);
    raw.exec(`CREATE TRIGGER refuse_event BEFORE INSERT ON order_events WHEN NEW.client_order_id = 'sla-1' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    raw.close();
  }

  it('rolls a whole transaction back when a write in it fails, even where the function catches the error (its writes take no savepoint)', () => {
    const j = journal();
    refuseEventsOfSla1();
    const ok = placeIntent('a', 'sla-0');
    const bad = placeIntent('a', 'sla-1');
    expect(() =>
      j.transaction(() => {
        j.recordIntent(ok, pendingOrder(ok, 1));
        try {
          j.recordIntent(bad, pendingOrder(bad, 1));
        } catch {
          // caught on purpose: the transaction must not keep the half of it that was written
        }
        j.setCursor('k', 'v');
      }),
    ).toThrow(/a write inside the transaction failed, so none of it was kept: .*refused/);
    expect(j.intents('sla-1')).toEqual([]);
    expect(j.orders()).toEqual([]);
    expect(j.orders({ openOnly: true })).toEqual([]);
    expect(j.cursor('k')).toBeUndefined();

    j.transaction(() => j.recordIntent(ok, pendingOrder(ok, 1)));
    expect(j.orders({ openOnly: true }).map((o) => o.clientOrderId)).toEqual(['sla-0']);
  });

  it('rolls back only the inner transaction when a write in it fails, and commits the outer one', () => {
    const j = journal();
    refuseEventsOfSla1();
    const ok = placeIntent('a', 'sla-0');
    const bad = placeIntent('a', 'sla-1');
    j.transaction(() => {
      j.recordIntent(ok, pendingOrder(ok, 1));
      expect(() =>
        j.transaction(() => {
          try {
            j.recordIntent(bad, pendingOrder(bad, 1));
          } catch {
            // caught on purpose, as above
          }
        }),
      ).toThrow(/refused/);
      j.setCursor('k', 'v');
    });
    expect(j.intents('sla-1')).toEqual([]);
    expect(j.orders().map((o) => o.clientOrderId)).toEqual(['sla-0']);
    expect(j.cursor('k')).toBe('v');
  });

  it('has a sequence committed when nextSequence returns: another connection continues after it', () => {
    const a = journal();
    const b = journal();
    expect(a.nextSequence('s')).toBe(0);
    expect(b.nextSequence('s')).toBe(1);
    expect(a.nextSequence('s')).toBe(2);
  });

  it('lets a reader see committed state while the journal is open (WAL)', () => {
    const j = journal();
    j.setCursor('k', 'v1');
    const reader = new Database(path, { readonly: true });
    try {
      expect(reader.prepare(`SELECT value FROM cursors WHERE key = 'k'`).pluck().get()).toBe('v1');
    } finally {
      reader.close();
    }
  });

  it('keeps fills with the same trade id in different markets or symbols apart (trade ids are not global)', () => {
    const j = journal();
    expect(j.recordFill(fill('5', { market: 'spot', symbol: 'BTCUSDT' }))).toBe(true);
    expect(j.recordFill(fill('5', { market: 'futures', symbol: 'E-BTC-USDT' }))).toBe(true);
    expect(j.recordFill(fill('5', { market: 'spot', symbol: 'ETHUSDT' }))).toBe(true);
    expect(j.recordFill(fill('5', { market: 'spot', symbol: 'BTCUSDT', volume: d('1') }))).toBe(false);
    expect(j.fills()).toHaveLength(3);
  });

  it('finds orders by venue order id', () => {
    const j = journal();
    const intent = placeIntent('a', 'sla-0');
    j.recordIntent(intent, pendingOrder(intent, 1));
    j.updateOrder({ ...pendingOrder(intent, 2), venueOrderId: '9007199254740993' as VenueOrderId, status: 'open' });
    expect(j.ordersByVenueId('9007199254740993').map((o) => o.clientOrderId)).toEqual(['sla-0']);
    expect(j.ordersByVenueId('9007199254740992')).toEqual([]);
  });

  it('refuses times that are not integer milliseconds rather than storing something else', () => {
    const j = journal();
    expect(() => j.setBanUntil(Number.NaN)).toThrow(RangeError);
    expect(() => j.setBanUntil(1.5)).toThrow(RangeError);
    expect(j.banUntil()).toBe(0);
  });

  it('passes a full integrity check after work', () => {
    const j = journal();
    for (let i = 0; i < 50; i++) {
      const intent = placeIntent('a', `sla-${i}`);
      j.recordIntent(intent, pendingOrder(intent, i));
      j.recordFill(fill(String(i)));
    }
    expect(j.integrityCheck()).toEqual(['ok']);
  });
});
