// Remembering what was seen lately without growing forever: a daemon runs for weeks.

/** A set that forgets its oldest entries beyond `max`: remembering forever would grow without end. */
export class BoundedSet {
  private readonly keys = new Set<string>();
  constructor(private readonly max: number) {}
  has(k: string): boolean {
    return this.keys.has(k);
  }
  add(k: string): void {
    this.keys.add(k);
    if (this.keys.size > this.max) this.keys.delete(this.keys.values().next().value!);
  }
}

/** A map that forgets its least recently set entries beyond `max`: a cache of what can be read again. */
export class BoundedMap<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    return this.entries.get(k);
  }
  set(k: string, v: V): void {
    this.entries.delete(k); // re-inserted at the end: the newest
    this.entries.set(k, v);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
  clear(): void {
    this.entries.clear();
  }
  get size(): number {
    return this.entries.size;
  }
}
