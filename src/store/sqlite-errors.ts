// What the SQLite journal says when a file cannot be used or a statement fails: each message
// names the journal, what was being done and what to do about it.
import { Database } from './driver.js';
import { JournalError } from '../core/errors.js';
import { BUSY_TIMEOUT_MS, inspectJournal, MOVE_ASIDE } from './inspect.js';
import { SCHEMA_VERSION } from './schema.js';

export function corrupt(path: string, detail: string, cause?: unknown): JournalError {
  // SQLite may quote damaged bytes back at us: keep the message printable.
  detail = detail.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
  return new JournalError(`journal ${path} is corrupt (${detail}): ${MOVE_ASIDE}; the file was not changed`, { cause });
}

export function tooNew(path: string, version: number): JournalError {
  return new JournalError(`journal ${path}: written by a newer sluice (schema ${version}, this one knows ${SCHEMA_VERSION}): upgrade sluice, or point journal.path elsewhere; the file was not changed`);
}

export function sqliteCode(err: unknown): string | undefined {
  return err instanceof Database.SqliteError ? err.code : undefined;
}

function isCorruption(code: string | undefined): boolean {
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || (code?.startsWith('SQLITE_CORRUPT_') ?? false);
}

/** Throws JournalError when the file must not be opened (see store/inspect.ts); a new or readable journal passes. */
export function refuseUnusable(path: string, open?: () => Database.Database): void {
  const seen = inspectJournal(path, SCHEMA_VERSION, { open });
  if (seen.kind === 'unusable') throw new JournalError(`journal ${path}: ${seen.problem}: ${seen.fix}; the file was not changed`, { cause: seen.cause });
}

/** Our own refusals (duplicate id, unknown order) pass through; SQLite failures become JournalError. */
export function journalError(path: string, op: string, err: unknown): Error {
  if (!(err instanceof Database.SqliteError)) return err instanceof Error ? err : new Error(String(err));
  const code = err.code;
  if (isCorruption(code)) return new JournalError(`journal ${path} is corrupt (${op}: ${err.message}): ${MOVE_ASIDE}`, { cause: err });
  if (code === 'SQLITE_FULL') return new JournalError(`journal ${path}: ${op} failed, the disk is full: free space (sluice trades on by itself once the journal takes writes again)`, { cause: err });
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new JournalError(`journal ${path}: ${op} waited ${BUSY_TIMEOUT_MS} ms for a lock held by another process: is another sluice using this journal?`, { cause: err });
  }
  if (code.startsWith('SQLITE_READONLY')) return new JournalError(`journal ${path}: ${op} failed, the file is read-only: check its permissions`, { cause: err });
  if (code.startsWith('SQLITE_IOERR')) return new JournalError(`journal ${path}: ${op} failed with an I/O error (${code}): check the disk`, { cause: err });
  return new JournalError(`journal ${path}: ${op} failed (${code}: ${err.message})`, { cause: err });
}

/** The file or its disk refused a write (full, read-only, an I/O error, locked, damaged), not our own refusal of its content. */
export function isStorageFailure(err: unknown): boolean {
  const code = err instanceof JournalError ? sqliteCode(err.cause) : undefined;
  return code !== undefined && /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|BUSY|LOCKED|CORRUPT|NOTADB)/.test(code);
}
