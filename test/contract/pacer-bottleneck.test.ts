import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/core/clock.js';
import { BottleneckPacer } from '../../src/limiter/index.js';
import { pacerContract, SAFETY_MARGIN_MS, WINDOW_MS } from './pacer.contract.js';

// Real time, small windows: the test waits on the jobs' own promises, never on sleeps.
pacerContract('BottleneckPacer in real time', ({ limits, maxConcurrent }) => ({
  pacer: new BottleneckPacer({ limits, maxConcurrent, windowMs: WINDOW_MS, safetyMarginMs: SAFETY_MARGIN_MS, clock: systemClock }),
  clock: systemClock,
  settle: (done) => done,
}));

/** A manual clock that tells the test when someone starts sleeping (an event, not a poll). */
class WatchedClock extends ManualClock {
  private onSleep: (() => void) | undefined;
  nextSleep(): Promise<void> {
    return new Promise((resolve) => (this.onSleep = resolve));
  }
  override sleep(ms: number): Promise<void> {
    const slept = super.sleep(ms);
    const notify = this.onSleep;
    this.onSleep = undefined;
    notify?.();
    return slept;
  }
}

describe('BottleneckPacer specifics', () => {
  it('jobs handed a slot that then meet a pause start only when it ends, still in order', async () => {
    // Slots come back on the manual clock while Bottleneck's own loop runs on real timers, so
    // a pause can land between handing a slot to a queued job and Bottleneck starting it.
    const clock = new WatchedClock(0);
    const span = WINDOW_MS + SAFETY_MARGIN_MS;
    const pacer = new BottleneckPacer({ limits: { a: 2 }, windowMs: WINDOW_MS, safetyMarginMs: SAFETY_MARGIN_MS, clock });
    const starts: { i: number; at: number }[] = [];
    const jobs = [0, 1, 2, 3].map((i) => pacer.run('a', async () => starts.push({ i, at: clock.now() })));
    await Promise.all(jobs.slice(0, 2));
    await clock.advance(span); // both slots come back and are handed to jobs 2 and 3
    expect(pacer.usage().a).toEqual({ inWindow: 0, limit: 2, queued: 2 });
    const held = clock.nextSleep();
    pacer.pauseEndpoint('a', 500);
    await held; // the first handed job met the pause and set its wake-up
    expect(starts).toHaveLength(2);
    await clock.advance(499);
    expect(starts).toHaveLength(2);
    await clock.advance(1);
    await Promise.all(jobs);
    expect(starts).toEqual([
      { i: 0, at: 0 },
      { i: 1, at: 0 },
      { i: 2, at: span + 500 },
      { i: 3, at: span + 500 },
    ]);
    await pacer.stop();
  });

  it('a slot comes back a span after the job settles (the answer), however long the request took', async () => {
    const clock = new ManualClock(0);
    const span = WINDOW_MS + SAFETY_MARGIN_MS;
    const pacer = new BottleneckPacer({ limits: { a: 1 }, windowMs: WINDOW_MS, safetyMarginMs: SAFETY_MARGIN_MS, clock });
    let answer!: () => void;
    const slow = pacer.run('a', () => new Promise<void>((resolve) => (answer = resolve)));
    let nextStartedAt: number | undefined;
    const next = pacer.run('a', async () => void (nextStartedAt = clock.now()));
    await clock.advance(3 * span); // the request is still in flight: its slot stays taken
    expect(nextStartedAt).toBeUndefined();
    answer();
    await slow;
    const answeredAt = clock.now();
    await clock.advance(span - 1);
    expect(nextStartedAt).toBeUndefined();
    await clock.advance(1);
    await next;
    expect(nextStartedAt).toBe(answeredAt + span);
    await pacer.stop();
  });

  it('stop() drops the timers of slots coming back and of pauses: a stopped pacer holds no process open', async () => {
    const clock = new ManualClock(0);
    const pacer = new BottleneckPacer({ limits: { a: 2, b: 2 }, windowMs: WINDOW_MS, safetyMarginMs: SAFETY_MARGIN_MS, clock });
    await pacer.run('a', async () => undefined);
    pacer.pauseEndpoint('b', 60_000);
    const held = pacer.run('b', async () => undefined).catch((err: unknown) => err);
    await clock.advance(0);
    expect(clock.pending()).toBe(2); // a's slot coming back, b's pause ending
    await pacer.stop();
    await held;
    expect(clock.pending()).toBe(0);
  });

  it('refuses limits and options that make no sense', () => {
    expect(() => new BottleneckPacer({ limits: { a: 0 } })).toThrow(/limit for endpoint "a"/);
    expect(() => new BottleneckPacer({ limits: { a: 1.5 } })).toThrow(/limit for endpoint "a"/);
    expect(() => new BottleneckPacer({ limits: { a: 1 }, maxConcurrent: { a: 0 } })).toThrow(/maxConcurrent for endpoint "a"/);
    expect(() => new BottleneckPacer({ limits: { a: 1 }, windowMs: 0 })).toThrow(/windowMs/);
    expect(() => new BottleneckPacer({ limits: { a: 1 }, safetyMarginMs: -1 })).toThrow(/safetyMarginMs/);
  });
});
