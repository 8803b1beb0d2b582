// Whether the journal takes writes. A disk that fills up, turns read-only or fails an I/O makes
// writes throw; nothing is sent that is not journaled first, so placing stops. The daemon must
// say so (health, an alert) and place again by itself once the disk takes writes again.
//
// A failure ends only when a write of the kind that failed commits: on a nearly full disk a
// small write (a cursor) may still fit in a page already there while every intent fails, and
// health would flap between the two.
import type { JournalWriteFailure } from '../core/ports.js';

export class WriteHealth {
  private failure: (JournalWriteFailure & { op: string }) | undefined;
  /** An fsync that failed stays failed: after one, the kernel may have dropped the pages it did not write. */
  private lost: JournalWriteFailure | undefined;
  /** Kinds of write done in the transaction not yet committed. */
  private readonly written = new Set<string>();
  /** Hears each change: a first failure (its error), and its end (undefined). */
  onChange: ((failure: JournalWriteFailure | undefined) => void) | undefined;

  constructor(private readonly now: () => number) {}

  current(): JournalWriteFailure | undefined {
    const f = this.lost ?? this.failure;
    return f && { since: f.since, message: f.message };
  }

  /** A write of kind `op` went through (committed, or part of the transaction committed next). */
  wrote(op: string): void {
    if (this.failure) this.written.add(op);
  }

  /** A commit went through. */
  committed(): void {
    const ended = this.failure && this.written.has(this.failure.op);
    this.written.clear();
    if (!ended) return;
    this.failure = undefined;
    if (!this.lost) this.onChange?.(undefined);
  }

  /** A write of kind `op` failed; `message` names the journal and what to do. */
  failed(op: string, message: string): void {
    this.written.clear();
    if (this.current()) return;
    this.failure = { since: this.now(), message, op };
    this.onChange?.(this.current());
  }

  /** An fsync failed: no write is durable again until a restart. */
  syncLost(message: string): void {
    const first = !this.current();
    this.lost ??= { since: this.now(), message };
    if (first) this.onChange?.(this.current());
  }
}
