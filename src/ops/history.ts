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

interface Kept extends OpsPoint {
  seq: number;
}

/** About two hours at one sample a second. */
export const DEFAULT_MAX_POINTS = 7200;

export class OpsRecorder {
  private seq = 0;
  /** Highest sequence number no longer kept: a cursor before it cannot be continued. */
  private dropped = 0;
  private readonly series = new Map<string, Kept[]>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly maxPoints = DEFAULT_MAX_POINTS) {}

  record(sample: OpsSample): void {
    const seq = ++this.seq;
    for (const [key, value] of Object.entries(sample.prices)) this.push(`price ${key}`, { seq, at: sample.at, value });
    if (sample.equity !== undefined) this.push('equity', { seq, at: sample.at, value: sample.equity });
    if (sample.realized !== undefined) this.push('realized', { seq, at: sample.at, value: sample.realized });
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
      const kept = this.series.get(name) ?? [];
      let i = kept.length;
      while (i > 0 && kept[i - 1]!.seq > after) i--;
      return kept.slice(i).map(({ at, value }) => ({ at, value }));
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

  private push(name: string, point: Kept): void {
    let kept = this.series.get(name);
    if (!kept) this.series.set(name, (kept = []));
    kept.push(point);
    // Trimmed in chunks, so a full series costs one splice per tenth of its length, not one per sample.
    if (kept.length > this.maxPoints + Math.ceil(this.maxPoints / 10)) {
      const gone = kept.splice(0, kept.length - this.maxPoints);
      this.dropped = Math.max(this.dropped, gone[gone.length - 1]!.seq);
    }
  }
}
