// The engine's periodic runs (strategy ticks, market data, reconcile passes, summaries): each
// runs, then sleeps its period, until stopped; a run that throws is logged and the loop goes on.
import type { Log } from '../core/log.js';
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';

/** How long stop() waits for the runs in progress. */
const STOP_WAITS_FOR_RUNS_MS = 10_000;

export class Loops {
  private running = false;
  private hurried = false;
  /** Runs in progress (a tick, a reconcile pass): stop() lets them end first. */
  private readonly working = new Set<Promise<void>>();

  constructor(
    private readonly clock: Clock,
    private readonly log: Log,
  ) {}

  start(): void {
    this.running = true;
  }

  /** Runs `fn` now and every `periodMs` after it ends, until stop(); `later` skips the first run. */
  every(periodMs: number, fn: () => Promise<void>, later = false): void {
    void (async () => {
      if (later) await this.clock.sleep(periodMs);
      while (this.running) {
        const work = fn().catch((err: unknown) => this.log.error({ err: errorText(err) }, 'engine loop failed; continuing'));
        this.working.add(work);
        await work;
        this.working.delete(work);
        if (!this.running) break;
        await this.clock.sleep(periodMs);
      }
    })();
  }

  /**
   * No new runs; waits for those in progress. Bounded: a run stuck behind a ban must not hold
   * the stop. Short sleeps, so no long timer outlives the wait.
   */
  async stop(): Promise<void> {
    this.running = false;
    for (let waited = 0; this.working.size > 0 && waited < STOP_WAITS_FOR_RUNS_MS && !this.hurried; waited += 100) {
      await Promise.race([Promise.all(this.working), this.clock.sleep(100)]);
    }
  }

  /** stop() waits no more (a second signal): within 100 ms, it leaves the runs in progress to end on their own. */
  hurry(): void {
    this.hurried = true;
  }
}
