// The journal `sluice plan` works on: in live mode a scratch copy of the daemon's (its positions
// and open orders are what risk judges; nothing is written to the real one), else none (memory).
import { existsSync, statSync } from 'node:fs';
import type { Config } from '../config/index.js';
import { scratchCopy } from '../store/scratch.js';
import type { SqliteJournal } from '../store/sqlite.js';

export async function planJournal(config: Config): Promise<{ journal: SqliteJournal; discard(): void } | undefined> {
  const path = config.journal.path;
  if (config.mode !== 'live' || !existsSync(path) || statSync(path).size === 0) return undefined;
  return scratchCopy(path);
}
