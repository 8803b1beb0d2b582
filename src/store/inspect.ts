// Looking at a journal file without writing to it: the one set of rules for whether a file may
// be opened as a journal, used by the journal itself before it writes and by `sluice doctor`.
import { Database } from './driver.js';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** "sluc" in ASCII: marks a SQLite file as a sluice journal (PRAGMA application_id). */
export const APPLICATION_ID = 0x736c7563;

/** How long a connection waits for another connection's lock before failing (ms). */
export const BUSY_TIMEOUT_MS = 5_000;

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

export type JournalFile =
  /** No file: a new journal. */
  | { kind: 'missing' }
  /** SQLite creates the file empty and writes page 1 at the first commit: a new journal too. */
  | { kind: 'empty' }
  | {
      kind: 'journal';
      /** user_version: 0 for a database with nothing in it yet. */
      schema: number;
      /** Header bytes 18-19 say WAL mode (a sluice journal always is, once written). */
      wal: boolean;
      orders: number;
      fills: number;
      /** The recorded venue ban's end (epoch ms), 0 for none. */
      banUntil: number;
    }
  /** Must not be opened: what is wrong, and what the operator does about it. */
  | { kind: 'unusable'; problem: string; fix: string; corrupt: boolean; cause?: unknown };

export const MOVE_ASIDE = 'stop sluice, move the file aside (keep it for forensics) and start again: sluice rebuilds its state from the venue';

/**
 * A read-only connection that leaves the directory as it found it. Beside a running daemon
 * (its -wal exists) that is a read-only connection. Otherwise the file is opened immutable: a
 * read-only connection to a WAL database would create -wal and -shm files and leave them
 * behind. Immutable takes no locks, so a daemon starting meanwhile could show a torn read; it
 * reads the file in place, page by page, whatever its size (a journal of months is gigabytes).
 */
export function openReadOnly(path: string): Database.Database {
  if (existsSync(`${path}-wal`)) return new Database(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  return new Database(`${pathToFileURL(resolve(path)).href}?immutable=1`, { readonly: true, fileMustExist: true });
}

/**
 * What the file at `path` is, read without writing a byte. `newest` is the schema this sluice
 * writes: a newer one is unusable. `check` is quick_check (start-up) or the slower, complete
 * integrity_check (the doctor).
 */
export function inspectJournal(path: string, newest: number, opts: { check?: 'quick' | 'full'; open?: () => Database.Database } = {}): JournalFile {
  if (!existsSync(path)) return { kind: 'missing' };
  if (statSync(path).size === 0) return { kind: 'empty' };
  const unusable = (problem: string, fix: string, corrupt = false, cause?: unknown): JournalFile => ({ kind: 'unusable', problem, fix, corrupt, cause });
  const head = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (statSync(path).size < 100 || !head.subarray(0, 16).equals(SQLITE_HEADER)) return unusable('not a SQLite database (no SQLite header)', MOVE_ASIDE, true);
  const wal = head[18] === 2 && head[19] === 2;

  let db: Database.Database | undefined;
  try {
    db = (opts.open ?? (() => openReadOnly(path)))();
    const schema = db.pragma('user_version', { simple: true }) as number;
    const appId = db.pragma('application_id', { simple: true }) as number;
    if (appId !== 0 && appId !== APPLICATION_ID) return unusable(`a SQLite database of another program (application_id ${appId})`, 'point journal.path elsewhere');
    if (schema > newest) return unusable(`written by a newer sluice (schema ${schema}, this one knows ${newest})`, 'upgrade sluice, or point journal.path elsewhere');
    if (schema === 0 && (db.prepare(`SELECT count(*) AS n FROM sqlite_schema`).get() as { n: number }).n > 0) {
      return unusable('a SQLite database but not a sluice journal', 'point journal.path elsewhere');
    }
    const pragma = opts.check === 'full' ? 'integrity_check' : 'quick_check';
    const problems = (db.pragma(pragma) as Record<string, string>[]).map((r) => r[pragma]!);
    if (problems.length !== 1 || problems[0] !== 'ok') return unusable(`corrupt (${pragma}: ${printable(problems.slice(0, 3).join('; '))})`, MOVE_ASIDE, true);
    const count = (table: string) => (db!.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    if (schema === 0) return { kind: 'journal', schema, wal, orders: 0, fills: 0, banUntil: 0 };
    const banUntil = (db.prepare('SELECT until_ms FROM bans WHERE id = 1').get() as { until_ms: number } | undefined)?.until_ms ?? 0;
    return { kind: 'journal', schema, wal, orders: count('orders'), fills: count('fills'), banUntil };
  } catch (err) {
    const code = err instanceof Database.SqliteError ? err.code : undefined;
    if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code?.startsWith('SQLITE_CORRUPT_')) return unusable(`corrupt (${printable((err as Error).message)})`, MOVE_ASIDE, true, err);
    return unusable(`cannot be read (${code ?? printable((err as Error).message)})`, 'check its permissions (run as the daemon\'s user) and that the disk is healthy', false, err);
  } finally {
    db?.close();
  }
}

/** SQLite may quote damaged bytes back at us: keep the message printable. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
}
