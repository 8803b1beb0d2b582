import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VenueOrderId } from '../../../src/core/ids.js';
import { MatchingClock } from '../../../src/reconciler/matching-clock.js';

const id = (n: number) => String(1_000_000_000_000n + BigInt(n)) as VenueOrderId;

describe('MatchingClock', () => {
  it('knows nothing until an acknowledged order is stamped', () => {
    const c = new MatchingClock();
    expect(c.estimate(0)).toBeUndefined();
    c.placed(id(1), 1000, 1040);
    expect(c.estimate(1100)).toBeUndefined();
    c.stamped(id(2), 5000, 1100); // not one we placed
    expect(c.estimate(1100)).toBeUndefined();
  });

  it('bounds the offset by the send-to-answer window of each order, and narrows as windows intersect', () => {
    const c = new MatchingClock();
    // The venue's stamps run 3000 ms ahead of our clock.
    c.placed(id(1), 1000, 1040);
    c.stamped(id(1), 4010, 1200);
    expect(c.estimate(1200)).toEqual({ offsetMs: 2990, errorMs: 20 }); // within [2970, 3010]
    c.placed(id(2), 2000, 2100);
    c.stamped(id(2), 5004, 2200); // within [2904, 3004]
    expect(c.estimate(2200)).toEqual({ offsetMs: 2987, errorMs: 17 }); // [2970, 3004]
  });

  it('uses each stamp once, and forgets samples older than two minutes', () => {
    const c = new MatchingClock();
    c.placed(id(1), 1000, 1040);
    c.stamped(id(1), 4010, 1200);
    c.stamped(id(1), 9999, 1300); // read again: no second sample
    expect(c.estimate(1300)).toEqual({ offsetMs: 2990, errorMs: 20 });
    expect(c.estimate(1200 + 120_001)).toBeUndefined();
  });

  it('falls back to the hull of recent windows when they disagree (the venue clock moved)', () => {
    const c = new MatchingClock();
    c.placed(id(1), 1000, 1040);
    c.stamped(id(1), 4010, 1100); // [2970, 3010]
    c.placed(id(2), 2000, 2040);
    c.stamped(id(2), 7010, 2100); // [4970, 5010]: the clock jumped 2 s
    expect(c.estimate(2100)).toEqual({ offsetMs: 3990, errorMs: 1020 }); // [2970, 5010]
  });

  it('never excludes the true offset of any recent sample (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -10_000, max: 10_000 }),
        fc.array(fc.record({ sentAt: fc.integer({ min: 0, max: 60_000 }), latency: fc.integer({ min: 0, max: 500 }), at: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 1, maxLength: 50 }),
        (offset, orders) => {
          const c = new MatchingClock();
          orders.forEach((o, k) => {
            c.placed(id(k), o.sentAt, o.sentAt + o.latency);
            c.stamped(id(k), Math.round(o.sentAt + o.at * o.latency) + offset, 61_000);
          });
          const e = c.estimate(61_000)!;
          expect(Math.abs(e.offsetMs - offset)).toBeLessThanOrEqual(e.errorMs + 0.5);
        },
      ),
    );
  });
});
