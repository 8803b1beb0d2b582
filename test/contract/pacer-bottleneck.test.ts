import { systemClock } from '../../src/core/clock.js';
import { BottleneckPacer } from '../../src/limiter/index.js';
import { pacerContract, WINDOW_MS } from './pacer.contract.js';

// Real time, small windows: the test waits on the jobs' own promises, never on sleeps.
pacerContract('BottleneckPacer in real time', (limits) => ({
  pacer: new BottleneckPacer({ limits, windowMs: WINDOW_MS, safetyMarginMs: 10, clock: systemClock }),
  clock: systemClock,
  settle: (done) => done,
}));
