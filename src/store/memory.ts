// The journal kept in memory: for paper runs that need no restart safety, and for tests.
//
// A paper daemon runs for days, so it may be told to forget (MemoryJournalOptions.keep): final
// orders that ended longer ago than keep.ms, with their events and fills. The paper venue
// forgets its own final orders and trades after an hour (sim/history.ts), so the reconciler
// can never read those trades again: a fill forgotten here cannot come back to be counted twice,
// as long as keep.ms is longer than the venue's hour. Backtests keep everything (their report).
import type { Decimal } from '../core/decimal.js';
import type { Journal, OrderEvent } from '../core/ports.js';
import { FINAL_STATUSES, fillKey, type Fill, type Market, type Order, type OrderIntent, type Position } from '../core/types.js';

export interface MemoryJournalOptions {
  /** Forget final orders that ended more than `ms` before `now()`, with their events and fills. */
  keep?: { ms: number; now: () => number };
}

/** How often forgetting runs (by keep.now): a minute's orders at a time, not a walk per write. */
const FORGET_EVERY_MS = 60_000;

export class MemoryJournal implements Journal {
  private readonly sequences = new Map<string, number>();
  private readonly orderMap = new Map<string, Order>();
  // Indexes, so a long backtest's look-ups cost the open orders, not every order ever placed.
  private openIds = new Set<string>();
  private readonly byVenueId = new Map<string, string[]>();
  private readonly events = new Map<string, OrderEvent[]>();
  private readonly fillMap = new Map<string, Fill>();
  /** Each fill's journal number, by fill key (increasing, never reused: fills are forgotten, numbers are not). */
  private readonly fillIds = new Map<string, number>();
  private fillSeq = 0;
  private readonly volumesByOrder = new Map<string, Decimal[]>();
  /** Fill keys by market:symbol:venue order id, so an order's fills go with it when it is forgotten. */
  private readonly fillKeysByOrder = new Map<string, string[]>();
  private readonly cursors = new Map<string, string>();
  private ban = 0;
  private savedPositions: Position[] = [];
  private forgotAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: MemoryJournalOptions = {}) {}

  nextSequence(strategyId: string): number {
    const n = this.sequences.get(strategyId) ?? 0;
    this.sequences.set(strategyId, n + 1);
    return n;
  }

  recordIntent(_intent: OrderIntent, order: Order): void {
    if (this.orderMap.has(order.clientOrderId)) throw new Error(`client order id ${order.clientOrderId} was journaled before`);
    this.forgetOld();
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

  eachOrder(): Iterable<Order> {
    return this.orderMap.values();
  }

  latestOrders(strategyId: string, limit: number): Order[] {
    const orders = this.orders({ strategyId });
    return orders.slice(Math.max(0, orders.length - limit));
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
      // In intent order, like the SQLite journal's; orders sharing a venue id are rare, so sorted only then.
      if (ids.length > 1) {
        const rank = new Map([...this.orderMap.keys()].map((id, i) => [id, i]));
        ids.sort((a, b) => (rank.get(a) ?? -1) - (rank.get(b) ?? -1));
      }
      this.byVenueId.set(order.venueOrderId, ids);
    }
  }

  history(clientOrderId: string): OrderEvent[] {
    return [...(this.events.get(clientOrderId) ?? [])];
  }

  recordFill(fill: Fill): boolean {
    if (this.fillMap.has(fillKey(fill))) return false;
    this.fillMap.set(fillKey(fill), fill);
    this.fillIds.set(fillKey(fill), ++this.fillSeq);
    const k = `${fill.market}:${fill.symbol}:${fill.venueOrderId}`;
    const volumes = this.volumesByOrder.get(k);
    if (volumes) volumes.push(fill.volume);
    else this.volumesByOrder.set(k, [fill.volume]);
    if (this.opts.keep) {
      const keys = this.fillKeysByOrder.get(k);
      if (keys) keys.push(fillKey(fill));
      else this.fillKeysByOrder.set(k, [fillKey(fill)]);
    }
    return true;
  }

  /**
   * Forgets final orders that ended before now - keep.ms, with their events and fills (at most
   * once a minute). Orders sit in the map in the order they were journaled, so the walk stops at
   * the first one journaled after the cutoff: its cost is what is forgotten plus the old orders
   * still open.
   */
  private forgetOld(): void {
    const keep = this.opts.keep;
    if (!keep) return;
    const now = keep.now();
    if (now - this.forgotAt < FORGET_EVERY_MS) return;
    this.forgotAt = now;
    const cutoff = now - keep.ms;
    for (const [id, order] of this.orderMap) {
      if (order.createdAt >= cutoff) break;
      if (!FINAL_STATUSES.has(order.status) || order.updatedAt >= cutoff) continue;
      this.orderMap.delete(id);
      this.events.delete(id);
      if (!order.venueOrderId) continue;
      const named = this.byVenueId.get(order.venueOrderId)?.filter((other) => other !== id);
      // Another order kept under the same venue id (one bound by looks) keeps the fills too.
      if (named?.length) {
        this.byVenueId.set(order.venueOrderId, named);
        continue;
      }
      this.byVenueId.delete(order.venueOrderId);
      const k = `${order.market}:${order.symbol}:${order.venueOrderId}`;
      for (const key of this.fillKeysByOrder.get(k) ?? []) {
        this.fillMap.delete(key);
        this.fillIds.delete(key);
      }
      this.fillKeysByOrder.delete(k);
      this.volumesByOrder.delete(k);
    }
  }

  fills(): Fill[] {
    return [...this.fillMap.values()];
  }

  *eachFill(afterId = 0): Iterable<{ id: number; fill: Fill; strategyId: string | undefined }> {
    for (const [key, fill] of this.fillMap) {
      const id = this.fillIds.get(key)!;
      if (id <= afterId) continue;
      const ours = this.ordersByVenueId(fill.venueOrderId).filter((o) => o.market === fill.market && o.symbol === fill.symbol);
      yield { id, fill, strategyId: ours.at(-1)?.strategyId };
    }
  }

  lastFillId(): number {
    return this.fillSeq;
  }

  latestFills(limit: number): Fill[] {
    const fills = this.fills();
    return fills.slice(Math.max(0, fills.length - limit));
  }

  latestFillsOf(strategyId: string, limit: number): Fill[] {
    const fills = [...this.eachFill()];
    const mine: Fill[] = [];
    for (let i = fills.length - 1; i >= 0 && mine.length < limit; i--) if (fills[i]!.strategyId === strategyId) mine.push(fills[i]!.fill);
    return mine.reverse();
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

  /** Memory takes every write. */
  writeFailure(): undefined {
    return undefined;
  }

  watchWrites(): void {}

  close(): void {}
}
