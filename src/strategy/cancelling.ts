// The orders a strategy asked to cancel whose cancel is on its way: asking again sends nothing.
// A target is forgotten once the cancel has an outcome the strategy can see: the order is
// pending_cancel or final (heard as an order update), or the cancel ended without effect (heard
// as a failed cancel: refused, not confirmed, or dropped unsent by a ban, engine.maxQueueMs or
// the stop), after which the strategy may ask again for an order still open. An order leaves the
// open orders only once it is final and never comes back, and cancel() does nothing for an order
// that is not open, so a target no longer open need not be remembered either: without forgetting
// those the set grew by every cancel a strategy ever made (96,662 entries after two simulated
// hours of bench/memory.bench.ts).

/** Below this many targets nothing is pruned (a prune reads the open orders once). */
const PRUNE_FLOOR = 256;

export class Cancelling {
  private readonly ids = new Set<string>();
  private pruneAt = PRUNE_FLOOR;

  has(clientOrderId: string): boolean {
    return this.ids.has(clientOrderId);
  }

  /**
   * Notes a target; `open` lists the strategy's open orders now. Targets no longer open are
   * forgotten once the set reaches twice what the last prune left (at least PRUNE_FLOOR), so
   * a prune's cost is spread over as many cancels as it keeps.
   */
  add(clientOrderId: string, open: readonly { clientOrderId: string }[]): void {
    this.ids.add(clientOrderId);
    if (this.ids.size < this.pruneAt) return;
    const stillOpen = new Set(open.map((o) => o.clientOrderId));
    for (const id of this.ids) if (!stillOpen.has(id)) this.ids.delete(id);
    this.pruneAt = Math.max(PRUNE_FLOOR, 2 * this.ids.size);
  }

  /** The cancel of `clientOrderId` has an outcome; returns whether it was remembered. */
  forget(clientOrderId: string): boolean {
    return this.ids.delete(clientOrderId);
  }

  get size(): number {
    return this.ids.size;
  }
}
