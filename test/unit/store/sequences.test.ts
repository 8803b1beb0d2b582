// SequenceAllocator: client-order sequences from blocks the journal reserves, one commit each.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Journal } from '../../../src/core/ports.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { SEQUENCE_BLOCK, SequenceAllocator } from '../../../src/store/sequences.js';
import { SqliteJournal } from '../../../src/store/sqlite.js';

/** Counts the journal's commits and reservations around a real journal. */
function counting(journal: Pick<Journal, 'nextSequence' | 'transaction'>) {
  const counts = { transactions: 0, reservedOutside: 0, reserved: 0 };
  let depth = 0;
  const wrapped: Pick<Journal, 'nextSequence' | 'transaction'> = {
    nextSequence: (id) => {
      counts.reserved++;
      if (depth === 0) counts.reservedOutside++;
      return journal.nextSequence(id);
    },
    transaction: (fn) => {
      counts.transactions++;
      depth++;
      try {
        return journal.transaction(fn);
      } finally {
        depth--;
      }
    },
  };
  return { wrapped, counts };
}

const take = (a: SequenceAllocator, id: string, n: number) => Array.from({ length: n }, () => a.next(id));
const range = (from: number, n: number) => Array.from({ length: n }, (_, k) => from + k);

describe('SequenceAllocator', () => {
  it('reserves blocks of SEQUENCE_BLOCK', () => {
    expect(SEQUENCE_BLOCK).toBe(16);
  });

  it('hands out consecutive numbers per strategy, one journal commit per block', () => {
    const { wrapped, counts } = counting(new MemoryJournal());
    const a = new SequenceAllocator(wrapped);
    expect(take(a, 'grid', SEQUENCE_BLOCK)).toEqual(range(0, SEQUENCE_BLOCK));
    expect(counts).toEqual({ transactions: 1, reserved: SEQUENCE_BLOCK, reservedOutside: 0 });
    expect(a.next('grid')).toBe(SEQUENCE_BLOCK);
    expect(counts.transactions).toBe(2);
    // Another strategy has its own numbers and its own block.
    expect(take(a, 'mm', 3)).toEqual([0, 1, 2]);
    expect(counts.transactions).toBe(3);
    expect(take(a, 'grid', 2)).toEqual([SEQUENCE_BLOCK + 1, SEQUENCE_BLOCK + 2]);
    expect(counts).toEqual({ transactions: 3, reserved: 3 * SEQUENCE_BLOCK, reservedOutside: 0 });
  });

  it('a block size can be chosen', () => {
    const { wrapped, counts } = counting(new MemoryJournal());
    const a = new SequenceAllocator(wrapped, 4);
    expect(take(a, 's', 9)).toEqual(range(0, 9));
    expect(counts.transactions).toBe(3);
  });

  it('never hands a number out twice across a restart on the same journal: the rest of a block is skipped', () => {
    const journal = new MemoryJournal();
    expect(take(new SequenceAllocator(journal), 's', 3)).toEqual([0, 1, 2]);
    const restarted = new SequenceAllocator(journal);
    expect(take(restarted, 's', 2)).toEqual([SEQUENCE_BLOCK, SEQUENCE_BLOCK + 1]);
    // Anyone else asking the journal gets a number past both blocks.
    expect(journal.nextSequence('s')).toBe(2 * SEQUENCE_BLOCK);
  });

  describe('on a SqliteJournal', () => {
    let dir: string | undefined;
    afterEach(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    });

    it('numbers survive a close and reopen, and the next run starts at the next block', () => {
      dir = mkdtempSync(join(tmpdir(), 'sluice-sequences-'));
      const path = join(dir, 'journal.db');
      const first = SqliteJournal.open(path);
      const { wrapped, counts } = counting(first);
      const run1 = new SequenceAllocator(wrapped);
      const got1 = take(run1, 's', SEQUENCE_BLOCK + 1);
      expect(got1).toEqual(range(0, SEQUENCE_BLOCK + 1));
      expect(counts.transactions).toBe(2);
      first.close();

      const second = SqliteJournal.open(path);
      const got2 = take(new SequenceAllocator(second), 's', 3);
      expect(got2).toEqual(range(2 * SEQUENCE_BLOCK, 3));
      expect(got2.filter((n) => got1.includes(n))).toEqual([]);
      second.close();
    });

    it('starts a new strategy at the journal\'s first sequence for it', () => {
      dir = mkdtempSync(join(tmpdir(), 'sluice-sequences-'));
      const journal = SqliteJournal.open(join(dir, 'journal.db'), { firstSequence: () => 1000 });
      expect(take(new SequenceAllocator(journal), 's', 2)).toEqual([1000, 1001]);
      expect(take(new SequenceAllocator(journal), 's', 1)).toEqual([1000 + SEQUENCE_BLOCK]);
      journal.close();
    });
  });
});
