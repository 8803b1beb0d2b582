// Venue ids: 18-19 digit decimal strings from seeded counters (they exceed 2^53, as live ids do).
import type { Rng } from './random.js';

export class IdSource {
  private current: bigint;
  /** Gaps of skipped ids not yet added to `current`. */
  private skipped = 0;

  constructor(
    base: bigint,
    private readonly rng: Rng,
  ) {
    this.current = base + BigInt(rng.int(0, 999_999)) * 1000n;
  }

  /** The next id; gaps of 1-4 between ids, as a busy venue shows. */
  next(): string {
    this.current += BigInt(this.skipped + this.rng.int(1, 4));
    this.skipped = 0;
    return this.current.toString();
  }

  /** Uses up an id nobody will read: the same draw as next(), without the BigInt work (a tape's trades take one each). */
  skip(): void {
    this.skipped += this.rng.int(1, 4);
  }
}

export const ORDER_ID_BASE = 150_695_552_109_000_000n;
export const TRADE_ID_BASE = 165_964_665_990_000_000n;
