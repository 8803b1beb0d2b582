// Progress of a sweep, with an estimate of the time left. On a terminal it is one line redrawn
// in place; elsewhere (a CI log, a test reading stderr) one line per change, so nothing is
// drowned in carriage returns. Time comes from the caller's clock.
import type { ProgressStream } from './progress.js';

export interface SweepCounts {
  /** Runs finished, failed ones included. */
  done: number;
  failed: number;
  total: number;
}

/**
 * Milliseconds left, from the pace since watching began: runs finished meanwhile per ms
 * elapsed. Null until a run has finished while watching (a re-attached sweep's earlier runs
 * say nothing about the pace now).
 */
export function etaMs(counts: SweepCounts, doneAtStart: number, elapsedMs: number): number | null {
  const finished = counts.done - doneAtStart;
  if (finished <= 0 || elapsedMs <= 0) return null;
  return Math.round(((counts.total - counts.done) * elapsedMs) / finished);
}

/** 75 s -> "1:15", an hour and more -> "1:02:03". */
export function clockText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}

export function sweepProgressLine(id: string, counts: SweepCounts, doneAtStart: number, elapsedMs: number, width = 24): string {
  const share = counts.total > 0 ? Math.min(1, counts.done / counts.total) : 1;
  const filled = Math.floor(share * width);
  const eta = counts.done >= counts.total ? 0 : etaMs(counts, doneAtStart, elapsedMs);
  return [
    `sweep ${id}`,
    `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`,
    `${counts.done}/${counts.total} runs${counts.failed > 0 ? ` (${counts.failed} failed)` : ''}`,
    `${clockText(elapsedMs)} elapsed`,
    `ETA ${eta === null ? '-' : clockText(eta)}`,
  ].join(' ');
}

export class SweepProgress {
  private readonly startedAt: number;
  private doneAtStart: number | undefined;
  private last = '';
  private drawn = false;

  constructor(
    private readonly stream: ProgressStream,
    private readonly id: string,
    private readonly now: () => number,
  ) {
    this.startedAt = now();
  }

  update(counts: SweepCounts): void {
    this.doneAtStart ??= counts.done;
    // A log gets a line per percent done (every run of a sweep of 100 or fewer), per failure and
    // at the end; a terminal is redrawn on every update, so it also sees the clock move.
    const key = `${Math.floor((100 * counts.done) / Math.max(1, counts.total))}/${counts.failed}/${counts.done === counts.total}`;
    const tty = this.stream.isTTY === true;
    if (!tty && key === this.last) return;
    this.last = key;
    const line = sweepProgressLine(this.id, counts, this.doneAtStart, this.now() - this.startedAt);
    if (tty) {
      this.stream.write(`\r${line}\x1b[K`);
      this.drawn = true;
    } else this.stream.write(`${line}\n`);
  }

  /** A message on its own line (the bar, if drawn, is redrawn by the next update). */
  note(message: string): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
    this.stream.write(`${message}\n`);
  }

  finish(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}
