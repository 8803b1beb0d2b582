// The journal kept in memory: for paper runs that need no restart safety, and for tests.
import type { Decimal } from '../core/decimal.js';
import type { Journal, OrderEvent } from '../core/ports.js';
import { FINAL_STATUSES, fillKey, type Fill, type Market, type Order, type OrderIntent, type Position } from '../core/types.js';

export class MemoryJournal implements Journal {
  private readonly sequences = new Map<string, number>();
  private readonly orderMap = new Map<string, Order>();
  // Indexes, so a long backtest's look-ups cost the open orders, not every order ever placed.
  private openIds = new Set<string>();
  private readonly byVenueId = new Map<string, string[]>();
  private readonly events = new Map<string, OrderEvent[]>();
  private readonly fillMap = new Map<string, Fill>();
  private readonly volumesByOrder = new Map<string, Decimal[]>();
  private readonly cursors = new Map<string, string>();
  private ban = 0;
  private savedPositions: Position[] = [];

  nextSequence(strategyId: string): number {
    const n = this.sequences.get(strategyId) ?? 0;
    this.sequences.set(strategyId, n + 1);
    return n;
  }

  recordIntent(_intent: OrderIntent, order: Order): void {
    if (this.orderMap.has(order.clientOrderId)) throw new Error(`client order id ${order.clientOrderId} was journaled before`);
    this.orderMap.set(order.clientOrderId, order);
    this.index(order, undefined);
    this.events.set(order.clientOrderId, [{ clientOrderId: order.clientOrderId, at: order.updatedAt, status: order.status, reason: 'intent' }]);
  }

  updateOrder(order: Order, reason?: string): void {
    const before = this.orderMap.get(order.clientOrderId);
    if (!before) throw new Error(`unknown order ${order.clientOrderId}`);
    this.orderMap.set(order.clientOrderId, order);
    this.index(order, before);
    this.events.get(order.clientOrderId)!.push({ clientOrderId: order.clientOrderId, at: order.updatedAt, status: order.status, reason });
  }

  order(clientOrderId: string): Order | undefined {
    return this.orderMap.get(clientOrderId);
  }

  orders(filter: { openOnly?: boolean; strategyId?: string } = {}): Order[] {
    const source = filter.openOnly ? [...this.openIds].map((id) => this.orderMap.get(id)!) : [...this.orderMap.values()];
    return filter.strategyId ? source.filter((o) => o.strategyId === filter.strategyId) : source;
  }

  ordersByVenueId(venueOrderId: string): Order[] {
    return (this.byVenueId.get(venueOrderId) ?? []).map((id) => this.orderMap.get(id)!).filter((o) => o.venueOrderId === venueOrderId);
  }

  private index(order: Order, before: Order | undefined): void {
    if (FINAL_STATUSES.has(order.status)) this.openIds.delete(order.clientOrderId);
    else if (!this.openIds.has(order.clientOrderId)) {
      this.openIds.add(order.clientOrderId);
      // Open orders are listed in intent order, like the SQLite journal's. One that opens again
      // (a lost answer given up, then found on the venue) goes back to its place: rare, so the
      // set is rebuilt then rather than kept sorted always.
      if (before && FINAL_STATUSES.has(before.status)) this.openIds = new Set([...this.orderMap.keys()].filter((id) => this.openIds.has(id)));
    }
    if (order.venueOrderId && order.venueOrderId !== before?.venueOrderId) {
      const ids = this.byVenueId.get(order.venueOrderId) ?? [];
      if (!ids.includes(order.clientOrderId)) ids.push(order.clientOrderId);
      this.byVenueId.set(order.venueOrderId, ids);
    }
  }

  history(clientOrderId: string): OrderEvent[] {
    return [...(this.events.get(clientOrderId) ?? [])];
  }

  recordFill(fill: Fill): boolean {
    if (this.fillMap.has(fillKey(fill))) return false;
    this.fillMap.set(fillKey(fill), fill);
    const k = `${fill.market}:${fill.symbol}:${fill.venueOrderId}`;
    const volumes = this.volumesByOrder.get(k);
    if (volumes) volumes.push(fill.volume);
    else this.volumesByOrder.set(k, [fill.volume]);
    return true;
  }

  fills(): Fill[] {
    return [...this.fillMap.values()];
  }

  fillVolumes(market: Market, symbol: string, venueOrderId: string): Decimal[] {
    return [...(this.volumesByOrder.get(`${market}:${symbol}:${venueOrderId}`) ?? [])];
  }

  positions(): Position[] {
    return [...this.savedPositions];
  }

  savePositions(positions: readonly Position[]): void {
    this.savedPositions = [...positions];
  }

  cursor(key: string): string | undefined {
    return this.cursors.get(key);
  }

  setCursor(key: string, value: string): void {
    this.cursors.set(key, value);
  }

  banUntil(): number {
    return this.ban;
  }

  setBanUntil(untilMs: number): void {
    this.ban = Math.max(this.ban, untilMs);
  }

  /** Nothing to commit in memory: the writes happen as `fn` makes them. */
  transaction<T>(fn: () => T): T {
    return fn();
  }

  /** Nothing here outlives the process: there is nothing to wait for. */
  mark(): number {
    return 0;
  }

  durable(_mark: number): Promise<void> {
    return Promise.resolve();
  }

  close(): void {}
}
