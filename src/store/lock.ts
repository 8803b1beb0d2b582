// One daemon per journal. Two daemons sharing a journal would each take the other's orders
// for its own (and cancel them at shutdown) and apply the same fills twice, so the second one
// refuses to start.
//
// The lock is the kernel's, not a guess from a pid: `<journal>.lock` is an empty SQLite database
// held by an exclusive transaction, that is POSIX advisory locks, which the kernel drops when
// the process ends however it ends (kill -9, OOM, power loss). A pid cannot say whether its
// owner lives: a restarted container's sluice is PID 1 again, a recreated one has a new
// hostname, a reboot reuses pids. SQLite also keeps two connections of one process apart, which
// the kernel's per-process locks alone would not.
//
// Nothing but SQLite may open the lock file while this process may hold it: closing any
// descriptor of a file drops all of the process's POSIX locks on it. Who holds the lock is
// written beside it (`<journal>.lock.holder`), for messages only: a held database cannot be read.
import { Database } from './driver.js';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { JournalError } from '../core/errors.js';
import { unwritable, writeProblem } from './room.js';
import { sqliteCode } from './sqlite-errors.js';

export interface JournalLock {
  readonly path: string;
  release(): void;
}

/** What the holder wrote about itself; its pid and host are as it saw them (a container's own). */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** ISO time the lock was taken. */
  readonly since: string;
}

export type LockState =
  | { kind: 'none' }
  /** Nobody holds it; `last` is what its last holder wrote, if one died without releasing. */
  | { kind: 'free'; last: LockHolder | undefined }
  | { kind: 'held'; holder: LockHolder | undefined }
  /** The text lock of an older sluice (`pid@host`): no kernel lock, so it keeps nobody out. */
  | { kind: 'old'; text: string };

/** Outlasts `sluice doctor` reading the lock for an instant (lockState); a refusal stays prompt. */
const WAIT_MS = 100;

/** Connections holding a lock: one the garbage collector closed would drop it. */
const held = new Set<Database.Database>();

/** The old format, `<pid>@<host>`, written by sluice before the lock was the kernel's. */
const OLD_LOCK = /^\d+@[^\n]*$/;

export function lockJournal(journalPath: string): JournalLock {
  // The journal's directory is made here, not by the journal: the lock is taken first, and a
  // missing `.sluice/` is a first start, not a permissions problem.
  try {
    mkdirSync(dirname(journalPath), { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? { problem: 'a file is in the way', fix: 'fix journal.path' } : unwritable(dirname(journalPath), code);
    throw new JournalError(`cannot create the journal's directory ${dirname(journalPath)}: ${why.problem}: ${why.fix}`, { cause: err });
  }
  const path = lockPathOf(journalPath);
  const db = take(path, journalPath);
  held.add(db);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    // The description first: once the connection closes, the next holder may write its own.
    rmSync(holderPath(path), { force: true });
    db.close();
    held.delete(db);
  };
  try {
    writeHolder(path, { pid: process.pid, host: hostname(), since: new Date().toISOString() });
  } catch (err) {
    release();
    throw new JournalError(`cannot write ${holderPath(path)} beside the journal lock (${(err as NodeJS.ErrnoException).code}): check the directory's permissions and free space`, { cause: err });
  }
  return { path, release };
}

/** Whether a daemon holds the journal's lock, for `sluice doctor`; never takes it. */
export function lockState(journalPath: string): LockState {
  const path = lockPathOf(journalPath);
  if (!existsSync(path)) return { kind: 'none' };
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 0 });
    // A read takes a shared lock for an instant, refused while a daemon holds its exclusive one.
    db.pragma('schema_version');
    return { kind: 'free', last: readHolder(path) };
  } catch (err) {
    const code = sqliteCode(err);
    if (code?.startsWith('SQLITE_BUSY')) return { kind: 'held', holder: readHolder(path) };
    // Not a database, so no connection of ours holds it: reading it as a file is safe.
    if (code === 'SQLITE_NOTADB') return { kind: 'old', text: readFileSync(path, 'utf8').trim().slice(0, 200) };
    throw new JournalError(`cannot read the journal lock ${path} (${code ?? (err as Error).message}): check its permissions`, { cause: err });
  } finally {
    db?.close();
  }
}

