// The journal's commits made durable off the event loop. SQLite runs in WAL mode with
// synchronous=NORMAL: a commit is written to the -wal file, which the OS then holds (a kill -9
// loses nothing), but not fsynced, so the event loop never waits on the disk. This fsyncs that
// file on libuv's thread pool, and whoever needs a commit to survive power loss (the pipeline,
// before an order leaves) awaits it: one fsync covers every commit made before it started, so
// commits in a burst share one (group commit).
//
// fsync through our own descriptor flushes the file, whoever wrote it (Linux and macOS). SQLite
// keeps the -wal file while a connection is open (after a checkpoint it writes it again from the
// start), and this descriptor is closed before the connection.
import { closeSync, fsync, openSync } from 'node:fs';
import { JournalError } from '../core/errors.js';

interface Waiter {
  mark: number;
  resolve(): void;
  reject(err: Error): void;
}

export class WalSync {
  /** Commits so far. */
  private committed = 0;
  /** Commits covered by a finished fsync. */
  private synced = 0;
  private syncing = false;
  private waiters: Waiter[] = [];
  private fd: number | undefined;
  private failure: Error | undefined;
  private closed = false;
  /** fsyncs finished: for tests and benchmarks (one covers many commits). */
  fsyncs = 0;

  constructor(
    private readonly walPath: string,
    /** Hears the failure that ends all syncing. */
    private readonly onFail?: (failure: Error) => void,
  ) {}

  /** A commit happened; returns the mark that names every commit so far. */
  commit(): number {
    return ++this.committed;
  }

  /** The mark of every commit so far. */
  mark(): number {
    return this.committed;
  }

  /** The newest mark that survives power loss. */
  durableMark(): number {
    return this.synced;
  }

  /** Resolves once every commit up to `mark` survives power loss; at once if it already does. */
  durable(mark: number): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (mark <= this.synced) return Promise.resolve();
    if (this.closed) return Promise.reject(new JournalError(`journal ${this.walPath} is closed: nothing more is synced`));
    return new Promise((resolve, reject) => {
      this.waiters.push({ mark, resolve, reject });
      this.kick();
    });
  }

  /** Closes the descriptor (before SQLite closes, which may delete the file); after an fsync in flight, if one is. */
  close(): void {
    this.closed = true;
    if (!this.syncing) this.release();
  }

  private release(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    const closed = new JournalError(`journal ${this.walPath} was closed before its last commits were synced: the orders waiting on them were not sent`);
    for (const w of this.waiters.splice(0)) w.reject(closed);
  }

  private kick(): void {
    if (this.syncing || this.waiters.length === 0) return;
    this.syncing = true;
    const upTo = this.committed;
    let fd: number;
    try {
      fd = this.fd ??= openSync(this.walPath, 'r');
    } catch (err) {
      return this.fail(err);
    }
    fsync(fd, (err) => {
      this.syncing = false;
      if (err) return this.closed ? this.release() : this.fail(err);
      this.fsyncs++;
      this.synced = Math.max(this.synced, upTo);
      const waiting = this.waiters;
      this.waiters = [];
      for (const w of waiting) (w.mark <= upTo ? w.resolve() : this.waiters.push(w));
      if (this.closed) this.release();
      else this.kick();
    });
  }

  /** The disk refused: nothing may be taken as durable any more, so nothing waiting may be sent. */
  private fail(err: unknown): void {
    this.syncing = false;
    this.failure = new JournalError(`journal ${this.walPath} could not be synced to disk (${(err as Error).message}): orders stay unsent; check the disk`, { cause: err });
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
    this.onFail?.(this.failure);
  }
}
