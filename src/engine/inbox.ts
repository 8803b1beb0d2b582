// One strategy's events (its order updates, fills, market data, and its onStop), delivered one
// at a time and in order, apart from the loop that found them: a handler that takes long holds
// up only its own strategy (the host's deadline bounds it), never the market-data poll, a
// reconcile pass or another strategy. Held until the strategy has started (onLoad, onStart):
// the start-up reconcile finds what happened while the daemon was down before any strategy runs.
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';

/** Events waiting for one strategy: past this, it cannot keep up (or is too long in starting) and is disabled. */
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
  /** False until its strategy has started: what comes before waits. */
  private opened = false;
  private idlers: Array<() => void> = [];

  constructor(
    private readonly strategy: string,
    private readonly log: Log,
    /** Called once the bound is passed (the waiting events are dropped); `opened`: whether the strategy had started. */
    private readonly overflow: (waiting: number, opened: boolean) => void,
  ) {}

  /**
   * Its strategy has started: `first` (the market data polled so far, each taking the place of a
   * waiting event of its feed), then what waited, in order, then each event as it comes.
   * Resolves once what was there has been delivered.
   */
  open(first: ReadonlyArray<{ key: string; run(): Promise<void> }> = []): Promise<void> {
    const keys = new Set(first.map((j) => j.key));
    this.jobs = [...first.map((j) => ({ key: j.key, run: j.run })), ...this.jobs.filter((j) => j.key === undefined || !keys.has(j.key))];
    this.opened = true;
    this.pump();
    return this.idle();
  }

  /** Drops what waits (a strategy that never started, at the stop); returns how many. */
  discard(): number {
    const n = this.jobs.length;
    this.jobs = [];
    return n;
  }

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
      this.overflow(waiting, this.opened);
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

  /** Resolves once nothing runs and nothing waits to run (what waits for the start does not count). */
  idle(): Promise<void> {
    return this.busy ? new Promise((resolve) => this.idlers.push(resolve)) : Promise.resolve();
  }

  private pump(): void {
    if (this.busy || !this.opened) return;
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
