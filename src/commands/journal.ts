// `sluice journal prune`: the journal trimmed to what future decisions need (app/prune.ts), with
// the daemon stopped. Exit 0 done, 1 refused (a daemon runs, no checkpoint yet, a config problem).
import { systemClock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { loadConfig } from '../config/index.js';
import { pruneJournal } from '../app/prune.js';

export interface PruneCommandOptions {
  keepDays: number;
  vacuum: boolean;
  /** Tests: the clock and where lines go. */
  now?: number;
  out?: (line: string) => void;
  keepLatest?: number;
}

export async function journalPruneCommand(configPath: string, opts: PruneCommandOptions): Promise<number> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  let path: string;
  try {
    path = (await loadConfig(configPath)).config.journal.path;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    out(err.message);
    return 1;
  }
  return pruneJournal(path, { keepDays: opts.keepDays, vacuum: opts.vacuum, now: opts.now ?? systemClock.now(), keepLatest: opts.keepLatest, out });
}
