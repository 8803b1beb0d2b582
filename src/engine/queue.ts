// The pipeline's queue entries, and which of them a dispatch round looks at.
import type { OrderIntent } from '../core/types.js';

/**
 * An intent waiting for capacity; `group` is its batcher group (market, symbol, kind); `mark`
 * the journal's mark once its intent was written (a place may leave once that is durable).
 */
export interface Queued {
  intent: OrderIntent;
  at: number;
  group: string;
  mark: number;
}

/**
 * The first `most(entry)` of each group whose journal writes are durable (mark up to `durable`),
 * in queue order, and the rest. `most` is asked once per group, with the group's first entry.
 */
export function headOfGroups(queue: readonly Queued[], most: (first: Queued) => number, durable: number): { head: Queued[]; tail: Queued[] } {
  const room = new Map<string, number>();
  const head: Queued[] = [];
  const tail: Queued[] = [];
  for (const q of queue) {
    const left = room.get(q.group) ?? most(q);
    if (left > 0 && q.mark <= durable) {
      room.set(q.group, left - 1);
      head.push(q);
    } else {
      room.set(q.group, left);
      tail.push(q);
    }
  }
  return { head, tail };
}

/** The newest journal mark among the entries: once it is durable, every one of them may leave. */
export function newestMark(queue: readonly Queued[]): number {
  let newest = 0;
  for (const q of queue) if (q.mark > newest) newest = q.mark;
  return newest;
}
