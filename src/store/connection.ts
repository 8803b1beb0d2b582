// How the journal's connection is set up (store/sqlite.ts says why each setting), and its
// schema brought to this sluice's.
import type { Database } from './driver.js';
import { JournalError } from '../core/errors.js';
import { APPLICATION_ID, BUSY_TIMEOUT_MS } from './inspect.js';
import { corrupt, tooNew } from './sqlite-errors.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

export function configure(db: Database.Database, path: string, readOnly: boolean): void {
  if (readOnly) {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== SCHEMA_VERSION) {
      throw new JournalError(
        `journal ${path} is at schema ${version} and this sluice reads schema ${SCHEMA_VERSION}; it is not changed here: the daemon of this version migrates it at its next start (stop the old daemon first)`,
      );
    }
  } else {
    // Durability over speed (store/sqlite.ts).
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new JournalError(`journal ${path} cannot use WAL mode (got ${String(mode)}): put it on a local filesystem`);
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('cache_size = -2000'); // SQLite's own 2 MB page cache, not better-sqlite3's 16: writes append, reads are recent
  // Catch a damaged page as soon as it is read rather than acting on it.
  db.pragma('cell_size_check = ON');
  db.pragma('trusted_schema = OFF');
  // Undo copies of a savepoint or statement (the statement journal; in a temporary file, when
  // every write took a savepoint, 22 of an intent's 58 µs): never read after a crash.
  db.pragma('temp_store = MEMORY');
}

/** Runs the migrations the file lacks, one transaction each; returns the schema it was at, undefined when it was at this sluice's. */
export function migrate(db: Database.Database, path: string): number | undefined {
  let from: number | undefined;
  const step = db.transaction(() => {
    // Read again inside the write lock: another process may have migrated since refuseUnusable().
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw tooNew(path, version);
    if (version === SCHEMA_VERSION) return false;
    from ??= version;
    const sql = MIGRATIONS[version]!;
    if (version === 0) db.pragma(`application_id = ${APPLICATION_ID}`);
    db.exec(sql);
    db.pragma(`user_version = ${version + 1}`);
    return true;
  });
  while (step.immediate()) {
    /* one migration per transaction */
  }
  const violations = db.pragma('foreign_key_check') as unknown[];
  if (violations.length > 0) throw corrupt(path, `${violations.length} foreign key violations`);
  return from;
}
