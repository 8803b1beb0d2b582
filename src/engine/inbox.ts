// One strategy's events (its order updates, fills, market data, and its onStop), delivered one
// at a time and in order, apart from the loop that found them: a handler that takes long holds
// up only its own strategy (the host's deadline bounds it), never the market-data poll, a
// reconcile pass or another strategy.
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';

/** Events waiting for one strategy: past this, it cannot keep up (or waited too long to start) and is disabled. */
export const MAX_WAITING_EVENTS = 10_000;

interface Job {
  /** A market-data feed: a newer event of it takes the place of one still waiting. */
  key: string | undefined;
  run(): Promise<void>;
  /** Never dropped at the bound (the stop's onStop, which the stop waits for). */
  keep?: boolean;
}

export class Inbox {
  private jobs: Job[] = [];
  private busy = false;
  private idlers: Array<() => void> = [];

  constructor(
    private readonly strategy: string,
    private readonly log: Log,
    /** Called once the bound is passed (the waiting events are dropped). */
    private readonly overflow: (waiting: number) => void,
  ) {}

  /** Queues `run`; with a `key`, in the place of a waiting job of that key: a strategy that is behind hears the latest market data, not every poll. */
  post(run: () => Promise<void>, key?: string): void {
    if (key !== undefined) {
      const i = this.jobs.findIndex((j) => j.key === key);
      if (i >= 0) {
        this.jobs[i] = { key, run };
        return;
      }
    }
    if (this.jobs.length >= MAX_WAITING_EVENTS) {
      const waiting = this.jobs.length;
      this.jobs = this.jobs.filter((j) => j.keep);
      this.overflow(waiting);
      return;
    }
    this.jobs.push({ key, run });
    this.pump();
  }

  /** Runs `fn` after what waits now, in turn; resolves once it has. */
  run(fn: () => Promise<void>): Promise<void> {
    return new Promise((resolve) => {
      this.jobs.push({ key: undefined, keep: true, run: () => fn().finally(resolve) });
      this.pump();
    });
  }

  /** Resolves once nothing waits and nothing runs. */
  idle(): Promise<void> {
    return this.busy ? new Promise((resolve) => this.idlers.push(resolve)) : Promise.resolve();
  }

  private pump(): void {
    if (this.busy) return;
    this.busy = true;
    void (async () => {
      for (let job = this.jobs.shift(); job; job = this.jobs.shift()) {
        try {
          await job.run();
        } catch (err) {
          this.log.error({ strategy: this.strategy, err: errorText(err) }, 'delivering an event to a strategy failed; its next events go on');
        }
      }
      this.busy = false;
      for (const resolve of this.idlers.splice(0)) resolve();
    })();
  }
}
