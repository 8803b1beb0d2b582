// The simulator's seeded streams are mulberry32: the same seed gives the same draws forever
// (a report's bytes depend on them), whatever form the state is kept in.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/core/clock.js';
import { Rng } from '../../../src/sim/random.js';

/** mulberry32 as published, the state kept unsigned: core/clock's seededRandom. */
const reference = seededRandom;

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
