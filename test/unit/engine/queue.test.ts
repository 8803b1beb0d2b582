// The pipeline's queue: which entries a dispatch round may take (at most `most` per batcher
// group, and only those whose journal writes are durable), in queue order.
import { describe, expect, it } from 'vitest';
import type { OrderIntent } from '../../../src/core/types.js';
import { headOfGroups, newestMark, type Queued } from '../../../src/engine/queue.js';

const entry = (id: string, group: string, mark: number): Queued => ({ intent: { intentId: id } as OrderIntent, at: 0, group, mark });
const ids = (qs: Queued[]) => qs.map((q) => q.intent.intentId);

describe('headOfGroups', () => {
  const queue = [entry('a1', 'A', 1), entry('b1', 'B', 1), entry('a2', 'A', 2), entry('a3', 'A', 3), entry('b2', 'B', 5), entry('a4', 'A', 2)];

  it('takes at most `most` per group, in queue order; the rest stays in order', () => {
    const { head, tail } = headOfGroups(queue, () => 2, 10);
    expect(ids(head)).toEqual(['a1', 'b1', 'a2', 'b2']);
    expect(ids(tail)).toEqual(['a3', 'a4']);
  });

  it('leaves an entry whose journal mark is not durable yet, and lets a durable one behind it go', () => {
    const { head, tail } = headOfGroups(queue, () => 3, 2);
    expect(ids(head)).toEqual(['a1', 'b1', 'a2', 'a4']);
    expect(ids(tail)).toEqual(['a3', 'b2']);
  });

  it('takes from each group what its own kind has room for, asking once per group', () => {
    const asked: string[] = [];
    const { head, tail } = headOfGroups(queue, (first) => (asked.push(first.intent.intentId), first.group === 'A' ? 3 : 0), 10);
    expect(ids(head)).toEqual(['a1', 'a2', 'a3']);
    expect(ids(tail)).toEqual(['b1', 'b2', 'a4']);
    expect(asked).toEqual(['a1', 'b1']);
  });

  it('takes nothing when no capacity is left', () => {
    expect(headOfGroups(queue, () => 0, 10)).toEqual({ head: [], tail: queue });
  });
});

describe('newestMark', () => {
  it('is the highest mark, 0 for an empty queue', () => {
    expect(newestMark([entry('x', 'A', 3), entry('y', 'A', 7), entry('z', 'B', 5)])).toBe(7);
    expect(newestMark([])).toBe(0);
  });
});
