// The venue's bounded memory. A real venue does not keep every order and trade answerable for
// ever, and a simulator that did would grow without end under a daemon left running in paper
// mode (81,000 orders an hour for ten busy strategies is over 100 MB an hour). With `keepMs`
// set, final orders last changed, account trades made and accepted-order log entries made
// longer ago than that are forgotten: queryOrder then answers "order does not exist" for them,
// as for any unknown id. The reconciler reads trades every few seconds and queries only orders
// it lost track of lately, so an hour of history is far more than it needs.
import { FINAL, type LoggedOrder, type VenueStatus } from './types.js';

/** How often the forgetting runs (venue time): a minute's orders at a time, not one per step. */
const FORGET_EVERY_MS = 60_000;

/** What the venue keeps for keepMs, each part forgetting on its own. */
export class Forgetting {
  private lastAt = Number.NEGATIVE_INFINITY;
  constructor(
    private readonly keepMs: number,
    private readonly parts: readonly { forget(cutoff: number): void }[],
  ) {}

  /** At each market step: once a minute, forgets what is older than keepMs. */
  step(at: number): void {
    if (at - this.lastAt < FORGET_EVERY_MS) return;
    this.lastAt = at;
    for (const p of this.parts) p.forget(at - this.keepMs);
  }
}

interface Kept {
  clientOrderId?: string;
  account: string;
  status: VenueStatus;
  createdAt: number;
  updatedAt: number;
}

/**
 * Forgets final orders last changed before `cutoff`. Orders sit in the map in creation order,
 * so the walk stops at the first one created at or after it: the cost is what is forgotten plus
 * the few old orders still resting.
 */
export function forgetOrders<O extends Kept>(orders: Map<string, O>, byClientId: Map<string, O>, clientKeyOf: (o: O) => string, cutoff: number): void {
  for (const [id, o] of orders) {
    if (o.createdAt >= cutoff) break;
    if (!FINAL.has(o.status) || o.updatedAt >= cutoff) continue;
    orders.delete(id);
    if (o.clientOrderId !== undefined && byClientId.get(clientKeyOf(o)) === o) byClientId.delete(clientKeyOf(o));
  }
}

/** How many items at the front of a list in time order are older than `cutoff`. */
export function olderThan<T>(list: readonly T[], at: (t: T) => number, cutoff: number): number {
  let n = 0;
  while (n < list.length && at(list[n]!) < cutoff) n++;
  return n;
}

/** Forgets accepted-order log entries made before `cutoff`. */
export function forgetLogged(log: LoggedOrder[], cutoff: number): void {
  log.splice(0, olderThan(log, (o) => o.at, cutoff));
}
