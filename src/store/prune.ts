// Retention: what `sluice journal prune` deletes, in one transaction, and the space reclaimed.
//
// Deleted: orders that are final (filled, canceled, rejected) and were last updated before the
// cutoff, with their intents, events and fills, and only where every fill of theirs is covered
// by the checkpoints (the positions' and the strategies' books, same throughFill): the books a
// start restores are unchanged. Kept whatever else: every order that is not final, the latest
// KEEP_LATEST orders of each strategy and the orders of its latest KEEP_LATEST fills (what
// ctx.orders() and ctx.fills() list), an order that shares its venue id with one kept (their
// fills are one set), sequences (client order ids never repeat), cursors, strategy state, bans.
// For each symbol, the highest trade id pruned is kept (prunedTradesKey): the reconciler passes
// over a trade at or below it that no order claims, so a pruned order's trade that the venue
// shows again (its latest page, read every fifth pass) is never booked or reported again.
import { dec, type Decimal } from '../core/decimal.js';
import type { Database } from './driver.js';
import { compareIds, PRUNED_KEY, prunedTradesKey } from '../core/ids.js';

/** Per strategy, the orders and the fills' orders a prune keeps (ctx.orders(), ctx.fills()). */
export const KEEP_LATEST = 1000;

const FINAL = `('filled', 'canceled', 'rejected')`;
const TABLES = ['orders', 'order_events', 'intents', 'fills'] as const;
export type RowCounts = Record<(typeof TABLES)[number], number>;

export interface PruneOptions {
  /** Epoch ms: final orders last updated before it go. */
  before: number;
  /** The checkpoints' fill number: no fill above it is deleted. */
  throughFill: number;
  /** Per strategy (default KEEP_LATEST). */
  keepLatest?: number | undefined;
  /** Clock for the cursors' updated_at. */
  now: number;
}

/** What PRUNED_KEY holds after a prune (JSON). */
export interface PrunedNote {
  at: number;
  before: number;
  throughFill: number;
  /** The rows it deleted (absent in notes of sluice before this field). */
  deleted?: PruneResult;
}

export interface PruneResult {
  orders: number;
  events: number;
  intents: number;
  fills: number;
}

