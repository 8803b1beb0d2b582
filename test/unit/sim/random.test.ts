// The simulator's seeded streams are mulberry32: the same seed gives the same draws forever
// (a report's bytes depend on them), whatever form the state is kept in.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/sim/random.js';

/** mulberry32 as published, the state unsigned. */
function reference(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('Rng', () => {
  it('draws what mulberry32 draws, for any seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 32), max: 2 ** 32 }), (seed) => {
        const rng = new Rng(seed);
        const want = reference(seed);
        for (let i = 0; i < 200; i++) expect(rng.next()).toBe(want());
      }),
      { numRuns: 500 },
    );
  });
});
