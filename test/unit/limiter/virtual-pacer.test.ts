// VirtualPacer against the rule written out longhand: with instant jobs, job k starts at the
// earliest time that is no earlier than its arrival, the previous start (FIFO), the start whose
// slot it takes plus the span, and outside any pause. Equality, not just "within the limit":
// a pacer that is merely safe but slow would fail here.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { VirtualPacer } from '../../../src/limiter/index.js';

describe('VirtualPacer', () => {
  it('starts every job at the earliest time the window, FIFO order and a pause allow', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 0, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 150 }), { minLength: 1, maxLength: 40 }),
        fc.option(fc.record({ at: fc.integer({ min: 0, max: 2000 }), ms: fc.integer({ min: 1, max: 1000 }) }), { nil: undefined }),
        async (limit, windowMs, margin, gaps, pause) => {
          const span = windowMs + margin;
          const clock = new ManualClock(0);
          const pacer = new VirtualPacer({ limits: { e: limit }, windowMs, safetyMarginMs: margin, maxConcurrent: { e: 1_000 }, clock });
          const arrivals: number[] = [];
          gaps.reduce((t, g) => (arrivals.push(t + g), t + g), 0);
          const starts: number[] = [];
          const jobs: Promise<unknown>[] = [];
          // Half a millisecond off the integer grid, so a pause never ties with an arrival.
          const pauseFrom = pause ? pause.at + 0.5 : Infinity;
          const pauseTo = pause ? pauseFrom + pause.ms : Infinity;
          if (pause) void clock.sleep(pauseFrom).then(() => pacer.pauseEndpoint('e', pause.ms));
          for (const [i, a] of arrivals.entries()) {
            void clock.sleep(a).then(() => jobs.push(pacer.run('e', async () => void (starts[i] = clock.now()))));
          }
          while (await clock.step());
          await Promise.all(jobs);

          const expected: number[] = [];
          for (const [k, a] of arrivals.entries()) {
            let t = Math.max(a, expected[k - 1] ?? -Infinity, (expected[k - limit] ?? -Infinity) + span);
            if (t >= pauseFrom && t < pauseTo) t = pauseTo;
            expected.push(t);
          }
          expect(starts).toEqual(expected);
          await pacer.stop();
        },
      ),
      { numRuns: 150 },
    );
  });
});
