// A one-line progress bar for long backtests. It draws only on a terminal: redirected to a
// file or a CI log, carriage returns would turn into thousands of lines. Redraws are throttled
// on an injected clock, so a replay of millions of events spends its time replaying.

/** The part of a writable stream the bar needs; process.stderr fits. */
export interface ProgressStream {
  isTTY?: boolean;
  write(chunk: string): unknown;
}

export interface ProgressOptions {
  /** Events the run will process; 0 or less when unknown (no percent then). */
  total: number;
  /** Milliseconds; pass clock.now so this module reads no clock of its own. */
  now: () => number;
  label?: string;
  /** Least time between two redraws. */
  minIntervalMs?: number;
  /** Characters inside the brackets. */
  barWidth?: number;
}

export class Progress {
  private readonly enabled: boolean;
  private readonly startedAt: number;
  private lastDrawAt = -Infinity;
  private done = 0;
  private finished = false;

  constructor(
    private readonly stream: ProgressStream,
    private readonly options: ProgressOptions,
  ) {
    this.enabled = stream.isTTY === true;
    this.startedAt = options.now();
  }

  /** Adds `count` processed events. */
  tick(count = 1): void {
    this.update(this.done + count);
  }

  /** Sets the number of processed events. */
  update(done: number): void {
    if (this.finished) return;
    this.done = done;
    if (!this.enabled) return;
    const at = this.options.now();
    // The last event is always drawn, so the bar never stops short of 100%.
    const complete = this.options.total > 0 && done >= this.options.total;
    if (!complete && at - this.lastDrawAt < (this.options.minIntervalMs ?? 100)) return;
    this.draw(at);
  }

  /** Draws the final state and ends the line; later calls do nothing. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (!this.enabled) return;
    this.draw(this.options.now());
    this.stream.write('\n');
  }

  /** The text of the bar at `at` (without the carriage return), for tests and for callers that log it. */
  line(at: number): string {
    const { total, label } = this.options;
    const width = this.options.barWidth ?? 24;
    const share = total > 0 ? Math.min(1, Math.max(0, this.done / total)) : null;
    const filled = share === null ? 0 : Math.floor(share * width);
    const elapsedSeconds = (at - this.startedAt) / 1000;
    const rate = elapsedSeconds > 0 ? `${formatRate(this.done / elapsedSeconds)} ev/s` : '- ev/s';
    const parts = [
      ...(label ? [label] : []),
      `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`,
      total > 0 ? `${this.done}/${total}` : String(this.done),
      ...(share !== null ? [`${(share * 100).toFixed(1)}%`] : []),
      rate,
    ];
    return parts.join(' ');
  }

  private draw(at: number): void {
    this.lastDrawAt = at;
    // \r returns to the line start, \x1b[K clears what a longer previous line left behind.
    this.stream.write(`\r${this.line(at)}\x1b[K`);
  }
}

function formatRate(perSecond: number): string {
  if (perSecond >= 1_000_000) return `${(perSecond / 1_000_000).toFixed(1)}M`;
  if (perSecond >= 10_000) return `${(perSecond / 1000).toFixed(1)}k`;
  return perSecond >= 100 ? perSecond.toFixed(0) : perSecond.toFixed(1);
}
