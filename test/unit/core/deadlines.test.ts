import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { CUT, Deadlines, LATE } from '../../../src/core/deadlines.js';

const never = new Promise<never>(() => undefined);

describe('Deadlines', () => {
  it('gives the outcome of work that ends in time, and LATE at the deadline for work that does not', async () => {
    const clock = new ManualClock(0);
    const deadlines = new Deadlines(clock);
    const outcomes: unknown[] = [];
    void deadlines.within(100, Promise.resolve('quick')).then((o) => outcomes.push(o));
    void deadlines.within(100, never).then((o) => outcomes.push(o === LATE ? `late@${clock.now()}` : o));
    await clock.advance(99);
    expect(outcomes).toEqual(['quick']);
    await clock.advance(1);
    expect(outcomes).toEqual(['quick', 'late@100']);
    await expect(deadlines.within(100, Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });

  it('keeps one sleeper for any number of waits, each ended at its own deadline', async () => {
    const clock = new ManualClock(0);
    const deadlines = new Deadlines(clock);
    const late: number[] = [];
    for (let i = 0; i < 50; i++) {
      void deadlines.within(100, i % 2 === 0 ? Promise.resolve() : never).then((o) => o === LATE && late.push(clock.now()));
      await clock.advance(10);
      expect(clock.pending()).toBeLessThanOrEqual(1);
    }
    await clock.advance(100);
    expect(late).toEqual(Array.from({ length: 25 }, (_, k) => 110 + 20 * k));
    expect(clock.pending()).toBe(0);
  });

  it('hurry() ends every wait now (CUT), and later waits get no time beyond the current turn', async () => {
    const clock = new ManualClock(0);
    const deadlines = new Deadlines(clock);
    const outcomes: unknown[] = [];
    void deadlines.within(60_000, never).then((o) => outcomes.push(o));
    await clock.advance(1);
    deadlines.hurry();
    await clock.advance(0);
    expect(outcomes).toEqual([CUT]);
    void deadlines.within(60_000, Promise.resolve('at once')).then((o) => outcomes.push(o));
    void deadlines.within(60_000, never).then((o) => outcomes.push(o));
    await clock.advance(0);
    expect(outcomes).toEqual([CUT, 'at once', CUT]);
    expect(clock.now()).toBe(1);
  });
});
