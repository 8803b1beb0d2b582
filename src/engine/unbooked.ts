// Executions the venue has told of (an order's executedVolume, from its place answer, a lookup
// or the open orders read) whose fills the reconciler has not booked yet. Until its trades read
// catches up (up to reconcileEveryMs), the positions book does not hold them: risk judging
// max_position on the book alone let a strategy buying at a marketable price every 250 ms reach
// 3.3x its cap (a review). Risk counts them on top of the book; once the fills are booked the
// book holds them and they leave here. An order whose fills never show stays counted, the
// cautious side, until its fills come or the daemon restarts (the start-up reconcile books them).
// Strategies read them too (ctx.position, ctx.ownPosition): an order gone from openOrders with
// its position unchanged made a stop-loss sell twice (a review).
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { amend } from '../core/amend.js';
import type { Market, Order, Side, StrategyPosition } from '../core/types.js';
import { quoteSized } from '../reconciler/fills.js';
import { symbolKey } from '../risk/index.js';

interface Pending {
  market: Market;
  symbol: string;
  strategyId: string;
  venueOrderId: string;
  side: Side;
  /** The most the venue has said the order executed, and how much of it is not booked. */
  executed: Decimal;
  left: Decimal;
}

export class UnbookedExecutions {
  private readonly pending = new Map<string, Pending>();

  /** `bookedVolume`: the fill volume journaled for a venue order. */
  constructor(private readonly bookedVolume: (market: Market, symbol: string, venueOrderId: string) => Decimal) {}

  /** An order changed: what the venue says it executed. */
  update(order: Order): void {
    const said = saidExecuted(order);
    if (order.venueOrderId === undefined || !dec.isPositive(said)) return;
    const before = this.pending.get(order.clientOrderId);
    const executed = before && dec.cmp(before.executed, said) > 0 ? before.executed : said;
    this.settle(order.clientOrderId, { market: order.market, symbol: order.symbol, strategyId: order.strategyId, venueOrderId: order.venueOrderId, side: order.side, executed, left: executed });
  }

  /** A fill of an order was booked: what is left of its executions. */
  booked(order: Order): void {
    const p = this.pending.get(order.clientOrderId);
    if (p) this.settle(order.clientOrderId, p);
  }

  private settle(clientOrderId: string, p: Pending): void {
    p.left = dec.sub(p.executed, this.bookedVolume(p.market, p.symbol, p.venueOrderId));
    if (dec.isPositive(p.left)) this.pending.set(clientOrderId, p);
    else this.pending.delete(clientOrderId);
  }

  /** `positions` (signed base quantity per market:symbol) with the executions not yet booked added. */
  addTo(positions: Map<string, Decimal>): Map<string, Decimal> {
    for (const p of this.pending.values()) {
      const k = symbolKey(p.market, p.symbol);
      positions.set(k, dec.add(positions.get(k) ?? ZERO, p.side === 'BUY' ? p.left : dec.neg(p.left)));
    }
    return positions;
  }

  /** Whether an order of these strategies has executions not booked yet. */
  any(strategyIds: ReadonlySet<string>): boolean {
    for (const p of this.pending.values()) if (strategyIds.has(p.strategyId)) return true;
    return false;
  }

  /** Signed quantity executed and not booked in `symbol`: the account's, or one strategy's. */
  quantity(market: Market, symbol: string, strategyId?: string): Decimal {
    let sum = ZERO;
    for (const p of this.pending.values()) {
      if (p.market !== market || p.symbol !== symbol || (strategyId !== undefined && p.strategyId !== strategyId)) continue;
      sum = dec.add(sum, p.side === 'BUY' ? p.left : dec.neg(p.left));
    }
    return sum;
  }
}

/**
 * What the venue said an order executed. A futures place answer says 'filled' without a volume
 * (executedVolume stays 0 until its fills): filled is all of it, but for a spot market buy,
 * whose volume is quote.
 */
function saidExecuted(order: Order): Decimal {
  return order.status === 'filled' && dec.isZero(order.executedVolume) && !quoteSized(order) ? order.volume : order.executedVolume;
}

/** A booked position as strategies read it: its quantities with `unbooked` (signed) added. */
export function withUnbooked(p: StrategyPosition, unbooked: Decimal): StrategyPosition {
  if (dec.isZero(unbooked)) return p;
  return amend(p, { quantity: dec.add(p.quantity, unbooked), netQuantity: dec.add(p.netQuantity, unbooked), unbookedQuantity: dec.add(p.unbookedQuantity, unbooked) });
}
