import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VenueOrderId } from '../../../src/core/ids.js';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrder } from '../../../src/core/venue.js';
import { MatchingClock } from '../../../src/reconciler/matching-clock.js';
import { VenueTimes } from '../../../src/reconciler/venue-times.js';
import { MemoryJournal } from '../../../src/store/memory.js';

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

describe('VenueTimes', () => {
  const setup = (journal = new MemoryJournal(), clock = new ManualClock(1_000_000)) => {
    const matchingClock = new MatchingClock();
    const times = new VenueTimes({ clock, journal, venueClock: () => ({ offsetMs: 500, errorMs: 10 }), matchingClock, recvWindowMs: 5000 });
    return { journal, clock, matchingClock, times };
  };
  const openOrder = (orderId: VenueOrderId, time: number): VenueOrder => ({ orderId, symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('100'), origQty: d('1'), executedQty: d('0'), status: 'open', venueStatus: 'NEW', time });

  it('uses the time endpoint with 30 s of slack until an order of ours is measured, then the measure with recvWindow for lateness', () => {
    const { clock, matchingClock, times } = setup();
    expect(times.current()).toEqual({ offsetMs: 500, errorMs: 10, slack: { earlyMs: 30_010, lateMs: 30_010 } });
    matchingClock.placed(id(1), 999_000, 999_040);
    times.learn([openOrder(id(1), 1_002_020)], []); // stamped 3000 ms ahead, within [2980, 3020]
    expect(times.current()).toEqual({ offsetMs: 3000, errorMs: 20, slack: { earlyMs: 270, lateMs: 5270 } });
    // A taker trade stamps its order too; a maker trade does not (a resting order trades later).
    matchingClock.placed(id(2), 1_000_000, 1_000_010);
    clock.advance(1000);
    times.learn([], [{ tradeId: '1', symbol: 'BTCUSDT', orderId: id(2), price: d('100'), qty: d('1'), time: 1_003_005, isBuyer: true, isMaker: true, fee: d('0'), feeCoin: 'BTC' }]);
    expect(times.current().errorMs).toBe(20);
    times.learn([], [{ tradeId: '2', symbol: 'BTCUSDT', orderId: id(2), price: d('100'), qty: d('1'), time: 1_003_005, isBuyer: true, isMaker: false, fee: d('0'), feeCoin: 'BTC' }]);
    expect(times.current()).toMatchObject({ offsetMs: 3000, errorMs: 5 }); // [2995, 3005]
  });

  it('keeps the measure in the journal for the next run, which uses it while it is fresh', () => {
    const journal = new MemoryJournal();
    const first = setup(journal);
    first.matchingClock.placed(id(1), 999_000, 999_040);
    first.times.learn([openOrder(id(1), 1_002_020)], []);
    first.times.keep();
    const restarted = setup(journal, new ManualClock(1_030_000));
    expect(restarted.times.current()).toMatchObject({ offsetMs: 3000, errorMs: 20 });
    const late = setup(journal, new ManualClock(1_000_000 + 121_000));
    expect(late.times.current()).toMatchObject({ offsetMs: 500 });
  });
});
