// The venue counts requests per endpoint in a rolling window. A request holds its slot from
// the moment it starts until `spanMs` later (the window plus a safety margin for latency
// jitter between our send and the venue's arrival stamp), so no rolling window at the venue
// can ever hold more than the limit. Pure maths on plain millisecond numbers: the virtual
// pacer decides with it, and tests check the live pacer's start log against it.

/** Queries must come in time order: a query forgets the starts that have left the span by then. */
export class RollingWindow {
  /** Start times, oldest first. */
  private starts: number[] = [];

  constructor(
    readonly limit: number,
    readonly spanMs: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number above 0, got ${limit}`);
    if (!Number.isFinite(spanMs) || spanMs <= 0) throw new RangeError(`spanMs must be a positive number of milliseconds, got ${spanMs}`);
  }

  private prune(now: number): void {
    let drop = 0;
    while (drop < this.starts.length && this.starts[drop]! <= now - this.spanMs) drop++;
    if (drop > 0) this.starts = this.starts.slice(drop);
  }

  /** Starts still holding a slot at `now`: those in (now - spanMs, now]. */
  countAt(now: number): number {
    this.prune(now);
    return this.starts.length;
  }

  /**
   * The earliest time at or after `now` when one more start fits, with `held` slots taken by
   * requests not recorded yet (in flight); infinite when those alone fill the limit.
   */
  nextFreeAt(now: number, held = 0): number {
    this.prune(now);
    const room = this.limit - held;
    if (room <= 0) return Number.POSITIVE_INFINITY;
    if (this.starts.length < room) return now;
    // The start `room` places from the end must leave before one more may enter.
    return this.starts[this.starts.length - room]! + this.spanMs;
  }

  /**
   * Records a start. A time earlier than the last one recorded (a clock stepped back) is
   * recorded as the last one: the slot is then held a little longer, never shorter.
   */
  record(at: number): void {
    const last = this.starts[this.starts.length - 1];
    this.starts.push(last !== undefined && at < last ? last : at);
  }
}

/** The most starts any rolling window of `spanMs` held: `starts` in time order. */
export function busiestWindow(starts: readonly number[], spanMs: number): number {
  let peak = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (starts[j]! <= starts[i]! - spanMs) j++;
    peak = Math.max(peak, i - j + 1);
  }
  return peak;
}
