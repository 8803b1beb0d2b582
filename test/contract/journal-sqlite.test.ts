import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { journalContract } from './journal.contract.js';

journalContract('SqliteJournal on a temporary file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-journal-'));
  const path = join(dir, 'nested', 'journal.db');
  let current = new SqliteJournal(path);
  return {
    journal: current,
    reopen: () => {
      current.close();
      current = new SqliteJournal(path);
      return current;
    },
    cleanup: () => {
      current.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
