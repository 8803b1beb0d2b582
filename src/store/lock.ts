// One daemon per journal. Two daemons sharing a journal would each take the other's orders
// for its own (and cancel them at shutdown) and apply the same fills twice, so the second one
// refuses to start. The lock is a file holding the owner's pid: a process killed
// with -9 leaves it behind, and a lock whose pid is no longer alive is taken over.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { JournalError } from '../core/errors.js';

export interface JournalLock {
  readonly path: string;
  release(): void;
}

export function lockJournal(journalPath: string, pid = process.pid): JournalLock {
  const path = `${journalPath}.lock`;
  const owner = `${pid}@${hostname()}`;
  // The journal's directory is made here, not by the journal: the lock is taken first, and a
  // missing `.sluice/` is a first start, not a permissions problem.
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way' : code;
    throw new JournalError(`cannot create the journal's directory ${dirname(path)} (${why}): check journal.path and that this user may write there`, { cause: err });
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, owner);
      closeSync(fd);
      return { path, release: () => releaseIfOwned(path, owner) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new JournalError(`cannot create the journal lock ${path} (${(err as NodeJS.ErrnoException).code}): check the directory's permissions`, { cause: err });
      }
    }
    const holder = readHolder(path);
    if (holder && isAlive(holder)) {
      throw new JournalError(
        `journal ${journalPath} is in use by another sluice (pid ${holder.pid} on ${holder.host}): stop it first, or give this daemon its own journal.path`,
      );
    }
    // The previous owner died without releasing (kill -9, power loss): the lock is stale.
    rmSync(path, { force: true });
  }
  throw new JournalError(`journal ${journalPath}: another process keeps taking its lock ${path}; is a second sluice starting at the same time?`);
}

function readHolder(path: string): { pid: number; host: string } | undefined {
  try {
    const m = /^(\d+)@(.*)$/.exec(readFileSync(path, 'utf8').trim());
    return m ? { pid: Number(m[1]), host: m[2]! } : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(holder: { pid: number; host: string }): boolean {
  // A lock from another host (a shared disk) cannot be checked from here: treat it as held.
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseIfOwned(path: string, owner: string): void {
  try {
    if (readFileSync(path, 'utf8').trim() === owner) rmSync(path, { force: true });
  } catch {
    /* already gone */
  }
}
