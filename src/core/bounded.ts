// Remembering what was seen lately without growing forever: a daemon runs for weeks.
//
// The oldest entry is found through a queue of arrivals, not by iterating the Set or Map from
// its start: V8 leaves a deleted entry's slot in place until it rehashes the table, and an
// iterator steps over every such slot, so evicting from the front of a full table costs more the
// longer it runs (8-17 µs an eviction at 10,000-20,000 entries against 0.3; bench/bounded.bench.ts).

/**
 * Keys in the order they arrived, each with its sequence number. An arrival goes stale when its
 * key arrives again or leaves; the owner says which are live. Stale arrivals are passed over
 * when the oldest is asked for, and dropped once they outnumber the live ones, so the queue stays
 * within a small multiple of what its owner keeps.
 */
class Arrivals {
  private keys: string[] = [];
  private head = 0;
  /** Sequence number of keys[0]. */
  private base = 0;

  /** `renumber`: for an owner whose `live` reads stamps, each kept key's new number after stale arrivals are dropped. */
  constructor(
    private readonly live: (key: string, seq: number) => boolean,
    private readonly renumber?: (key: string, seq: number) => void,
  ) {}

  /** Records an arrival; returns its sequence number. */
  push(key: string, kept: number): number {
    if (this.keys.length - this.head > 2 * kept + 64) this.dropStale();
    this.keys.push(key);
    return this.base + this.keys.length - 1;
  }

  /** Removes and returns the oldest live key. */
  shift(): string | undefined {
    while (this.head < this.keys.length) {
      const key = this.keys[this.head]!;
      const seq = this.base + this.head++;
      if (this.live(key, seq)) {
        this.compact();
        return key;
      }
    }
    this.compact();
    return undefined;
  }

  clear(): void {
    this.base += this.keys.length;
    this.keys = [];
    this.head = 0;
  }

  /** Gives back the array's front once the passed-over part is most of it. */
  private compact(): void {
    if (this.head < 64 || this.head * 2 < this.keys.length) return;
    this.keys = this.keys.slice(this.head);
    this.base += this.head;
    this.head = 0;
  }

  /** Keeps the live arrivals only, renumbered in order. */
  private dropStale(): void {
    const kept: string[] = [];
    for (let i = this.head; i < this.keys.length; i++) if (this.live(this.keys[i]!, this.base + i)) kept.push(this.keys[i]!);
    const from = this.base + this.keys.length;
    this.keys = kept;
    this.head = 0;
    this.base = from;
    kept.forEach((key, i) => this.renumber?.(key, from + i));
  }
}

/** A set that forgets its oldest entries beyond `max`: remembering forever would grow without end. */
export class BoundedSet {
  private readonly keys = new Set<string>();
  // Keys only arrive once and leave only as the oldest, so every arrival is live until shifted.
  private readonly arrivals = new Arrivals(() => true);

  constructor(private readonly max: number) {}

  has(k: string): boolean {
    return this.keys.has(k);
  }

  add(k: string): void {
    if (this.keys.has(k)) return;
    this.keys.add(k);
    this.arrivals.push(k, this.max);
    if (this.keys.size > this.max) this.keys.delete(this.arrivals.shift()!);
  }

  /** The keys kept, oldest first. */
  values(): IterableIterator<string> {
    return this.keys.values();
  }

  get size(): number {
    return this.keys.size;
  }
}

/** A map that forgets its least recently set entries beyond `max`: a cache of what can be read again. */
export class BoundedMap<V> {
  private readonly entries = new Map<string, { value: V; seq: number }>();
  private readonly arrivals = new Arrivals(
    (key, seq) => this.entries.get(key)?.seq === seq,
    (key, seq) => {
      this.entries.get(key)!.seq = seq;
    },
  );

  /** `onEvict` hears each entry forgotten to make room (not those deleted or cleared). */
  constructor(
    private readonly max: number,
    private readonly onEvict?: (key: string, value: V) => void,
  ) {}

  get(k: string): V | undefined {
    return this.entries.get(k)?.value;
  }

  /** Sets `k`, which becomes the newest. */
  set(k: string, v: V): void {
    this.entries.set(k, { value: v, seq: this.arrivals.push(k, this.max) });
    if (this.entries.size <= this.max) return;
    const oldest = this.arrivals.shift()!;
    const value = this.entries.get(oldest)!.value;
    this.entries.delete(oldest);
    this.onEvict?.(oldest, value);
  }

  delete(k: string): void {
    this.entries.delete(k);
  }

  clear(): void {
    this.entries.clear();
    this.arrivals.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
