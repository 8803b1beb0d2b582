// Run by crash.test.ts in a child process: journals intents as fast as it can and prints
// "<sequence> <client order id>" on stdout after each recordIntent has returned, until the
// parent kills it with SIGKILL. Usage: node --import tsx journal-crash-child.ts <path> <count>
import { writeSync } from 'node:fs';
import { clientOrderId } from '../../../src/core/ids.js';
import { SqliteJournal } from '../../../src/store/sqlite.js';
import { pendingOrder, placeIntent } from '../../contract/journal.contract.js';

const [path, count] = process.argv.slice(2);
if (!path || !count) throw new Error('usage: journal-crash-child.ts <path> <count>');

const journal = new SqliteJournal(path);
for (let i = 0; i < Number(count); i++) {
  const sequence = journal.nextSequence('crash');
  const id = clientOrderId('crash', sequence);
  const intent = placeIntent('crash', id);
  journal.recordIntent(intent, pendingOrder(intent, 1_700_000_000_000 + i));
  // Synchronous write: the line exists only once the call above returned.
  writeSync(1, `${sequence} ${id}\n`);
}
journal.close();
