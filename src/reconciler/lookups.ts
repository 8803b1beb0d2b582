// Order look-ups, one order each and each on its own (a failure is logged and retried next
// pass, never stops the others): the final state of an order that left the book without enough
// evidence of how, and unknown orders by client order id where the venue takes that.
import type { Clock } from '../core/clock.js';
import { dec, type Decimal } from '../core/decimal.js';
import { OrderRejectedError, UnknownOrderError, errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { AccountReader, Journal } from '../core/ports.js';
import type { Market, Order } from '../core/types.js';
import type { OrderChange } from './open-orders.js';
import { mergeVenueOrder, settlePurged } from './settle.js';

/** Parameter errors: the venue does not take a lookup by client order id. */
const PARAMETER_CODES: ReadonlySet<number> = new Set([-1020, -1100, -1101, -1102, -1103, -1104, -1105, -1106, -2100]);

export interface LookupDeps {
  readers: Readonly<Record<Market, AccountReader>>;
  journal: Journal;
  clock: Clock;
  log: Log;
  onOrder(order: Order): Promise<void>;
  /** The volume of an order's journaled fills. */
  filled(market: Market, symbol: string, venueOrderId: string): Decimal;
}

export class OrderLookups {
  /** Unknown orders a client-id lookup said the venue does not have, before that lookup was proven. */
  private readonly inconclusive = new Set<string>();

  constructor(private readonly deps: LookupDeps) {}

  /** An order that left the book without enough evidence of how: ask the venue. -2013 settles it. */
  async query(order: Order): Promise<void> {
    const { journal, clock, log, readers } = this.deps;
    let change: OrderChange;
    try {
      const venue = await readers[order.market].order(order.symbol, order.venueOrderId!);
      change = { order: mergeVenueOrder(order, venue, clock.now()), reason: 'venue order query' };
    } catch (err) {
      if (!(err instanceof UnknownOrderError)) {
        log.warn({ err: errorText(err), clientOrderId: order.clientOrderId, venueOrderId: order.venueOrderId }, 'order query failed; will retry');
        return;
      }
      change = settlePurged(order, this.deps.filled(order.market, order.symbol, order.venueOrderId!), clock.now());
    }
    const latest = journal.order(order.clientOrderId) ?? order;
    if (change.order.status === latest.status && dec.eq(change.order.executedVolume, latest.executedVolume)) return;
    journal.updateOrder({ ...latest, ...pick(change.order) }, change.reason);
    await this.deps.onOrder(journal.order(order.clientOrderId)!);
  }

  /**
   * Unknown orders looked up by client order id, where the venue takes that: once a lookup has
   * found an order, the venue is known to; a parameter error says it does not (remembered).
   * Before it is proven, "no such order" proves nothing (a venue may look up an empty order id).
   */
  async unknowns(market: Market, symbol: string, most: number): Promise<void> {
    if (this.support(market) === 'no') return;
    const { journal, clock, log, readers } = this.deps;
    const unknowns = journal.orders({ openOnly: true }).filter((o) => o.market === market && o.symbol === symbol && o.status === 'unknown' && !o.venueOrderId && !this.inconclusive.has(o.clientOrderId));
    for (const order of unknowns.slice(0, most)) {
      try {
        const venue = await readers[market].orderByClientId(symbol, order.clientOrderId);
        if (venue.clientOrderId !== undefined && venue.clientOrderId !== order.clientOrderId) continue;
        this.support(market, 'yes');
        journal.updateOrder(mergeVenueOrder(order, venue, clock.now()), 'found by client order id');
        await this.deps.onOrder(journal.order(order.clientOrderId)!);
      } catch (err) {
        if (err instanceof UnknownOrderError) {
          if (this.support(market) === 'yes') {
            journal.updateOrder({ ...order, status: 'rejected', updatedAt: clock.now() }, 'the venue has no order with its client order id: it was never placed (not sent again)');
            await this.deps.onOrder(journal.order(order.clientOrderId)!);
          } else this.inconclusive.add(order.clientOrderId);
        } else if (err instanceof OrderRejectedError && PARAMETER_CODES.has(err.venue.venueCode ?? 0)) {
          this.support(market, 'no');
          log.info({ market, code: err.venue.venueCode }, 'the venue does not look orders up by client order id; lost answers are settled from its open orders and trades');
          return;
        } else log.warn({ err: errorText(err), clientOrderId: order.clientOrderId }, 'client order id lookup failed; will retry');
      }
    }
  }

  /** An unknown order was found on the venue: one its client-id lookup had denied proves that lookup unreliable. */
  found(market: Market, clientOrderId: string): void {
    if (this.inconclusive.delete(clientOrderId)) this.support(market, 'no');
  }

  /** Whether the venue looks orders up by client order id: 'yes', 'no', or not known yet. Remembered in the journal. */
  private support(market: Market, set?: 'yes' | 'no'): 'yes' | 'no' | undefined {
    const key = `venue:${market}:clientIdLookup`;
    if (set && this.deps.journal.cursor(key) !== set) this.deps.journal.setCursor(key, set);
    const v = this.deps.journal.cursor(key);
    return v === 'yes' || v === 'no' ? v : undefined;
  }
}

/** The fields a query or settlement decides; the rest stays as the journal has it. */
function pick(o: Order): Pick<Order, 'status' | 'executedVolume' | 'avgPrice' | 'venueOrderId' | 'updatedAt'> {
  return { status: o.status, executedVolume: o.executedVolume, avgPrice: o.avgPrice, venueOrderId: o.venueOrderId, updatedAt: o.updatedAt };
}

