import { ManualClock } from '../../src/core/clock.js';
import { VirtualPacer } from '../../src/limiter/index.js';
import { pacerContract, WINDOW_MS } from './pacer.contract.js';

pacerContract('VirtualPacer on a manual clock', (limits) => {
  const clock = new ManualClock(1_000_000);
  const pacer = new VirtualPacer({ limits, windowMs: WINDOW_MS, safetyMarginMs: 0, clock });
  return {
    pacer,
    clock,
    async settle(done) {
      let finished = false;
      const watched = done.finally(() => (finished = true));
      watched.catch(() => undefined);
      while (!finished && (await clock.step()));
      return watched;
    },
  };
});
