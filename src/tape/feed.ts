// A tape's market events in time order, for the backtest driver: pulled one batch (one
// answer's events) at a time, so only a few seconds of a long tape are in memory. The tape's
// recorded incidents come with it, read whole before the run needs them (event-cache.ts says where).
import { eventCount, type RecordedIncident } from '../sim/types.js';
import { openMarketEvents } from './event-cache.js';
import type { Tape } from './format.js';
import { incidentsOf } from './incidents.js';
import { marketEvents, streamMarketEvents, type TapeMarketEvent } from './market.js';
import { openTape } from './reader.js';

export interface FeedSource {
  /** A tape in memory. */
  tape?: Tape;
  /** Or a tape file, streamed. */
  tapePath?: string;
  /** Where the file's decoded events are cached (see event-cache.ts); none when absent. */
  eventCacheDir?: string;
  /** Whether a file not cached yet decodes on a thread of its own; by its size when absent (decode-thread.ts). */
  decodeThread?: boolean;
  /** Whether the run needs the tape's recorded incidents (TapeFeed.incidents). */
  incidents?: boolean;
}

/** `fill()` reads on when the batch is used up; `nextAt()` is Infinity once the tape is done. */
export class TapeFeed {
  private batch: TapeMarketEvent[] = [];
  private i = 0;
  done = false;
  /** Tape events taken so far (a `tradeCells` event counts its trades), and the time of the last one. */
  count = 0;
  lastAt: number | undefined;

  private constructor(
    private readonly source: AsyncGenerator<TapeMarketEvent[]>,
    readonly progress: () => number,
    /** The last event's time, when known before reading (a tape in memory, a cached one). */
    readonly knownEnd: number | undefined,
    /** The tape's recorded incidents, when asked for: a run awaits them before it starts. */
    readonly incidents: Promise<readonly RecordedIncident[]> | undefined,
  ) {}

  /** A feed of `from`; no tape at all gives an empty feed. */
  static async open(from: FeedSource): Promise<TapeFeed> {
    let feed: TapeFeed;
    if (from.tapePath) {
      const incidents = from.incidents ?? false;
      const source = await openMarketEvents(from.tapePath, from.eventCacheDir, from.decodeThread === undefined ? { incidents } : { thread: from.decodeThread, incidents });
      feed = new TapeFeed(source.batches, source.progress, source.lastAt, source.incidents);
    } else {
      const events = from.tape ? marketEvents(from.tape.calls) : [];
      const all = (async function* () {
        yield events;
      })();
      const incidents = from.incidents && from.tape ? Promise.resolve(incidentsOf(from.tape.calls)) : undefined;
      feed = new TapeFeed(all, () => (events.length === 0 ? 1 : feed.count / events.length), events.at(-1)?.at, incidents);
    }
    try {
      await feed.fill();
    } catch (err) {
      await feed.close();
      throw err;
    }
    return feed;
  }

  empty(): boolean {
    return this.i >= this.batch.length && !this.done;
  }

  async fill(): Promise<void> {
    while (this.i >= this.batch.length && !this.done) {
      const next = await this.source.next();
      if (next.done) this.done = true;
      else {
        this.batch = next.value;
        this.i = 0;
      }
    }
  }

  nextAt(): number {
    return this.i < this.batch.length ? this.batch[this.i]!.at : Infinity;
  }

  take(): TapeMarketEvent {
    const e = this.batch[this.i++]!;
    this.count += eventCount(e.event);
    this.lastAt = e.at;
    return e;
  }

  /** Stops reading: a run that fails half-way closes its file and leaves no half-written cache (a pass reading the incidents ends first). */
  async close(): Promise<void> {
    await this.source.return(undefined);
    await this.incidents?.catch(() => undefined);
  }
}

/** The time of a tape file's last market event: a whole pass over the file. */
export async function lastEventAt(path: string): Promise<number | undefined> {
  let last: number | undefined;
  for await (const batch of streamMarketEvents((await openTape(path)).calls)) last = batch[batch.length - 1]!.at;
  return last;
}
