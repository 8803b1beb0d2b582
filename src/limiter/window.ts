// The venue counts requests per endpoint in a rolling window. A request holds its slot from
// the moment it starts until `spanMs` later (the window plus a safety margin for latency
// jitter between our send and the venue's arrival stamp), so no rolling window at the venue
// can ever hold more than the limit.

export class RollingWindow {
  private starts: number[] = [];

  constructor(
    readonly limit: number,
    readonly spanMs: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number above 0, got ${limit}`);
  }

  private prune(now: number): void {
    let drop = 0;
    while (drop < this.starts.length && this.starts[drop]! <= now - this.spanMs) drop++;
    if (drop > 0) this.starts = this.starts.slice(drop);
  }

  /** Starts still holding a slot at `now`. */
  countAt(now: number): number {
    this.prune(now);
    return this.starts.length;
  }

  /** The earliest time at or after `now` when one more start fits. */
  nextFreeAt(now: number): number {
    this.prune(now);
    if (this.starts.length < this.limit) return now;
    return this.starts[this.starts.length - this.limit]! + this.spanMs;
  }

  record(at: number): void {
    this.starts.push(at);
  }
}
