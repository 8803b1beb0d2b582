// Run by lock.test.ts in a child process: takes the journal lock and prints "held" once it has
// it (or "refused <message>" and exits 1), then keeps it until the parent kills it. A second
// argument is the pid it records as its own, as a daemon in another container's pid namespace
// would. Usage: node --import tsx lock-child.ts <journal> [pid]
import { writeSync } from 'node:fs';
import { lockJournal } from '../../../src/store/lock.js';

const [path, pid] = process.argv.slice(2);
if (!path) throw new Error('usage: lock-child.ts <journal> [pid]');
if (pid) Object.defineProperty(process, 'pid', { value: Number(pid) });
try {
  lockJournal(path);
} catch (err) {
  writeSync(1, `refused ${(err as Error).message}\n`);
  process.exit(1);
}
writeSync(1, 'held\n');
// Alive, and holding, until the parent's SIGKILL (or until its pipe closes, should it die first).
process.stdin.resume();
