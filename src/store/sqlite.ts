// The durable journal: SQLite through better-sqlite3.
//
// Why it is durable, and what that costs:
// - better-sqlite3 is synchronous. Every method returns only after SQLite has committed, so
//   the engine's "journal, then send" needs no await in between and cannot interleave.
// - journal_mode=WAL: a commit is one append to the -wal file; readers (a status command, a
//   second process looking at the file) never block the writer and never see half a transaction.
// - synchronous=NORMAL, with the fsync off the event loop (wal-sync.ts): a write that returned
//   survives kill -9 (the OS holds the -wal file); it survives power loss or an OS crash once
//   durable(mark) resolves, after one fsync of the -wal file on libuv's thread pool that covers
//   every commit made before it (group commit). The pipeline awaits that before an order leaves,
//   so "journaled before sent" holds against power loss as with synchronous=FULL, while the
//   event loop never waits on the disk (FULL fsynced inside every commit: 29 ms p99 loop
//   delay at saturation). What a power cut may still roll back was not yet needed on disk: an
//   answer or a fill (the order becomes unknown, or its trades are read again; the cursor
//   moves in the fills' commit). bench/journal.bench.ts measures both modes.
// - Each multi-row change (intent + order + first event; order + event; positions checkpoint;
//   a migration and its version bump) is one BEGIN IMMEDIATE transaction, or part of the one
//   transaction() runs, which then commits all of it or nothing.
// - nextSequence commits before it returns (or with the transaction it runs in), so a number is
//   never handed out twice, even when the process dies right after.
// - Nothing is ever written to a file we do not recognise: before opening for writing, the file
//   is inspected read-only (store/inspect.ts: header, application_id, user_version, quick_check).
//   A file that is not a database, is corrupt, another program's, or a newer sluice's raises
//   JournalError and stays byte-for-byte as it was. A start streams its orders and fills
//   (eachOrder, eachFill), so it needs no more memory for a journal of millions.
// - Decimals are TEXT in STRICT tables (never REAL: "0.10000000000000000001" must come back as
//   written); venue ids are TEXT (they exceed 2^53); times are INTEGER epoch ms.
//
// Fills are unique by (market, symbol, trade id, side). The venue docs do not say whether trade
// ids are unique per exchange, per market or per symbol (cursors are kept per symbol, like
// venues whose ids count per symbol), and spot and futures are separate engines; and a
// self-trade is one trade id with both sides ours. Keying by trade id alone could silently drop
// a genuine fill; the wider key can never merge two real fills and still catches every
// re-delivery of the same one (a side of a trade belongs to exactly one order).

