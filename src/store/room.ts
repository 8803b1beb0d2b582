// Whether the journal can be written where it is, asked of the filesystem without writing:
// for `sluice doctor`, and to name the cause when the daemon's lock cannot be taken.
import { accessSync, constants, existsSync, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Below this much free space the doctor warns; below a tenth of it, it fails. */
export const LOW_SPACE_BYTES = 1024 ** 3;
/** A journal this large is worth trimming: every start reads it whole (its integrity check). */
export const LARGE_JOURNAL_BYTES = 1024 ** 3;

/** What to do about a journal of `bytes`, when it is large enough to matter. */
export function pruneAdvice(bytes: number): string | undefined {
  if (bytes < LARGE_JOURNAL_BYTES) return undefined;
  return `trim it with \`sluice journal prune --config <file> --keep-days N\` with the daemon stopped (docs/deployment.md, Journal retention): every start reads the whole file, and it grows by about 1 KB a journaled order`;
}

export interface WriteProblem {
  problem: string;
  fix: string;
}

/** Why this process cannot write the journal at `path` (its directory, or the files in it), or undefined. */
export function writeProblem(path: string): WriteProblem | undefined {
  const dir = nearestExisting(dirname(path));
  if (!statSync(dir).isDirectory()) return unwritable(dir, 'ENOTDIR');
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}.lock`].filter((f) => existsSync(f)).concat(dir)) {
    try {
      accessSync(file, constants.W_OK);
    } catch (err) {
      return unwritable(file, (err as NodeJS.ErrnoException).code);
    }
  }
  return undefined;
}

/** What an access or open failure code means for the journal at `file`, and the fix. */
export function unwritable(file: string, code: string | undefined): WriteProblem {
  switch (code) {
    case 'EROFS':
      return { problem: `${file} is on a read-only filesystem (EROFS)`, fix: 'remount it read-write, or point journal.path at a writable disk' };
    case 'EACCES':
    case 'EPERM':
      return { problem: `this user may not write ${file} (${code})`, fix: "run sluice as the journal's owner, or fix the permissions" };
    case 'ENOTDIR':
      return { problem: `${file} is a file, not a directory (ENOTDIR)`, fix: 'fix journal.path' };
    default:
      return { problem: `${file} cannot be written (${code ?? 'unknown error'})`, fix: 'check the disk and the permissions' };
  }
}

/** Free bytes for this user on the filesystem that holds (or will hold) the journal. */
export function freeBytes(path: string): number {
  const s = statfsSync(nearestExisting(dirname(path)));
  return s.bavail * s.bsize;
}

/** The journal's directory, or the closest one above it that exists (the first start makes the rest). */
function nearestExisting(dir: string): string {
  let at = dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}
