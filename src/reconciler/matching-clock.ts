// The clock the venue stamps our orders and trades with, measured against ours from our own
// orders. The time endpoint's offset is not enough: a venue's matching engine need not follow
// the clock it reports (a jump of the reported clock leaves order times alone), and matching a
// lost answer by time needs a tight bound, for a loose one lets an older identical order's
// trade take the place of the lost one's (and that one's own fill is then lost).
//
// An order the venue acknowledged was stamped between our sending it and its answer; the stamp,
// read later (an open order's time, a taker trade's time: an arriving order trades on arrival),
// puts the offset between the two clocks within that window. Recent windows intersect to a few
// ms. Where they disagree (the venue's clock moved, or a stamp was not the placement's), their
// hull is used: wider, never wrong on any of them.
import type { VenueOrderId } from '../core/ids.js';

/** Venue time of our orders minus our time, and how far off that may be. */
export interface ClockEstimate {
  offsetMs: number;
  errorMs: number;
}

export interface Sample {
  /** The offset lies within [lo, hi]. */
  lo: number;
  hi: number;
  /** When it was taken (our clock). */
  at: number;
}

/** Acknowledged orders whose stamp is awaited; beyond this the oldest are forgotten. */
const WINDOWS_KEPT = 4096;
/** Samples used for the estimate: the newest this many, taken within FRESH_MS. */
const SAMPLES_USED = 32;
const FRESH_MS = 120_000;

export class MatchingClock {
  private readonly windows = new Map<string, { from: number; to: number }>();
  private samples: Sample[] = [];

  /** The venue took order `venueOrderId` after `from` and before `to` (our clock: sent, answered). */
  placed(venueOrderId: VenueOrderId, from: number, to: number): void {
    if (this.windows.size >= WINDOWS_KEPT) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(venueOrderId, { from, to });
  }

  /** The venue says it took order `venueOrderId` at `venueTime` (its clock); read at `now`. */
  stamped(venueOrderId: VenueOrderId, venueTime: number, now: number): void {
    const w = this.windows.get(venueOrderId);
    if (!w) return;
    this.windows.delete(venueOrderId);
    this.samples.push({ lo: venueTime - w.to, hi: venueTime - w.from, at: now });
    if (this.samples.length > SAMPLES_USED) this.samples = this.samples.slice(-SAMPLES_USED);
  }

  /** The offset as recent samples bound it, or undefined without a fresh one. */
  estimate(now: number): ClockEstimate | undefined {
    const b = this.bounds(now);
    return b && { offsetMs: (b.lo + b.hi) / 2, errorMs: (b.hi - b.lo) / 2 };
  }

  /**
   * The bounds as of `now`, to keep in the journal: a restart's first passes settle the lost
   * answers of the run that died, stamped on the same venue clock, before it has new samples.
   */
  snapshot(now: number): Sample | undefined {
    const b = this.bounds(now);
    return b && { lo: b.lo, hi: b.hi, at: now };
  }

  /** A snapshot taken by an earlier run; used like a sample while fresh. */
  restore(s: Sample): void {
    this.samples.unshift(s);
  }

  private bounds(now: number): { lo: number; hi: number } | undefined {
    const fresh = this.samples.filter((s) => s.at >= now - FRESH_MS);
    if (fresh.length === 0) return undefined;
    const lo = Math.max(...fresh.map((s) => s.lo));
    const hi = Math.min(...fresh.map((s) => s.hi));
    if (lo <= hi) return { lo, hi };
    return { lo: Math.min(...fresh.map((s) => s.lo)), hi: Math.max(...fresh.map((s) => s.hi)) };
  }
}
