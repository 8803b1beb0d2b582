import { describe, expect, it } from 'vitest';
import { ManualClock, seededRandom, systemClock } from '../../../src/core/clock.js';

describe('ManualClock', () => {
  it('wakes sleepers in time order, ties in the order they slept, only when advanced', async () => {
    const clock = new ManualClock(1000);
    const woke: string[] = [];
    void clock.sleep(50).then(() => woke.push(`a@${clock.now()}`));
    void clock.sleep(10).then(() => woke.push(`b@${clock.now()}`));
    void clock.sleep(50).then(() => woke.push(`c@${clock.now()}`));
    await clock.advance(9);
    expect(woke).toEqual([]);
    await clock.advance(41);
    expect(woke).toEqual(['b@1010', 'a@1050', 'c@1050']);
    expect(clock.now()).toBe(1050);
    expect(clock.pending()).toBe(0);
  });

  it('step jumps to the next sleeper, and sleepers that sleep again are woken in the same advance', async () => {
    const clock = new ManualClock(0);
    const ticks: number[] = [];
    void (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(100);
        ticks.push(clock.now());
      }
    })();
    expect(await clock.step()).toBe(true);
    expect(ticks).toEqual([100]);
    await clock.advance(250);
    expect(ticks).toEqual([100, 200, 300]);
    expect(await clock.step()).toBe(false);
  });
});

describe('a sleep whose signal aborts', () => {
  it('wakes at once and leaves no timer behind, on either clock', async () => {
    const manual = new ManualClock(0);
    const stop = new AbortController();
    let woke = false;
    const sleeping = manual.sleep(60_000, stop.signal).then(() => (woke = true));
    void manual.sleep(10);
    expect(manual.pending()).toBe(2);
    stop.abort();
    await sleeping;
    expect([woke, manual.pending(), manual.nextWake(), manual.now()]).toEqual([true, 1, 10, 0]);
    await manual.sleep(5, stop.signal);
    expect(manual.pending()).toBe(1);

    // The system clock's timer is cleared, so it holds no process open.
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const system = new AbortController();
    const long = systemClock.sleep(3_600_000, system.signal);
    expect(timers()).toBe(before + 1);
    system.abort();
    await long;
    expect(timers()).toBe(before);
  });
});

describe('seededRandom', () => {
  it('repeats for a seed and stays in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs).size).toBeGreaterThan(990);
  });
});
