// The one runtime import of better-sqlite3. SQLite reads `file:` URIs only when told so before the
// driver loads (the build says SQLITE_USE_URI=0; the driver reads this variable once, at its
// first connection): openReadOnly needs `?immutable=1`, the only way to read a WAL journal with
// no daemon beside it without creating -wal and -shm files or copying it into memory.
process.env['SQLITE_USE_URI'] = '1';

export { default as Database } from 'better-sqlite3';
