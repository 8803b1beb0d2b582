// VenueClock keeps the offset of the sample with the shortest round trip, and says how far off
// it may be (half that round trip): a ban's end on our clock is padded by that much, and
// whether a candle has closed is judged by venue time at the earliest.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { VenueClock } from '../../../src/executor/index.js';

describe('VenueClock', () => {
  it('takes the shortest round trip; the true offset lies within errorMs of the estimate', async () => {
    const clock = new ManualClock(1_000_000);
    const TRUE_OFFSET = 3000;
    // Each sample: delay to the venue, then back (ms); the venue reads its clock in between.
    const legs: Array<[number, number]> = [[300, 100], [20, 80], [10, 390]];
    let i = 0;
    const venue = new VenueClock(clock, async () => {
      const [there, back] = legs[i++]!;
      await clock.sleep(there);
      const serverTime = clock.now() + TRUE_OFFSET;
      await clock.sleep(back);
      return serverTime;
    });
    expect(venue.errorMs()).toBe(0);
    // Not measured yet: no venue time to go by.
    expect(venue.earliestNow()).toBeUndefined();
    const syncing = venue.sync();
    await clock.advance(10_000);
    const best = await syncing;
    expect(best.roundTripMs).toBe(100);
    // Sent at t, read at t+20, back at t+100: estimate = read - midpoint = 20 - 50 = -30 off.
    expect(venue.offsetMs()).toBe(TRUE_OFFSET - 30);
    expect(venue.errorMs()).toBe(50);
    expect(Math.abs(venue.offsetMs() - TRUE_OFFSET)).toBeLessThanOrEqual(venue.errorMs());
    // Venue time at the earliest: the estimate less its error, never past the venue's own clock.
    expect(venue.earliestNow()).toBe(clock.now() + TRUE_OFFSET - 30 - 50);
    expect(venue.earliestNow()).toBeLessThanOrEqual(clock.now() + TRUE_OFFSET);
  });

  it('callers that meet -1021 together share one re-sync, and settled() waits for it', async () => {
    const clock = new ManualClock(0);
    let calls = 0;
    const venue = new VenueClock(clock, async () => {
      calls++;
      await clock.sleep(10);
      return clock.now() + 5000;
    });
    const order: string[] = [];
    const a = venue.recover().then(() => order.push('a'));
    const b = venue.recover().then(() => order.push('b'));
    const signer = venue.settled().then(() => order.push('signer'));
    await clock.advance(1000);
    await Promise.all([a, b, signer]);
    expect(calls).toBe(3); // one sync of three samples, not two
    expect(order).toEqual(['a', 'b', 'signer']);
    expect(venue.offsetMs()).toBe(5000 + 5); // read 10 ms after sending, 5 ms after the midpoint
    await venue.settled(); // nothing in flight: resolves at once
  });

  it('stop() drops the wait for the next re-sync: a closed client holds nothing open (sluice validate waited out clockSyncIntervalMs, 60 s, before exiting)', async () => {
    const clock = new ManualClock(0);
    let synced = 0;
    const venue = new VenueClock(clock, async () => {
      synced++;
      return clock.now();
    }, 1);
    venue.start(60_000, () => undefined);
    await clock.advance(60_000);
    expect([synced, clock.pending()]).toEqual([1, 1]);
    venue.stop();
    await clock.advance(0);
    expect(clock.pending()).toBe(0);
    await clock.advance(600_000);
    expect(synced).toBe(1);
  });
});
