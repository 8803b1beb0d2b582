// A throwaway copy of a journal (`sluice plan`): the plan judges against what the daemon has
// journaled (positions from its fills, its open orders), writes only to the copy, and the real
// journal is read without a byte written, so it works beside a running daemon.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openReadOnly } from './inspect.js';
import { SqliteJournal, type SqliteJournalOptions } from './sqlite.js';

export async function scratchCopy(path: string, opts: SqliteJournalOptions = {}): Promise<{ journal: SqliteJournal; discard(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-scratch-'));
  const file = join(dir, 'journal.db');
  try {
    const source = openReadOnly(path);
    try {
      await source.backup(file);
    } finally {
      source.close();
    }
    const journal = SqliteJournal.open(file, opts);
    return {
      journal,
      discard: () => {
        journal.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
