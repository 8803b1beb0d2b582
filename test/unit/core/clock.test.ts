import { describe, expect, it } from 'vitest';
import { ManualClock, seededRandom } from '../../../src/core/clock.js';

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
