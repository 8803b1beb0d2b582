// Turns the stream of order updates a strategy hears into typed events (plugin API 2): each
// change of status once, partial fills as the executed volume grows, with the reason where
// there is one.
import { BoundedSet } from '../core/bounded.js';
import { dec, type Decimal } from '../core/decimal.js';
import { FINAL_STATUSES as FINAL, type Order } from '../core/types.js';
import type { OrderEvent } from './api.js';

/** Orders not ended followed at once; the oldest are forgotten beyond this (an old order's next update then reads as new). */
const FOLLOWED = 10_000;
/** Ended orders remembered, so a late repeat of their update says nothing: repeats come within seconds. */
const ENDED_KEPT = 2_000;

export class OrderEvents {
  private readonly last = new Map<string, { status: Order['status']; executed: Decimal }>();
  private readonly ended = new BoundedSet(ENDED_KEPT);

  /** The event `order`'s update makes, if any. */
  next(order: Order, reason: string | undefined): OrderEvent | undefined {
    // An ended order says nothing new (a filled one's fill is often read after its answer).
    if (this.ended.has(order.clientOrderId)) return undefined;
    const prev = this.last.get(order.clientOrderId);
    const changed = !prev || prev.status !== order.status || !dec.eq(prev.executed, order.executedVolume);
    this.last.delete(order.clientOrderId);
    if (FINAL.has(order.status)) this.ended.add(order.clientOrderId);
    else {
      this.last.set(order.clientOrderId, { status: order.status, executed: order.executedVolume });
      if (this.last.size > FOLLOWED) this.last.delete(this.last.keys().next().value!);
    }
    if (!changed) return undefined;
    switch (order.status) {
      case 'pending':
        return undefined;
      case 'open':
        return prev?.status === 'open' ? undefined : { kind: 'accepted', order };
      case 'partially_filled':
        return { kind: 'partially_filled', order };
      case 'filled':
        return { kind: 'filled', order };
      case 'pending_cancel':
        return prev?.status === 'pending_cancel' ? undefined : { kind: 'cancel_pending', order };
      case 'canceled':
        return { kind: 'canceled', order, ...(reason ? { reason } : {}) };
      case 'unknown':
        return { kind: 'unknown', order, ...(reason ? { reason } : {}) };
      case 'rejected':
        return { kind: 'rejected', clientOrderId: order.clientOrderId, order, reason: reason ?? 'rejected' };
    }
  }
}
