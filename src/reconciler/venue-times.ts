// Venue times of our orders and trades against our clock, for the poller: measured from our own
// orders where they have been (matching-clock.ts), else the time endpoint's offset with a
// generous slack. The measure is kept in the journal now and then, so a restart settles the
// lost answers of the run that died with it.
import type { Clock } from '../core/clock.js';
import type { Journal } from '../core/ports.js';
import type { VenueOrder, VenueTrade } from '../core/venue.js';
import { ownOrderId } from './fills.js';
import type { ClockEstimate, MatchingClock, Sample } from './matching-clock.js';
import type { Slack } from './unknown.js';

/**
 * Until our own orders have measured the clock the venue stamps them with, how far beyond the
 * time endpoint's error a venue time may sit from ours when deciding whether a venue order or
 * trade can be one of ours awaiting its answer. Generous: the time endpoint may jump while the
 * matching engine does not, and too tight a bound loses a fill.
 */
const UNMEASURED_SLACK_MS = 30_000;
/** Beyond a measured error: the measure is up to two minutes old, and stamps may be rounded. */
const MEASURED_MARGIN_MS = 250;
const JOURNAL_KEY = 'venue:matchingClock';
const SAVE_EVERY_MS = 10_000;

export interface VenueTimesDeps {
  clock: Clock;
  journal: Journal;
  /** The time endpoint's clock minus ours, and how far off that estimate may be (ms). */
  venueClock(): ClockEstimate;
  matchingClock: MatchingClock;
  /** A signed request stays valid this long after its timestamp: the venue may act on one that late. */
  recvWindowMs: number;
}

export class VenueTimes {
  private savedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: VenueTimesDeps) {
    const kept = parseSample(deps.journal.cursor(JOURNAL_KEY));
    if (kept) deps.matchingClock.restore(kept);
  }

  /** The offset to take off a venue time to make it ours, and the slack around it. */
  current(): ClockEstimate & { slack: Slack } {
    const measured = this.deps.matchingClock.estimate(this.deps.clock.now());
    if (measured) {
      const earlyMs = measured.errorMs + MEASURED_MARGIN_MS;
      return { offsetMs: measured.offsetMs, errorMs: measured.errorMs, slack: { earlyMs, lateMs: earlyMs + this.deps.recvWindowMs } };
    }
    const reported = this.deps.venueClock();
    const slackMs = reported.errorMs + UNMEASURED_SLACK_MS;
    return { offsetMs: reported.offsetMs, errorMs: reported.errorMs, slack: { earlyMs: slackMs, lateMs: slackMs } };
  }

  /** Venue stamps of orders we placed: when an open order was taken, and a taker trade (an arriving order trades on arrival). */
  learn(open: readonly VenueOrder[], trades: readonly VenueTrade[]): void {
    const now = this.deps.clock.now();
    for (const o of open) if (o.time !== undefined) this.deps.matchingClock.stamped(o.orderId, o.time, now);
    for (const t of trades) {
      const id = ownOrderId(t);
      if (id && !t.isMaker) this.deps.matchingClock.stamped(id, t.time, now);
    }
  }

  /** Now and then, the measure goes to the journal for the next run. */
  keep(): void {
    const now = this.deps.clock.now();
    if (now - this.savedAt < SAVE_EVERY_MS) return;
    const snapshot = this.deps.matchingClock.snapshot(now);
    if (!snapshot) return;
    this.savedAt = now;
    this.deps.journal.setCursor(JOURNAL_KEY, JSON.stringify(snapshot));
  }
}

/** A kept snapshot, or undefined when there is none or it does not read. */
function parseSample(text: string | undefined): Sample | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as Partial<Sample>;
    return [v.lo, v.hi, v.at].every((n) => typeof n === 'number' && Number.isFinite(n)) && v.lo! <= v.hi! ? (v as Sample) : undefined;
  } catch {
    return undefined;
  }
}
