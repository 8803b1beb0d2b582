// Orders by venue id, kept beside the table for the ids written or asked lately: a reconcile
// pass asks for the owner of every trade it reads, thousands a pass when busy, and the table
// answered each in 12-18 µs: about half of a busy pass's stall (bench/engine.bench.ts). Each id's
// answer is the table's whole answer, kept by this journal's own writes (the only writer) until
// it is pushed out. An order written under an id not kept, or newly under a kept one, has its
// id's answer read from the table at that write: the orders answered since the last pass are
// then known when the pass reads their trades, one read per answer rather than hundreds at once.
import { BoundedMap } from '../core/bounded.js';
import type { Order } from '../core/types.js';
import { asStored } from './statements.js';

/**
 * Venue ids remembered; the one remembered or rewritten least lately is forgotten beyond this
 * many. A full scan reads each symbol's latest trades page, at most 1000 trades (the venue's
 * page), so ten symbols' scan asks at most 10,000 ids, and the venue's ceiling of 300 orders a
 * second writes that many in about 33 s; about 600 bytes each (bench/RESULTS.md, Daemon memory).
 */
const KEPT = 10_000;

export class VenueIdMemo {
  /** `load`: the table's answer for an id (this connection's, so it sees the write in progress). */
  constructor(private readonly load: (venueOrderId: string) => Order[]) {}

  private readonly byVenue = new BoundedMap<readonly Order[]>(KEPT, (id, orders) => this.unlist(id, orders));
  /** The venue id each remembered order is listed under, by client order id. */
  private readonly venueOf = new Map<string, string>();

  get(venueOrderId: string): readonly Order[] | undefined {
    return this.byVenue.get(venueOrderId);
  }

  /** The table's answer for an id. */
  remember(venueOrderId: string, orders: Order[]): readonly Order[] {
    const frozen = orders.map((o) => Object.freeze(o));
    this.byVenue.set(venueOrderId, frozen);
    for (const o of frozen) this.venueOf.set(o.clientOrderId, venueOrderId);
    return frozen;
  }

  /** An order was journaled (an intent, or a change). */
  written(order: Order): void {
    const was = this.venueOf.get(order.clientOrderId);
    if (was !== undefined && was !== order.venueOrderId) this.drop(was);
    const id = order.venueOrderId;
    if (id === undefined) return;
    const list = this.byVenue.get(id);
    const i = list?.findIndex((o) => o.clientOrderId === order.clientOrderId) ?? -1;
    if (list && i >= 0) {
      this.byVenue.set(id, list.map((o, k) => (k === i ? Object.freeze(asStored(order)) : o)));
      return;
    }
    // Not kept, or new under this id (its place among the others is the table's to say).
    this.drop(id);
    try {
      this.remember(id, this.load(id));
    } catch {
      // Only a head start: the write itself stands, and the next read asks the table (and says why it fails).
    }
  }

  /** What was written here may not be in the table (a rolled-back transaction). */
  clear(): void {
    this.byVenue.clear();
    this.venueOf.clear();
  }

  private drop(venueOrderId: string): void {
    this.unlist(venueOrderId, this.byVenue.get(venueOrderId) ?? []);
    this.byVenue.delete(venueOrderId);
  }

  /** Forgets where the orders listed under an id are listed. */
  private unlist(venueOrderId: string, orders: readonly Order[]): void {
    for (const o of orders) if (this.venueOf.get(o.clientOrderId) === venueOrderId) this.venueOf.delete(o.clientOrderId);
  }
}
