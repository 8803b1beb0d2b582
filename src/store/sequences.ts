// Client-order sequences, from blocks the journal reserves with one commit each instead of one
// commit per order. A reserved number is never handed out again: a restart skips what was left
// of its block, and within a run a strategy's numbers stay consecutive.
import type { Journal } from '../core/ports.js';

/** Sequences reserved per journal commit. */
export const SEQUENCE_BLOCK = 16;

export class SequenceAllocator {
  /** Reserved numbers not handed out yet, per strategy: [next, end). */
  private readonly blocks = new Map<string, { next: number; end: number }>();

  constructor(
    private readonly journal: Pick<Journal, 'nextSequence' | 'transaction'>,
    private readonly blockSize = SEQUENCE_BLOCK,
  ) {}

  next(strategyId: string): number {
    let block = this.blocks.get(strategyId);
    if (!block || block.next === block.end) {
      const first = this.journal.transaction(() => {
        const n = this.journal.nextSequence(strategyId);
        for (let k = 1; k < this.blockSize; k++) this.journal.nextSequence(strategyId);
        return n;
      });
      block = { next: first, end: first + this.blockSize };
      this.blocks.set(strategyId, block);
    }
    return block.next++;
  }
}
