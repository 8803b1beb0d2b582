// What the journal keeps of its orders beside the tables, by its own writes (the only writer:
// the daemon holds the journal's lock): the open orders (open-orders.ts) and orders by venue id
// (venue-ids.ts). A read-only journal, where another process writes, keeps none.
import type { Order } from '../core/types.js';
import { OpenOrderCopy } from './open-orders.js';
import { VenueIdMemo } from './venue-ids.js';

export class OrderCopies {
  readonly open: OpenOrderCopy;
  readonly byVenue: VenueIdMemo;

  /** `loadOpen`: the open orders from the table, in intent order; `loadByVenueId`: the orders under one venue id. */
  constructor(loadOpen: () => Order[], loadByVenueId: (venueOrderId: string) => Order[]) {
    this.open = new OpenOrderCopy(loadOpen);
    this.byVenue = new VenueIdMemo(loadByVenueId);
  }

  /** An intent's order was journaled. */
  recorded(order: Order): void {
    this.open.recorded(order);
    this.byVenue.written(order);
  }

  /** An order's change was journaled. */
  updated(order: Order): void {
    this.open.updated(order);
    this.byVenue.written(order);
  }

  /** What was written here may not be in the tables (a rolled-back transaction): read them again. */
  reload(): void {
    this.open.reload();
    this.byVenue.clear();
  }
}
