// Orders by venue id, for the ids asked lately: a reconcile pass asks for the owner of every
// trade it reads, thousands a pass when busy, mostly the same orders as the pass before (trades
// are read again for a while), and the table answered each in 12-18 µs: about half of a busy
// pass's stall (bench/engine.bench.ts). Each id's answer is the table's whole answer, kept by
// this journal's own writes (the only writer) until it is pushed out; a write it cannot place
// (an order newly under an id, or moved from one) drops the id, so the next read asks the table.
import type { Order } from '../core/types.js';
import { asStored } from './statements.js';

/**
 * Venue ids remembered; the oldest asked is forgotten beyond this many. A full scan reads each
 * symbol's latest trades page, at most 1000 trades (the venue's page), so ten symbols' scan asks
 * at most 10,000 ids; about 600 bytes each (bench/RESULTS.md, Daemon memory).
 */
const KEPT = 10_000;

export class VenueIdMemo {
  private readonly byVenue = new Map<string, readonly Order[]>();
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
    if (this.byVenue.size > KEPT) this.drop(this.byVenue.keys().next().value!);
    return frozen;
  }

  /** An order was journaled (an intent, or a change). */
  written(order: Order): void {
    const was = this.venueOf.get(order.clientOrderId);
    if (was !== undefined && was !== order.venueOrderId) this.drop(was);
    if (order.venueOrderId === undefined) return;
    const list = this.byVenue.get(order.venueOrderId);
    if (!list) return;
    const i = list.findIndex((o) => o.clientOrderId === order.clientOrderId);
    // New under this id: its place among the others is the table's to say.
    if (i < 0) this.drop(order.venueOrderId);
    else this.byVenue.set(order.venueOrderId, list.map((o, k) => (k === i ? Object.freeze(asStored(order)) : o)));
  }

  /** What was written here may not be in the table (a rolled-back transaction). */
  clear(): void {
    this.byVenue.clear();
    this.venueOf.clear();
  }

  private drop(venueOrderId: string): void {
    for (const o of this.byVenue.get(venueOrderId) ?? []) if (this.venueOf.get(o.clientOrderId) === venueOrderId) this.venueOf.delete(o.clientOrderId);
    this.byVenue.delete(venueOrderId);
  }
}
