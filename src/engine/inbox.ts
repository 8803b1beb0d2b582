// One strategy's events (its order updates, fills, market data, and its onStop), delivered one
// at a time and in order, apart from the loop that found them: a handler that takes long holds
// up only its own strategy (the host's deadline bounds it), never the market-data poll, a
// reconcile pass or another strategy. Held until the strategy has started (onLoad, onStart):
// the start-up reconcile finds what happened while the daemon was down before any strategy runs.
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { MarketEvent } from '../strategy/api.js';
import { joinEvents } from './market-data.js';

/** Events waiting for one strategy: past this, it cannot keep up (or is too long in starting) and is disabled. */
export const MAX_WAITING_EVENTS = 10_000;

/** A market-data event for a strategy: its feed's key, the event, and how to hand it on. */
export interface FeedEvent {
  key: string;
  event: MarketEvent;
  deliver(event: MarketEvent): Promise<void>;
}

interface Job {
  /** A market-data feed: a newer event of it joins the one still waiting (joinEvents). */
  key: string | undefined;
  run(): Promise<void>;
  /** Never dropped at the bound (the stop's onStop, which the stop waits for). */
  keep?: boolean;
  /** A market-data job's event, as joined so far. */
  feed?: FeedEvent;
}

/** A job handing on `feed.event` as it is when the job runs (later events of the feed join it until then). */
function feedJob(feed: FeedEvent): Job {
  const job: Job = { key: feed.key, feed, run: () => job.feed!.deliver(job.feed!.event) };
  return job;
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
   * Its strategy has started: `first` (the latest event of each of its feeds, each in the place
   * of a waiting one of its feed), then what waited, in order, then each event as it comes. A
   * waiting trades event stays instead: posted since the start began, it holds the latest
   * poll's new trades and every one's before it since then. Resolves once what was there has
   * been delivered.
   */
  open(first: readonly FeedEvent[] = []): Promise<void> {
    const keys = new Set(first.map((f) => f.key));
    const waiting = new Map(this.jobs.filter((j) => j.key !== undefined && keys.has(j.key)).map((j) => [j.key!, j]));
    const firstJob = (f: FeedEvent): Job => {
      const job = waiting.get(f.key);
      return job?.feed?.event.kind === 'trades' ? job : feedJob(f);
    };
    this.jobs = [...first.map(firstJob), ...this.jobs.filter((j) => j.key === undefined || !keys.has(j.key))];
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

  /** Queues `run`, an event that is no market data (an order update, a fill): each is kept. */
  post(run: () => Promise<void>): void {
    this.push({ key: undefined, run });
  }

  /**
   * Queues a market-data event; with one of its feed still waiting, joins it there instead
   * (joinEvents): a strategy that is behind hears the latest price, not every poll, and every
   * trade since the event it heard last.
   */
  postFeed(feed: FeedEvent): void {
    const waiting = this.jobs.find((j) => j.key === feed.key);
    if (waiting?.feed) {
      waiting.feed = { key: feed.key, event: joinEvents(waiting.feed.event, feed.event), deliver: feed.deliver };
      return;
    }
    this.push(feedJob(feed));
  }

  private push(job: Job): void {
    if (this.jobs.length >= MAX_WAITING_EVENTS) {
      const waiting = this.jobs.length;
      this.jobs = this.jobs.filter((j) => j.keep);
      this.overflow(waiting, this.opened);
      return;
    }
    this.jobs.push(job);
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
