// The dashboard's time series: a sample every second or so of each symbol's last price, the
// equity and the realised PnL, kept in memory for the last `maxPoints` samples. Each sample has
// a sequence number, so a page that already has the history asks only for what came after.
import type { OpsHistory, OpsPoint } from './types.js';

export interface OpsSample {
  at: number;
  /** Last price per `market:symbol` (decimal strings); a symbol with no price yet is left out. */
  prices: Readonly<Record<string, string>>;
  equity?: string;
  realized?: string;
}

/**
 * One series, a column per field: about 40 bytes a point instead of 78 as objects (a full
 * history of ten symbols is 86,400 points: bench/RESULTS.md, Daemon memory).
 */
class Series {
  readonly seq: number[] = [];
  readonly at: number[] = [];
  readonly value: string[] = [];

  push(seq: number, at: number, value: string): void {
    const last = this.value[this.value.length - 1];
    this.seq.push(seq);
    this.at.push(at);
    this.value.push(value === last ? last : value); // an unchanged value keeps one string
  }

  /** Drops the oldest points, keeping `keep`; returns the highest sequence number dropped. */
  trim(keep: number): number {
    const n = this.seq.length - keep;
    const dropped = this.seq[n - 1]!;
    this.seq.splice(0, n);
    this.at.splice(0, n);
    this.value.splice(0, n);
    return dropped;
  }
}

/** About two hours at one sample a second. */
export const DEFAULT_MAX_POINTS = 7200;

export class OpsRecorder {
  private seq = 0;
  /** Highest sequence number no longer kept: a cursor before it cannot be continued. */
  private dropped = 0;
  private readonly series = new Map<string, Series>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly maxPoints = DEFAULT_MAX_POINTS) {}

  record(sample: OpsSample): void {
    const seq = ++this.seq;
    for (const [key, value] of Object.entries(sample.prices)) this.push(`price ${key}`, seq, sample.at, value);
    if (sample.equity !== undefined) this.push('equity', seq, sample.at, sample.equity);
    if (sample.realized !== undefined) this.push('realized', seq, sample.at, sample.realized);
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // A page that went away mid-write must not stop the others from hearing.
      }
    }
  }

  history(cursor?: number): OpsHistory {
    const full = cursor === undefined || cursor < this.dropped || cursor > this.seq;
    const after = full ? 0 : cursor;
    const pick = (name: string): OpsPoint[] => {
      const kept = this.series.get(name);
      if (!kept) return [];
      let i = kept.seq.length;
      while (i > 0 && kept.seq[i - 1]! > after) i--;
      const points: OpsPoint[] = [];
      for (; i < kept.seq.length; i++) points.push({ at: kept.at[i]!, value: kept.value[i]! });
      return points;
    };
    const prices: Record<string, OpsPoint[]> = {};
    for (const name of this.series.keys()) {
      if (!name.startsWith('price ')) continue;
      const points = pick(name);
      if (points.length > 0 || full) prices[name.slice('price '.length)] = points;
    }
    return { cursor: this.seq, full, prices, equity: pick('equity'), realized: pick('realized') };
  }

  onSample(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private push(name: string, seq: number, at: number, value: string): void {
    let kept = this.series.get(name);
    if (!kept) this.series.set(name, (kept = new Series()));
    kept.push(seq, at, value);
    // Trimmed in chunks, so a full series costs one splice per tenth of its length, not one per sample.
    if (kept.seq.length > this.maxPoints + Math.ceil(this.maxPoints / 10)) this.dropped = Math.max(this.dropped, kept.trim(this.maxPoints));
  }
}
