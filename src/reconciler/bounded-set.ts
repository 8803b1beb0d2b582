// Remembering what was reported once, without growing forever.

/** Keys reported once (odd items, foreign trades): the oldest are forgotten beyond this many. */
export const REPORTED_KEPT = 10_000;

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
