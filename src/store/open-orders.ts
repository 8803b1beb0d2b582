// The journal's open orders, kept beside the table by the journal's own writes (the only
// writer: the daemon holds the journal's lock), so risk checks, dispatch rounds and reconcile
// passes read them without a query: reading 600 rows back per tick was a tenth of a busy
// daemon's event loop (bench/engine.bench.ts). Loaded from the table on first read, and again
// after a rolled-back transaction or an order that reopens (both rare). Every reader gets the
// same objects, frozen: one that changed an order in place would change it for all.
import { FINAL_STATUSES, type Order } from '../core/types.js';
import { asStored } from './statements.js';

export class OpenOrderCopy {
  /** In intent order; undefined until read, or after something made it unsure. */
  private open: Map<string, Order> | undefined;

  /** `load`: the open orders from the table, in intent order. */
  constructor(private readonly load: () => Order[]) {}

  list(): Order[] {
    this.open ??= new Map(this.load().map((o) => [o.clientOrderId, Object.freeze(o)]));
    return [...this.open.values()];
  }

  /** An intent's order was journaled. */
  recorded(order: Order): void {
    if (this.open && !FINAL_STATUSES.has(order.status)) this.open.set(order.clientOrderId, Object.freeze(asStored(order)));
  }

  /** An order's change was journaled. */
  updated(order: Order): void {
    if (!this.open) return;
    if (FINAL_STATUSES.has(order.status)) this.open.delete(order.clientOrderId);
    else if (this.open.has(order.clientOrderId)) this.open.set(order.clientOrderId, Object.freeze(asStored(order)));
    else this.open = undefined; // reopened: its place in intent order is the table's to say
  }

  /** What was written here may not be in the table (a rolled-back transaction): read it again. */
  reload(): void {
    this.open = undefined;
  }
}