export function rowCounts(db: Database.Database): RowCounts {
  const counts = {} as RowCounts;
  for (const t of TABLES) counts[t] = (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
  return counts;
}


/** Deletes what retention may (above); all or nothing. */
export function pruneRows(db: Database.Database, opts: PruneOptions): PruneResult {
  const keep = opts.keepLatest ?? KEEP_LATEST;
  const run = db.transaction((): PruneResult => {
    db.exec(`DROP TABLE IF EXISTS temp.pruned; CREATE TEMP TABLE pruned (client_order_id TEXT PRIMARY KEY, venue_order_id TEXT, market TEXT, symbol TEXT)`);
    // Final, untouched since the cutoff, not among its strategy's latest orders, every fill covered by the checkpoints.
    db.prepare(
      `INSERT INTO temp.pruned
       SELECT o.client_order_id, o.venue_order_id, o.market, o.symbol FROM orders o
       WHERE o.status IN ${FINAL} AND o.updated_at < @before
         AND o.intent NOT IN (SELECT intent FROM (SELECT intent, row_number() OVER (PARTITION BY strategy ORDER BY intent DESC) AS n FROM orders) WHERE n <= @keep)
         AND NOT EXISTS (SELECT 1 FROM fills f WHERE f.venue_order_id = o.venue_order_id AND f.market = o.market AND f.symbol = o.symbol AND f.id > @through)`,
    ).run({ before: opts.before, keep, through: opts.throughFill });
    // The orders of each strategy's latest fills (attributed as the journal's fills query does).
    db.prepare(
      `DELETE FROM temp.pruned WHERE (venue_order_id, market, symbol) IN (
         SELECT venue_order_id, market, symbol FROM (
           SELECT venue_order_id, market, symbol, row_number() OVER (PARTITION BY strategy ORDER BY id DESC) AS n FROM (
             SELECT f.id, f.venue_order_id, f.market, f.symbol,
                    (SELECT o.strategy FROM orders o WHERE o.venue_order_id = f.venue_order_id AND o.market = f.market AND o.symbol = f.symbol ORDER BY o.intent DESC LIMIT 1) AS strategy
             FROM fills f))
         WHERE n <= @keep)`,
    ).run({ keep });
    // A venue id shared with an order kept: their fills are one set, so both stay.
    db.exec(
      `DELETE FROM temp.pruned WHERE venue_order_id IS NOT NULL AND EXISTS (
         SELECT 1 FROM orders o WHERE o.venue_order_id = temp.pruned.venue_order_id AND o.market = temp.pruned.market AND o.symbol = temp.pruned.symbol
           AND o.client_order_id NOT IN (SELECT client_order_id FROM temp.pruned))`,
    );
    // An order whose fills do not add up to what it executed has trades not read yet: kept, for a
    // trade at or below the pruned mark would be passed over when it shows. (Not a spot market buy
    // sized in quote: its fills are in base.)
    const short: string[] = [];
    const executed = db
      .prepare(
        `SELECT p.client_order_id AS id, o.executed_volume AS executed, group_concat(f.volume, ' ') AS volumes FROM temp.pruned p
         JOIN orders o ON o.client_order_id = p.client_order_id
         LEFT JOIN fills f ON f.venue_order_id = p.venue_order_id AND f.market = p.market AND f.symbol = p.symbol
         WHERE o.executed_volume <> '0' AND NOT (o.market = 'spot' AND o.type = 'MARKET' AND o.side = 'BUY')
         GROUP BY p.client_order_id`,
      )
      .iterate() as Iterable<{ id: string; executed: string; volumes: string | null }>;
    for (const r of executed) if (dec.lt(dec.sum((r.volumes ?? '').split(' ').filter((v) => v !== '') as Decimal[]), r.executed as Decimal)) short.push(r.id);
    const keepShort = db.prepare(`DELETE FROM temp.pruned WHERE client_order_id = ?`);
    for (const id of short) keepShort.run(id);
    // The highest trade id pruned per symbol, for the reconciler.
    const highest = db
      .prepare(
        `SELECT f.market, f.symbol, f.trade_id FROM fills f JOIN temp.pruned p ON f.venue_order_id = p.venue_order_id AND f.market = p.market AND f.symbol = p.symbol`,
      )
      .iterate() as Iterable<{ market: string; symbol: string; trade_id: string }>;
    const marks = new Map<string, string>();
    for (const r of highest) {
      const key = prunedTradesKey(r.market, r.symbol);
      const was = marks.get(key);
      if (was === undefined || compareIds(r.trade_id, was) > 0) marks.set(key, r.trade_id);
    }
    const getCursor = db.prepare(`SELECT value FROM cursors WHERE key = ?`);
    const setCursor = db.prepare(`INSERT INTO cursors (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
    for (const [key, id] of marks) {
      const stored = (getCursor.get(key) as { value: string } | undefined)?.value;
      if (stored === undefined || compareIds(id, stored) > 0) setCursor.run(key, id, opts.now);
    }
    const fills = db.prepare(`DELETE FROM fills WHERE id IN (SELECT f.id FROM fills f JOIN temp.pruned p ON f.venue_order_id = p.venue_order_id AND f.market = p.market AND f.symbol = p.symbol)`).run().changes;
    const events = db.prepare(`DELETE FROM order_events WHERE client_order_id IN (SELECT client_order_id FROM temp.pruned)`).run().changes;
    const orders = db.prepare(`DELETE FROM orders WHERE client_order_id IN (SELECT client_order_id FROM temp.pruned)`).run().changes;
    const intents = db.prepare(`DELETE FROM intents WHERE client_order_id IN (SELECT client_order_id FROM temp.pruned)`).run().changes;
    db.exec(`DROP TABLE temp.pruned`);
    // Only a prune that deleted something: a checkpoint set aside later says the rebuild lacks pruned fills.
    const note: PrunedNote = { at: opts.now, before: opts.before, throughFill: opts.throughFill, deleted: { orders, events, intents, fills } };
    if (orders > 0) setCursor.run(PRUNED_KEY, JSON.stringify(note), opts.now);
    return { orders, events, intents, fills };
  });
  return run.immediate();
}

/** Bytes the file would hold after a VACUUM: its pages in use. */
export function usedBytes(db: Database.Database): number {
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  return (pages - free) * (db.pragma('page_size', { simple: true }) as number);
}

/**
 * Rewrites the file without its free pages, then empties the -wal file it went through. VACUUM
 * builds the new database in a temporary file (temp_store FILE, not the connection's MEMORY: it
 * may be gigabytes) and writes it back through the -wal file: each holds about usedBytes().
 */
export function vacuum(db: Database.Database): void {
  db.pragma('temp_store = FILE');
  try {
    db.exec('VACUUM');
  } finally {
    db.pragma('temp_store = MEMORY');
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
}
