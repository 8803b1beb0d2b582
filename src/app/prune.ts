// `sluice journal prune`: retention for a journal the daemon is not using. It takes the
// journal's lock as the daemon does (so it refuses while a daemon runs, and no daemon starts
// meanwhile), deletes what no future decision needs (store/prune.ts says what, and what stays),
// then reclaims the space with VACUUM when the disk has room for it.
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { JournalError } from '../core/errors.js';
import { LEDGER_CHECKPOINT, readLedgerCheckpoint } from '../engine/ledger-checkpoint.js';
import { POSITIONS_CHECKPOINT } from '../engine/positions-checkpoint.js';
import { lockJournal } from '../store/lock.js';
import { pruneRows, rowCounts, usedBytes, vacuum, type RowCounts } from '../store/prune.js';
import { freeBytes } from '../store/room.js';
import { SqliteJournal } from '../store/sqlite.js';

const DAY_MS = 86_400_000;

export interface PruneOptions {
  keepDays: number;
  now: number;
  /** Reclaim the space (default true). */
  vacuum?: boolean;
  /** Per strategy (tests; default store/prune.ts KEEP_LATEST). */
  keepLatest?: number;
  out: (line: string) => void;
}

/** Exit code: 0 done, 1 refused (the daemon runs, no checkpoint, no journal). */
export function pruneJournal(path: string, opts: PruneOptions): number {
  const say = (line: string) => opts.out(`journal prune: ${line}`);
  if (!existsSync(path)) {
    say(`no journal at ${path}: nothing to prune (journal.path)`);
    return 1;
  }
  let lock;
  try {
    lock = lockJournal(path);
  } catch (err) {
    if (!(err instanceof JournalError)) throw err;
    say(`refused: ${err.message}. Prune with the daemon stopped (it deletes and rewrites what the daemon reads)`);
    return 1;
  }
  try {
    const journal = SqliteJournal.open(path);
    try {
      return prune(journal, path, opts, say);
    } finally {
      journal.close();
    }
  } catch (err) {
    if (!(err instanceof JournalError)) throw err;
    say(`refused: ${err.message}`);
    return 1;
  } finally {
    lock.release();
  }
}

function prune(journal: SqliteJournal, path: string, opts: PruneOptions, say: (line: string) => void): number {
  const through = checkpointed(journal);
  if (typeof through === 'string') {
    say(`refused: ${through}`);
    return 1;
  }
  const before = opts.now - opts.keepDays * DAY_MS;
  const sizeBefore = fileBytes(path);
  const rowsBefore = journal.maintain('prune', rowCounts);
  say(`${path}: deleting final orders last updated before ${new Date(before).toISOString()} (${opts.keepDays} days), with their events, intents and fills up to fill ${through} (the checkpoints); keeping every order not final and each strategy's latest orders and fills`);
  const deleted = journal.maintain('prune', (db) => pruneRows(db, { before, throughFill: through, now: opts.now, keepLatest: opts.keepLatest }));
  say(`deleted ${deleted.orders} orders, ${deleted.events} order events, ${deleted.intents} intents, ${deleted.fills} fills`);
  const rowsAfter = journal.maintain('prune', rowCounts);
  say(`rows: ${describeRows(rowsBefore, rowsAfter)}`);
  if (opts.vacuum !== false) reclaim(journal, path, say);
  const sizeAfter = fileBytes(path);
  say(`size (file and -wal): ${mb(sizeBefore)} -> ${mb(sizeAfter)}`);
  return 0;
}

/** The fill number both checkpoints cover, or why the journal cannot be pruned yet. */
function checkpointed(journal: SqliteJournal): number | string {
  const again = "start the daemon of this sluice once (it checkpoints after each reconcile pass that journals a fill, and at its first), stop it, and prune again";
  const text = journal.cursor(POSITIONS_CHECKPOINT);
  if (text === undefined) return `the journal holds no positions checkpoint: ${again}`;
  let through: unknown;
  try {
    through = (JSON.parse(text) as { throughFill?: unknown }).throughFill;
  } catch {
    through = undefined;
  }
  if (!Number.isSafeInteger(through) || (through as number) < 0 || (through as number) > journal.lastFillId()) return `the positions checkpoint cannot be used: ${again}`;
  if (journal.cursor(LEDGER_CHECKPOINT) === undefined) return `the journal holds no checkpoint of the strategies' own positions (${LEDGER_CHECKPOINT}; sluice before this version wrote none): ${again}`;
  const ledger = readLedgerCheckpoint(journal, through as number);
  if (!ledger || 'problem' in ledger) return `the checkpoint of the strategies' own positions cannot be used (${ledger ? ledger.problem : 'none'}): ${again}`;
  return through as number;
}

/** VACUUM when the disk has room: the copy it builds and the -wal it writes it back through each take about the space in use. */
function reclaim(journal: SqliteJournal, path: string, say: (line: string) => void): void {
  const { used, total } = journal.maintain('prune', (db) => ({ used: usedBytes(db), total: statSync(path).size }));
  if (total - used <= 0) {
    say('nothing to reclaim: the file has no free pages');
    return;
  }
  const need = 2 * used;
  const free = freeBytes(path);
  if (free < need) {
    say(
      `not vacuumed: VACUUM needs about ${mb(need)} free on ${dirname(path)}'s disk (a copy of the ${mb(used)} in use, and the -wal it is written back through) and it has ${mb(free)}; the ${mb(total - used)} freed is reused by the journal's next writes, so the file does not grow until it is used up. Free space and prune again to shrink the file`,
    );
    return;
  }
  say(`vacuuming: rewriting the ${mb(used)} in use to shrink the file by about ${mb(total - used)} (needs about ${mb(need)} free, ${mb(free)} is; the copy is built in SQLite's temporary directory, SQLITE_TMPDIR or /var/tmp or /tmp)`);
  journal.maintain('vacuum', vacuum);
}

function describeRows(before: RowCounts, after: RowCounts): string {
  return (Object.keys(before) as (keyof RowCounts)[]).map((t) => `${t} ${before[t]} -> ${after[t]}`).join(', ');
}

function fileBytes(path: string): number {
  return [path, `${path}-wal`].filter((p) => existsSync(p)).reduce((sum, p) => sum + statSync(p).size, 0);
}

function mb(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(2)} GB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}
