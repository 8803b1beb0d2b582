// Order look-ups, one order each and each on its own (a failure is logged and retried next
// pass, never stops the others): the final state of an order that left the book without enough
// evidence of how, unknown orders by client order id where the venue takes that, and the client
// order id of a venue order nobody claims, where the venue's order query names it.
import { amend } from '../core/amend.js';
import type { Clock } from '../core/clock.js';
import type { VenueOrderId } from '../core/ids.js';
import { dec, type Decimal } from '../core/decimal.js';
import { OrderRejectedError, UnknownOrderError, errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { AccountReader, Journal } from '../core/ports.js';
import type { ClientIdCarrier, Market, Order } from '../core/types.js';
import { bookableForMs } from '../core/venue.js';
import type { ClockEstimate } from './matching-clock.js';
import type { OrderChange } from './open-orders.js';
import { cancelInProgress, mergeVenueOrder, settlePurged } from './settle.js';

/** Parameter errors: the venue does not take a lookup by client order id. */
const PARAMETER_CODES: ReadonlySet<number> = new Set([-1020, -1100, -1101, -1102, -1103, -1104, -1105, -1106, -2100]);

/**
 * The venue refused the request itself: a parameter error, or a 400 without a venue code (a
 * gateway's page for a missing required parameter: the contract's query needs orderId).
 */
const refusesLookup = (err: OrderRejectedError) =>
  err.venue.venueCode === undefined ? err.venue.httpStatus === 400 : PARAMETER_CODES.has(err.venue.venueCode);

export interface LookupDeps {
  readers: Readonly<Record<Market, AccountReader>>;
  journal: Journal;
  clock: Clock;
  log: Log;
  onOrder(order: Order): Promise<void>;
  /** The volume of an order's journaled fills. */
  filled(market: Market, symbol: string, venueOrderId: string): Decimal;
  /** How an unknown order's client order id went to the venue; undefined when this run did not send it (gateway.ts). */
  carrierOf(clientOrderId: string): ClientIdCarrier | undefined;
  /** A signed request stays valid this long after its timestamp: the venue may book one that late. */
  recvWindowMs: number;
  /** The venue clock's offset to ours and how far off that may be (ms). */
  venueClock(): ClockEstimate;
  /** reconcile.drift.graceMs: how long a cancel the venue took may still be under way. */
  graceMs: number;
}

/** The ways a client order id travels that a venue may keep or drop each on its own. */
type Way = Exclude<ClientIdCarrier, 'none'>;

/** Answers naming no client order id, with none naming one, after which the venue is taken not to name them. */
const UNNAMED_PROOF = 10;

export class OrderLookups {
  /** Unknown orders a client-id lookup said the venue does not have, before that lookup was proven, with the ways each may have gone. */
  private readonly inconclusive = new Map<string, readonly Way[]>();
  /** Unknown orders whose venue order another lost answer holds (bound by looks): not asked again. */
  private readonly swapped = new Set<string>();
  /** Per market, symbol and venue order id: the client order id its query named (null: none). */
  private readonly names = new Map<string, string | null>();
  private readonly unnamedAnswers: Record<Market, number> = { spot: 0, futures: 0 };

  constructor(private readonly deps: LookupDeps) {}

  /** An order that left the book without enough evidence of how: ask the venue. -2013 settles it. */
  async query(order: Order): Promise<void> {
    const { journal, clock, log, readers } = this.deps;
    let change: OrderChange;
    try {
      const venue = await readers[order.market].order(order.symbol, order.venueOrderId!);
      change = { order: mergeVenueOrder(order, venue, clock.now(), cancelInProgress(journal, order, clock.now(), this.deps.graceMs)), reason: 'venue order query' };
    } catch (err) {
      if (!(err instanceof UnknownOrderError)) {
        log.warn({ err: errorText(err), clientOrderId: order.clientOrderId, venueOrderId: order.venueOrderId }, 'order query failed; will retry');
        return;
      }
      // The venue acts asynchronously (it may show a fill drift.graceMs late): an order it
      // acknowledged or changed more recently may not be in its lookups yet. Asked again later.
      if (clock.now() < order.updatedAt + this.deps.graceMs) {
        log.info({ clientOrderId: order.clientOrderId, venueOrderId: order.venueOrderId }, 'the venue does not know an order it answered for lately; will ask again');
        return;
      }
      change = settlePurged(order, this.deps.filled(order.market, order.symbol, order.venueOrderId!), clock.now());
    }
    const latest = journal.order(order.clientOrderId) ?? order;
    if (change.order.status === latest.status && dec.eq(change.order.executedVolume, latest.executedVolume)) return;
    journal.updateOrder(amend(latest, pick(change.order)), change.reason);
    await this.deps.onOrder(journal.order(order.clientOrderId)!);
  }

  /**
   * Unknown orders looked up by client order id, where the venue takes that: once a lookup has
   * found an order sent one way (an order request, a batch's item), the venue is known to keep
   * the ids sent that way; a parameter error says it takes no such lookup (remembered). Until
   * every way an order may have gone is proven, "no such order" proves nothing: a venue may
   * look up an empty order id, or drop the ids of batch items (the notes' item shows none).
   */
  async unknowns(market: Market, symbol: string, most: number): Promise<void> {
    if (this.support(market, 'order') === 'no') return;
    const { journal, clock, log, readers } = this.deps;
    const unknowns = journal
      .orders({ openOnly: true })
      .filter((o) => o.market === market && o.symbol === symbol && o.status === 'unknown' && !o.venueOrderId && !this.inconclusive.has(o.clientOrderId) && !this.swapped.has(o.clientOrderId));
    // "No such order" proves nothing while the lost request may still be booked: the venue takes
    // a request up to recvWindow after its timestamp, and it was signed before its answer was lost
    // (updatedAt); nor before the venue could show what it booked then (drift.graceMs, as for its
    // fills). Such orders are asked about on a later pass.
    const bookableUntil = (o: Order) => o.updatedAt + bookableForMs(this.deps.recvWindowMs, this.deps.venueClock().errorMs) + this.deps.graceMs;
    for (const order of unknowns.filter((o) => clock.now() >= bookableUntil(o)).slice(0, most)) {
      const ways = this.waysOf(market, order.clientOrderId);
      if (ways.length === 0) continue; // sent without its client order id: the venue cannot know it
      try {
        const venue = await readers[market].orderByClientId(symbol, order.clientOrderId);
        if (venue.clientOrderId !== undefined && venue.clientOrderId !== order.clientOrderId) continue;
        if (ways.length === 1) this.support(market, ways[0]!, 'yes');
        // Another lost answer holds it, bound by looks: the two swapped venue orders, and this
        // one takes the other's by looks when it shows (as a named order does in pass.ts).
        if (journal.ordersByVenueId(venue.orderId).some((o) => o.clientOrderId !== order.clientOrderId)) {
          this.swapped.add(order.clientOrderId);
          continue;
        }
        journal.updateOrder(mergeVenueOrder(order, venue, clock.now()), 'found by client order id');
        await this.deps.onOrder(journal.order(order.clientOrderId)!);
      } catch (err) {
        if (err instanceof UnknownOrderError) {
          if (ways.every((w) => this.support(market, w) === 'yes')) {
            journal.updateOrder({ ...order, status: 'rejected', updatedAt: clock.now() }, 'the venue has no order with its client order id: it was never placed (not sent again)');
            await this.deps.onOrder(journal.order(order.clientOrderId)!);
          } else this.inconclusive.set(order.clientOrderId, ways);
        } else if (err instanceof OrderRejectedError && refusesLookup(err)) {
          this.support(market, 'order', 'no');
          log.info({ market, code: err.venue.venueCode }, 'the venue does not look orders up by client order id; lost answers are settled from its open orders and trades');
          return;
        } else log.warn({ err: errorText(err), clientOrderId: order.clientOrderId }, 'client order id lookup failed; will retry');
      }
    }
  }

  /**
   * Asks the venue which client order id each of these orders carries (the contract's lookup by
   * order id; the notes show `clientOrderId` in its answer), at most `most` of them. What it
   * names binds a lost answer exactly; see pass.ts.
   */
  async identify(market: Market, symbol: string, ids: readonly VenueOrderId[], most: number): Promise<void> {
    for (const id of ids.slice(0, most)) {
      let name: string | null;
      try {
        name = (await this.deps.readers[market].order(symbol, id)).clientOrderId ?? null;
      } catch (err) {
        if (!(err instanceof UnknownOrderError)) {
          this.deps.log.warn({ err: errorText(err), market, symbol, venueOrderId: id }, 'order query failed; will retry');
          continue;
        }
        // Purged (or not shown yet): no name, but no answer naming none either, so it is no
        // evidence that the venue keeps no client order ids.
        this.names.set(nameKey(market, symbol, id), null);
        continue;
      }
      this.names.set(nameKey(market, symbol, id), name);
      if (name !== null) this.namesIds(market, 'yes');
      else if (++this.unnamedAnswers[market] >= UNNAMED_PROOF && this.namesIds(market) === undefined) this.namesIds(market, 'no');
    }
  }

  /** The client order id the venue named for an order: a string, null for none, undefined when not asked. */
  nameOf(market: Market, symbol: string, id: VenueOrderId | string): string | null | undefined {
    return this.names.get(nameKey(market, symbol, id));
  }

  /**
   * Forgets the names of orders no longer unclaimed (claimed, or gone), except a name that binds
   * a lost answer still awaiting: its venue order may have left both reads (filled between two,
   * its trades not shown yet), and the name still says whose it is.
   */
  keepNames(market: Market, symbol: string, ids: ReadonlySet<string>, awaiting: ReadonlySet<string>): void {
    const prefix = nameKey(market, symbol, '');
    for (const [k, name] of this.names) if (k.startsWith(prefix) && !ids.has(k.slice(prefix.length)) && !(name !== null && awaiting.has(name))) this.names.delete(k);
  }

  /** The venue orders of a symbol named so far, by the client order id named. */
  named(market: Market, symbol: string): Map<string, VenueOrderId> {
    const prefix = nameKey(market, symbol, '');
    const out = new Map<string, VenueOrderId>();
    for (const [k, name] of this.names) if (name !== null && k.startsWith(prefix)) out.set(name, k.slice(prefix.length) as VenueOrderId);
    return out;
  }

  /** Whether the venue's order query names client order ids: 'no' once proven otherwise (remembered in the journal). */
  namesIds(market: Market, set?: 'yes' | 'no'): 'yes' | 'no' | undefined {
    return this.remembered(`venue:${market}:queryNamesClientId`, set);
  }

  /** An unknown order was found on the venue: one its client-id lookup had denied proves that lookup unreliable for the ways it may have gone. */
  found(market: Market, clientOrderId: string): void {
    const ways = this.inconclusive.get(clientOrderId);
    this.inconclusive.delete(clientOrderId);
    for (const w of ways ?? []) if (this.support(market, w) !== 'yes') this.support(market, w, 'no');
  }

  /** The ways an order's client order id may have gone to the venue: none when it went without it. */
  private waysOf(market: Market, clientOrderId: string): readonly Way[] {
    const carrier = this.deps.carrierOf(clientOrderId);
    if (carrier === 'none') return [];
    if (carrier !== undefined) return [carrier];
    return market === 'futures' ? ['order'] : ['order', 'batch']; // futures has no batch endpoint
  }

  /**
   * Whether the venue finds orders by the client order ids sent one way: 'yes', 'no', or not
   * known yet. Remembered in the journal; 'no' for orders sent alone ends the look-ups.
   */
  private support(market: Market, way: Way, set?: 'yes' | 'no'): 'yes' | 'no' | undefined {
    return this.remembered(way === 'order' ? `venue:${market}:clientIdLookup` : `venue:${market}:batchClientIdLookup`, set);
  }

  private remembered(key: string, set?: 'yes' | 'no'): 'yes' | 'no' | undefined {
    if (set && this.deps.journal.cursor(key) !== set) this.deps.journal.setCursor(key, set);
    const v = this.deps.journal.cursor(key);
    return v === 'yes' || v === 'no' ? v : undefined;
  }
}

const nameKey = (market: Market, symbol: string, id: string) => `${market}:${symbol}:${id}`;

/** The fields a query or settlement decides; the rest stays as the journal has it. */
function pick(o: Order): Pick<Order, 'status' | 'executedVolume' | 'avgPrice' | 'venueOrderId' | 'updatedAt'> {
  return { status: o.status, executedVolume: o.executedVolume, avgPrice: o.avgPrice, venueOrderId: o.venueOrderId, updatedAt: o.updatedAt };
}

