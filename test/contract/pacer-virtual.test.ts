import { flushMicrotasks, ManualClock } from '../../src/core/clock.js';
import { VirtualPacer } from '../../src/limiter/index.js';
import { pacerContract, SAFETY_MARGIN_MS, WINDOW_MS } from './pacer.contract.js';

// Virtual time: the test steps a manual clock from sleeper to sleeper; nothing waits for real.
pacerContract('VirtualPacer on a manual clock', ({ limits, maxConcurrent }) => {
  const clock = new ManualClock(1_000_000);
  const pacer = new VirtualPacer({ limits, maxConcurrent, windowMs: WINDOW_MS, safetyMarginMs: SAFETY_MARGIN_MS, clock });
  return {
    pacer,
    clock,
    async settle(done) {
      let finished = false;
      const watched = done.finally(() => (finished = true));
      watched.catch(() => undefined);
      // Check before every step: stepping past the moment `done` settled would run later jobs early.
      for (;;) {
        await flushMicrotasks();
        if (finished || !(await clock.step())) break;
      }
      return watched;
    },
  };
});