import { Database } from './driver.js';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { systemClock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import { JournalError } from '../core/errors.js';
import type { Journal, JournalWriteFailure, OrderEvent } from '../core/ports.js';
import type { Fill, Market, Order, OrderIntent, OrderStatus, Position } from '../core/types.js';
import { OrderCopies } from './copies.js';
import { checkTime, prepareStatements, prepareWrites, toFill, toOrder, toPosition, type Statements, type Writes } from './statements.js';
import { APPLICATION_ID, BUSY_TIMEOUT_MS, openReadOnly } from './inspect.js';
import { isStorageFailure, journalError, refuseUnusable, sqliteCode } from './sqlite-errors.js';
import { WalSync } from './wal-sync.js';
import { WriteHealth } from './write-health.js';
import { configure, migrate } from './connection.js';
import { MIGRATIONS, ORDER_QUERIES, SCHEMA_VERSION } from './schema.js';

export { APPLICATION_ID, MIGRATIONS, openReadOnly, ORDER_QUERIES, SCHEMA_VERSION };

export interface SqliteJournalOptions {
  /** Clock for bookkeeping columns (journaled_at, recorded_at...). Defaults to the system clock. */
  now?: () => number;
  /**
   * The first sequence of a strategy this journal has never seen (default 0). The daemon passes
   * the current time in ms: if a journal is lost and started afresh, its client order ids still
   * never repeat old ones, because no run places more than one order per millisecond.
   */
  firstSequence?: (strategyId: string) => number;
  /**
   * Read only (`sluice status`, beside a running daemon): nothing is written, not even a
   * migration, and every write method throws. A journal at another schema is refused.
   */
  readOnly?: boolean;
}

export class SqliteJournal implements Journal {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly firstSequence: (strategyId: string) => number;
  private closed = false;
  /** Counts commits and makes them durable off the event loop; none when read-only. */
  private readonly wal: WalSync | undefined;
  private readonly stmt: Statements;
  private readonly writes: Writes;
  /** Runs its argument in a transaction of its own (nested: a savepoint). */
  private readonly atomic: Database.Transaction<(body: () => unknown) => unknown>;
  private failedWrite: unknown; // the first error of a write that failed in the open transaction
  /** Orders kept beside the table (copies.ts); none read-only. */
  private readonly copies: OrderCopies | undefined;
  private readonly health: WriteHealth;
  /** The schema this start migrated the file from (undefined: it was at this sluice's already). */
  readonly migratedFrom: number | undefined;

  static open(path: string, opts?: SqliteJournalOptions): SqliteJournal {
    return new SqliteJournal(path, opts);
  }

  constructor(path: string, opts: SqliteJournalOptions = {}) {
    this.path = resolve(path);
    this.now = opts.now ?? systemClock.now;
    this.firstSequence = opts.firstSequence ?? (() => 0);
    this.health = new WriteHealth(this.now);
    // Read inside the guard of the call that needs them.
    if (!opts.readOnly) this.copies = new OrderCopies(() => this.stmt.ordersOpen.all().map(toOrder), (id) => this.stmt.ordersByVenueId.all(id).map(toOrder));
    if (!opts.readOnly) mkdirSync(dirname(this.path), { recursive: true });
    // A reader must leave no -wal or -shm behind (see openReadOnly); a writer cleans them up itself.
    refuseUnusable(this.path, opts.readOnly ? undefined : () => new Database(this.path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS }));
    if (opts.readOnly && statSync(this.path).size === 0) throw new JournalError(`journal ${this.path} is empty: the daemon has not written to it yet`);

    let db: Database.Database;
    try {
      db = opts.readOnly ? openReadOnly(this.path) : new Database(this.path, { timeout: BUSY_TIMEOUT_MS });
    } catch (err) {
      throw new JournalError(`journal ${this.path} cannot be opened${opts.readOnly ? '' : ' for writing'} (${sqliteCode(err) ?? (err as Error).message}): check the directory's permissions`, { cause: err });
    }
    this.db = db;
    try {
      configure(db, this.path, opts.readOnly ?? false);
      if (!opts.readOnly) this.migratedFrom = migrate(db, this.path);
      this.stmt = prepareStatements(db);
      this.writes = prepareWrites(this.stmt);
      this.atomic = db.transaction((body: () => unknown) => body());
      if (!opts.readOnly) this.wal = new WalSync(`${this.path}-wal`, (err) => this.health.syncLost(err.message));
    } catch (err) {
      db.close();
      throw journalError(this.path, 'open', err);
    }
  }

  // ---------- Journal ----------

  nextSequence(strategyId: string): number {
    return this.write('nextSequence', () => this.stmt.nextSequence.get(strategyId, this.firstSequence(strategyId))!.n);
  }

  recordIntent(intent: OrderIntent, order: Order): void {
    this.write('recordIntent', () => {
      if (intent.clientOrderId !== order.clientOrderId || intent.strategyId !== order.strategyId) {
        throw new Error(`intent ${intent.intentId} is for ${intent.strategyId}/${intent.clientOrderId} but its order is ${order.strategyId}/${order.clientOrderId}`);
      }
      checkTime(order.updatedAt, 'order.updatedAt');
      this.atomically(() => this.writes.recordIntent(intent, order, this.now()));
      this.copies?.recorded(order);
    });
  }

  updateOrder(order: Order, reason?: string): void {
    this.write('updateOrder', () => {
      checkTime(order.updatedAt, 'order.updatedAt');
      this.atomically(() => this.writes.updateOrder(order, reason));
      this.copies?.updated(order);
    });
  }

  order(clientOrderId: string): Order | undefined {
    const row = this.guard('order', () => this.stmt.order.get(clientOrderId));
    return row && toOrder(row);
  }

  orders(filter: { openOnly?: boolean; strategyId?: string } = {}): Order[] {
    if (filter.openOnly && this.copies) {
      const open = this.guard('orders', () => this.copies!.open.list());
      return filter.strategyId === undefined ? open : open.filter((o) => o.strategyId === filter.strategyId);
    }
    const { openOnly, strategyId } = filter;
    if (!openOnly && !strategyId) return this.guard('orders', () => [...this.eachOrder()]);
    const rows = this.guard('orders', () => (strategyId ? (openOnly ? this.stmt.ordersOpenStrategy.all(strategyId) : this.stmt.ordersStrategy.all(strategyId)) : this.stmt.ordersOpen.all()));
    return rows.map(toOrder);
  }

  eachOrder(): Iterable<Order> {
    return this.stream('eachOrder', this.stmt.ordersAll, [], toOrder);
  }

  latestOrders(strategyId: string, limit: number): Order[] {
    return this.guard('latestOrders', () => this.stmt.latestOrders.all(strategyId, Math.max(0, limit))).map(toOrder);
  }

  /** Orders the venue knows by this id (normally one). */
  ordersByVenueId(venueOrderId: string): Order[] {
    const kept = this.copies?.byVenue.get(venueOrderId);
    if (kept) return [...kept];
    const orders = this.guard('ordersByVenueId', () => this.stmt.ordersByVenueId.all(venueOrderId)).map(toOrder);
    return this.copies ? [...this.copies.byVenue.remember(venueOrderId, orders)] : orders;
  }

  history(clientOrderId: string): OrderEvent[] {
    return this.guard('history', () => this.stmt.history.all(clientOrderId)).map((r) => {
      const e: OrderEvent = { clientOrderId: r.client_order_id, at: r.at, status: r.status as OrderStatus };
      if (r.reason !== null) e.reason = r.reason;
      return e;
    });
  }

  /** The intents journaled for a client order id, oldest first. Not on the port: for forensics and tests. */
  intents(clientOrderId: string): OrderIntent[] {
    return this.guard('intents', () => this.stmt.intent.all(clientOrderId)).map((r) => JSON.parse(r.body) as OrderIntent);
  }

  recordFill(fill: Fill): boolean {
    return this.write('recordFill', () => {
      checkTime(fill.time, 'fill.time');
      return (
        this.stmt.insertFill.run({
          market: fill.market,
          symbol: fill.symbol,
          tradeId: fill.tradeId,
          venueOrderId: fill.venueOrderId,
          side: fill.side,
          price: fill.price,
          volume: fill.volume,
          fee: fill.fee,
          feeAsset: fill.feeAsset,
          isMaker: fill.isMaker ? 1 : 0,
          time: fill.time,
          recordedAt: this.now(),
        }).changes === 1
      );
    });
  }

  fills(): Fill[] {
    return this.guard('fills', () => Array.from(this.eachFill(), (f) => f.fill));
  }

  eachFill(afterId = 0): Iterable<{ id: number; fill: Fill; strategyId: string | undefined }> {
    return this.stream('eachFill', this.stmt.fills, [afterId], (r) => ({ id: r.id, fill: toFill(r), strategyId: r.strategy ?? undefined }));
  }

  lastFillId(): number {
    return this.guard('lastFillId', () => this.stmt.lastFillId.get())?.id ?? 0;
  }

  latestFills(limit: number): Fill[] {
    return this.guard('latestFills', () => this.stmt.latestFills.all(Math.max(0, limit))).map(toFill);
  }

  latestFillsOf(strategyId: string, limit: number): Fill[] {
    return this.guard('latestFillsOf', () => this.stmt.latestFillsOf.all(strategyId, Math.max(0, limit))).map(toFill).reverse();
  }

  fillVolumes(market: Market, symbol: string, venueOrderId: string): Decimal[] {
    return this.guard('fillVolumes', () => this.stmt.fillVolumes.all(venueOrderId, market, symbol)).map((r) => r.volume as Decimal);
  }

  positions(): Position[] {
    return this.guard('positions', () => this.stmt.positions.all()).map(toPosition);
  }

  savePositions(positions: readonly Position[]): void {
    this.write('savePositions', () => this.atomically(() => this.writes.savePositions(positions, this.now())));
  }

  cursor(key: string): string | undefined {
    return this.guard('cursor', () => this.stmt.cursor.get(key))?.value;
  }

  setCursor(key: string, value: string): void {
    this.write('setCursor', () => this.stmt.setCursor.run(key, value, this.now()));
  }

  banUntil(): number {
    return this.guard('banUntil', () => this.stmt.banUntil.get())?.until_ms ?? 0;
  }

  setBanUntil(untilMs: number): void {
    this.write('setBanUntil', () => {
      checkTime(untilMs, 'ban end');
      this.stmt.setBanUntil.run(untilMs, this.now());
    });
  }

  /**
   * Runs `fn`, whose journal writes then share one transaction: one commit, one fsync, instead
   * of one per write. All of `fn` commits or none of it: a write that fails inside it rolls the
   * whole transaction back, even where `fn` catches the write's error. Returns once committed.
   * The engine groups a tick's intents, a batch's answers and a reconcile pass's fills with it.
   */
  transaction<T>(fn: () => T): T {
    const failedBefore = this.failedWrite;
    try {
      return this.write('transaction', () =>
        this.atomic.immediate(() => {
          const result = fn();
          if (this.failedWrite !== failedBefore) {
            throw new Error(`a write inside the transaction failed, so none of it was kept: ${(this.failedWrite as Error).message}`, { cause: this.failedWrite });
          }
          return result;
        }),
      ) as T;
    } catch (err) {
      this.failedWrite = failedBefore; // rolled back, the failed write with the rest
      this.copies?.reload(); // what fn wrote to the copies was rolled back in the table
      throw err;
    }
  }

  mark(): number {
    return this.wal?.mark() ?? 0;
  }

  durable(mark: number): Promise<void> {
    return this.wal ? this.wal.durable(mark) : Promise.resolve();
  }

  writeFailure(): JournalWriteFailure | undefined {
    return this.health.current();
  }

  watchWrites(listener: (failure: JournalWriteFailure | undefined) => void): void {
    this.health.onChange = listener;
  }

  /** Closes the file (checkpointing the WAL). Idempotent; any other call afterwards throws. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wal?.close();
    this.db.close();
  }

  /** Runs maintenance on the connection (store/prune.ts: `sluice journal prune`, with the daemon's lock held). */
  maintain<T>(op: string, fn: (db: Database.Database) => T): T {
    try {
      return this.write(op, () => fn(this.db));
    } finally {
      this.copies?.reload(); // the orders beside the tables: read them again
    }
  }

  /** Full `PRAGMA integrity_check` (slower than the quick_check done at open): ['ok'] when sound. */
  integrityCheck(): string[] {
    return this.guard('integrityCheck', () => (this.db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check));
  }

  /** The connection's durability settings as SQLite reports them: for a start-up log line and tests. */
  settings(): { schemaVersion: number; journalMode: string; synchronous: string; foreignKeys: boolean; busyTimeoutMs: number; cacheKib: number; tempStore: string } {
    return this.guard('settings', () => ({
      cacheKib: -(this.db.pragma('cache_size', { simple: true }) as number),
      schemaVersion: this.db.pragma('user_version', { simple: true }) as number,
      journalMode: String(this.db.pragma('journal_mode', { simple: true })),
      synchronous: ['OFF', 'NORMAL', 'FULL', 'EXTRA'][this.db.pragma('synchronous', { simple: true }) as number] ?? 'unknown',
      foreignKeys: this.db.pragma('foreign_keys', { simple: true }) === 1,
      busyTimeoutMs: this.db.pragma('busy_timeout', { simple: true }) as number,
      tempStore: ['DEFAULT', 'FILE', 'MEMORY'][this.db.pragma('temp_store', { simple: true }) as number] ?? 'unknown',
    }));
  }

  // ---------- plumbing ----------
  /** A write: its commit is counted, for durable(). */
  private write<T>(op: string, fn: () => T): T {
    let result: T;
    try {
      result = this.guard(op, fn);
    } catch (err) {
      if (isStorageFailure(err)) this.health.failed(op, (err as Error).message);
      throw err;
    }
    this.health.wrote(op);
    if (!this.db.inTransaction) this.health.committed();
    this.wal?.commit();
    return result;
  }

  /**
   * A write of several statements, all or nothing: alone, a transaction of its own; inside
   * transaction(fn), no savepoint (one cost an intent 7 of its 36 µs), and a failure rolls the
   * whole transaction back (see transaction()).
   */
  private atomically<T>(body: () => T): T {
    if (!this.db.inTransaction) return this.atomic.immediate(body) as T;
    try {
      return body();
    } catch (err) {
      this.failedWrite ??= err;
      throw err;
    }
  }

  private guard<T>(op: string, fn: () => T): T {
    if (this.closed) throw new JournalError(`journal ${this.path} is closed: ${op} after close()`);
    try {
      return fn();
    } catch (err) {
      throw journalError(this.path, op, err);
    }
  }

  /** Rows one at a time (better-sqlite3 refuses writes on the connection until the loop ends). */
  private *stream<P extends unknown[], R, T>(op: string, statement: Database.Statement<P, R>, params: P, to: (row: R) => T): Generator<T> {
    try {
      for (const row of this.guard(op, () => statement.iterate(...params))) yield to(row);
    } catch (err) {
      throw journalError(this.path, op, err);
    }
  }
}
