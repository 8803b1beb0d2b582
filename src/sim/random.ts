// Seeded randomness for the simulator. Each concern draws from its own named stream, so that
// changing a fault rate never shifts the synthetic market, and the same seed replays the same run.

/** A mulberry32 generator: 32-bit state, good enough for simulation, tiny and fast. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed | 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    // The state's 32 bits kept signed (| 0): the same bits as >>> 0 gives (every use below reads
    // them as 32 bits), but a small integer to V8, where an unsigned one above 2^31 is boxed.
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [min, max] (inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p (p >= 1 is always true, p <= 0 never). */
  chance(p: number): boolean {
    const u = this.next();
    return p >= 1 || u < p;
  }

  /** 32 random bits as 8 hex characters. */
  hex8(): string {
    return Math.floor(this.next() * 4294967296)
      .toString(16)
      .padStart(8, '0');
  }
}

/** A stream of its own for (seed, name): FNV-1a of the name mixed with the seed. */
export function stream(seed: number, name: string): Rng {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // Mix in the high bits of large seeds too.
  h = (h ^ Math.floor(seed / 4294967296)) >>> 0;
  return new Rng(h);
}