/**
 * Beside the file the journal really is: two paths to one journal (a symlink to it or to its
 * directory) must meet at one lock, or a second daemon would trade on the same journal.
 */
export function lockPathOf(journalPath: string, hops = 0): string {
  let real: string;
  try {
    real = realpathSync(journalPath);
  } catch {
    // A link to a journal not made yet: where it points (SQLite creates the journal there).
    if (hops < 40 && lstatSync(journalPath, { throwIfNoEntry: false })?.isSymbolicLink()) {
      return lockPathOf(resolve(dirname(journalPath), readlinkSync(journalPath)), hops + 1);
    }
    // No journal yet: its directory's real place, and its name.
    try {
      real = join(realpathSync(dirname(journalPath)), basename(journalPath));
    } catch {
      real = resolve(journalPath);
    }
  }
  return `${real}.lock`;
}

function take(path: string, journalPath: string): Database.Database {
  for (let attempt = 0; ; attempt++) {
    let db: Database.Database | undefined;
    try {
      db = new Database(path, { timeout: WAIT_MS });
      // MEMORY: no `-journal` file beside the lock (nothing is ever written to it anyway).
      db.pragma('journal_mode = MEMORY');
      db.pragma('locking_mode = EXCLUSIVE');
      // Left open until release: the exclusive lock lasts as long as the connection.
      db.exec('BEGIN EXCLUSIVE');
      return db;
    } catch (err) {
      // SQLite keeps the descriptor open while another connection of ours holds a lock on the file.
      db?.close();
      const code = sqliteCode(err);
      if (code?.startsWith('SQLITE_BUSY')) throw new JournalError(refusal(journalPath, path, readHolder(path)), { cause: err });
      if (code === 'SQLITE_NOTADB' && attempt === 0) {
        replaceOldLock(path);
        continue;
      }
      // SQLite says only that it could not open: the filesystem says why.
      const why = writeProblem(journalPath) ?? { problem: `${code ?? (err as Error).message}`, fix: "check the directory's and the file's permissions" };
      throw new JournalError(`cannot take the journal lock ${path}: ${why.problem}: ${why.fix}`, { cause: err });
    }
  }
}

/**
 * An older sluice's text lock becomes an empty database in place. Truncated, not removed: a
 * file removed while another starting sluice has it open would let each hold a lock on a
 * different file. Not a database, so no connection of ours holds it: opening it is safe.
 */
function replaceOldLock(path: string): void {
  const text = readFileSync(path, 'utf8').trim();
  if (!OLD_LOCK.test(text)) {
    throw new JournalError(`${path} is not a sluice journal lock (neither SQLite nor "pid@host"): move it aside and start again`);
  }
  try {
    truncateSync(path, 0);
  } catch (err) {
    throw new JournalError(`cannot replace the old journal lock ${path} (${(err as NodeJS.ErrnoException).code}): check its permissions`, { cause: err });
  }
}

function refusal(journalPath: string, lockPath: string, holder: LockHolder | undefined): string {
  const who = holder ? `pid ${holder.pid} on ${holder.host} since ${holder.since}` : `it has not written ${holderPath(lockPath)} yet`;
  return `journal ${journalPath} is in use by another sluice (${who}): stop it first, or give this daemon its own journal.path`;
}

const holderPath = (lockPath: string) => `${lockPath}.holder`;

function writeHolder(lockPath: string, holder: LockHolder): void {
  // Renamed into place: a reader never sees half of it.
  const tmp = `${holderPath(lockPath)}.${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(holder)}\n`);
  renameSync(tmp, holderPath(lockPath));
}

function readHolder(lockPath: string): LockHolder | undefined {
  try {
    const h = JSON.parse(readFileSync(holderPath(lockPath), 'utf8')) as Partial<LockHolder>;
    return typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.since === 'string' ? { pid: h.pid, host: h.host, since: h.since } : undefined;
  } catch {
    return undefined;
  }
}
