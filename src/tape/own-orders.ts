// The recording account's own resting orders, followed through a tape, so that they can be
// taken out of the depth it recorded. The venue's depth does not say whose an order is: a tape
// recorded while a strategy quoted holds the strategy's quotes as levels of the book, and a
// backtest that took them for other traders' size would queue behind, or trade against, the
// strategy's own past quotes (README, "What a backtest cannot know").
//
// What the tape tells, in the order answers arrived (the decoder's order):
// - an openOrders answer lists what rested when the venue read it: it replaces the symbol's set
//   (remainder = origQty - executedQty), with two exceptions for what happened while the read
//   was under way. An order whose place answer arrived after the read was sent may not have
//   been placed yet when the venue read: it is kept although not listed. An order whose cancel
//   answer arrived after the read was sent may have been read before the cancel: it is not
//   brought back although listed. A page that may not hold every order (as many items as the
//   limit asked, 100 when none) or an item that does not read drops nothing it does not list.
// - a place answer (order, batchOrders; futures order) adds a LIMIT order that rests (not IOC or
//   FOK, not final in the answer) at the price and volume of the request;
// - a cancel answer (cancel, batchCancel, both lists of a batch: `failed` is an order not found
//   or already final) removes the order;
// - a myTrades answer reduces the order each trade names, each trade counted once (polls
//   overlap); an order's executed part is the larger of what the last openOrders said and the
//   sum of its trades seen, so a trade the listing already counted is not counted twice.
// An order first seen in a trade (its place answer not arrived yet) is left to the next listing.
import { dec, toDecimal, type Decimal } from '../core/decimal.js';
import type { Market, Side } from '../core/types.js';
import { decodeResponse } from '../exchange/codec.js';
import type { EndpointId } from '../exchange/endpoints.js';
import { parseJsonLossless } from '../exchange/json.js';
import type { TapeCall } from './format.js';

/** The answers that tell what the account has resting. */
export const OWN_ORDER_ENDPOINTS: ReadonlySet<EndpointId> = new Set([
  'spot.order',
  'spot.batchOrders',
  'spot.cancel',
  'spot.batchCancel',
  'spot.openOrders',
  'spot.myTrades',
  'futures.order',
  'futures.cancel',
  'futures.openOrders',
  'futures.myTrades',
]);

/** The venue's page when openOrders asks for no limit (the contract: 100). */
const DEFAULT_PAGE = 100;

interface Own {
  side: Side;
  price: Decimal;
  orig: Decimal;
  /** Executed as the last listing (or the place answer) said. */
  executed: Decimal;
  /** The sum of the trades seen for it. */
  traded: Decimal;
  tradeIds: Set<string> | undefined;
  /** Local ms its place answer or the listing that brought it arrived. */
  knownAt: number;
}

type Levels = ReadonlyArray<readonly [string, string]>;

/** One symbol's orders and, made when a depth needs them, their remainders by side and price. */
class SymbolOwn {
  readonly orders = new Map<string, Own>();
  /** Order id -> local ms its cancel answer arrived; kept until a listing read after it. */
  readonly canceled = new Map<string, number>();
  private dirty = false;
  private bids = new Map<string, Decimal>();
  private asks = new Map<string, Decimal>();

  changed(): void {
    this.dirty = true;
  }

  /** Puts `o` back as changed: removed once nothing of it rests. */
  settle(id: string, o: Own): void {
    if (!dec.isPositive(remainder(o))) this.orders.delete(id);
    this.dirty = true;
  }

  levels(side: Side): Map<string, Decimal> {
    if (this.dirty) {
      this.bids = new Map();
      this.asks = new Map();
      for (const o of this.orders.values()) {
        const at = o.side === 'BUY' ? this.bids : this.asks;
        const left = remainder(o);
        const was = at.get(o.price);
        at.set(o.price, was === undefined ? left : dec.add(was, left));
      }
      this.dirty = false;
    }
    return side === 'BUY' ? this.bids : this.asks;
  }
}

const remainder = (o: Own): Decimal => dec.sub(o.orig, dec.max(o.executed, o.traded));

/** Follows the account's resting orders through a tape's answers; takes them out of its depths. */
export class OwnOrders {
  /** Market -> symbol -> its orders; empty until the tape shows an order resting. */
  private readonly markets = new Map<Market, Map<string, SymbolOwn>>();

  /** Reads one answer of OWN_ORDER_ENDPOINTS (a 2xx); one it cannot read changes nothing. */
  observe(call: TapeCall, endpoint: EndpointId): void {
    if (!('response' in call)) return;
    const arrived = call.at + call.ms;
    const body = call.response.body;
    switch (endpoint) {
      case 'spot.openOrders':
      case 'futures.openOrders':
        return this.listing(call, endpoint, body);
      case 'spot.order':
      case 'futures.order': {
        const req = JSON.parse(call.request.body) as Record<string, unknown>;
        const ack = decodeResponse(endpoint, parseJsonLossless(body));
        if (ack.status !== 'open' && ack.status !== 'partially_filled') return;
        const tif = req.timeInForce;
        if (tif === 'IOC' || tif === 'FOK') return;
        return this.placed(call.market, req[call.market === 'spot' ? 'symbol' : 'contractName'], ack.orderId, req, req.type, ack.executedQty, arrived);
      }
      case 'spot.batchOrders': {
        const req = JSON.parse(call.request.body) as { symbol?: unknown; orders?: unknown };
        const ids = decodeResponse(endpoint, parseJsonLossless(body)).ids;
        if (!Array.isArray(req.orders) || req.orders.length !== ids.length) return;
        // An item the venue answered with no id: what became of its order is not on the tape.
        req.orders.forEach((o: Record<string, unknown>, i) => {
          const id = ids[i]!;
          if (typeof id === 'string') this.placed('spot', req.symbol, id, o, o.batchType, undefined, arrived);
        });
        return;
      }
      case 'spot.cancel':
      case 'futures.cancel': {
        const req = JSON.parse(call.request.body) as Record<string, unknown>;
        const ack = decodeResponse(endpoint, parseJsonLossless(body));
        return this.canceled(call.market, req[call.market === 'spot' ? 'symbol' : 'contractName'], [ack.orderId], arrived);
      }
      case 'spot.batchCancel': {
        const req = JSON.parse(call.request.body) as Record<string, unknown>;
        const ack = decodeResponse(endpoint, parseJsonLossless(body));
        return this.canceled('spot', req.symbol, [...ack.success, ...ack.failed], arrived);
      }
      case 'spot.myTrades':
      case 'futures.myTrades':
        for (const t of decodeResponse(endpoint, parseJsonLossless(body)).items) {
          const id = t.orderId ?? (t.isBuyer ? t.bidId : t.askId);
          const sym = this.markets.get(call.market)?.get(t.symbol);
          const o = id === undefined ? undefined : sym?.orders.get(id);
          if (!sym || !o || o.tradeIds?.has(t.tradeId)) continue;
          (o.tradeIds ??= new Set()).add(t.tradeId);
          o.traded = dec.add(o.traded, t.qty);
          sym.settle(id!, o);
        }
        return;
      default:
        return;
    }
  }

  /**
   * The levels of a depth with the account's resting remainder at each price taken out: a
   * level left with nothing is removed. The very array when nothing of the account's rests on
   * that side (the usual case costs a map lookup).
   */
  strip(market: Market, symbol: string, side: Side, levels: Levels): Levels {
    const sym = this.markets.get(market)?.get(symbol);
    if (sym === undefined || sym.orders.size === 0) return levels;
    const own = sym.levels(side);
    if (own.size === 0) return levels;
    let out: Array<readonly [string, string]> | undefined;
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i]!;
      const mine = own.get(level[0]);
      if (mine === undefined) {
        out?.push(level);
        continue;
      }
      out ??= levels.slice(0, i);
      const left = dec.sub(level[1] as Decimal, mine);
      if (dec.isPositive(left)) out.push([level[0], left]);
    }
    return out ?? levels;
  }

  /** The account's resting remainder on `side` of a symbol, by price (for tests and diagnostics). */
  resting(market: Market, symbol: string, side: Side): ReadonlyMap<string, Decimal> {
    const sym = this.markets.get(market)?.get(symbol);
    return sym ? new Map(sym.levels(side)) : new Map();
  }

  private symbol(market: Market, name: unknown): SymbolOwn | undefined {
    if (typeof name !== 'string' || name.length === 0) return undefined;
    const symbol = name.toUpperCase();
    let symbols = this.markets.get(market);
    if (!symbols) this.markets.set(market, (symbols = new Map()));
    let sym = symbols.get(symbol);
    if (!sym) symbols.set(symbol, (sym = new SymbolOwn()));
    return sym;
  }

  private placed(market: Market, symbolName: unknown, id: string, req: Record<string, unknown>, type: unknown, executed: Decimal | undefined, arrived: number): void {
    if (type !== 'LIMIT' || (req.side !== 'BUY' && req.side !== 'SELL')) return;
    const sym = this.symbol(market, symbolName);
    // Known already (a listing arrived first): the listing is newer than the request.
    if (!sym || sym.orders.has(id) || sym.canceled.has(id)) return;
    const o: Own = {
      side: req.side,
      price: toDecimal(req.price, 'price', { fromVenue: true }),
      orig: toDecimal(req.volume, 'volume', { fromVenue: true }),
      executed: executed ?? ('0' as Decimal),
      traded: '0' as Decimal,
      tradeIds: undefined,
      knownAt: arrived,
    };
    sym.orders.set(id, o);
    sym.settle(id, o);
  }

  private canceled(market: Market, symbolName: unknown, ids: readonly string[], arrived: number): void {
    const sym = this.symbol(market, symbolName);
    if (!sym) return;
    for (const id of ids) {
      sym.canceled.set(id, arrived);
      if (sym.orders.delete(id)) sym.changed();
    }
  }

  private listing(call: TapeCall & { response: unknown }, endpoint: 'spot.openOrders' | 'futures.openOrders', body: string): void {
    const listed = decodeResponse(endpoint, parseJsonLossless(body));
    const sent = call.at;
    const arrived = call.at + call.ms;
    const q = new URLSearchParams(call.request.query);
    const asked = q.get(call.market === 'spot' ? 'symbol' : 'contractName');
    const limit = Number(q.get('limit') ?? DEFAULT_PAGE);
    // A page that may not be all, or an item we could not read: orders not listed may still rest.
    const whole = listed.skipped.length === 0 && (call.market === 'futures' || listed.items.length < limit);
    // The symbols the answer speaks for: the one asked, or (futures without a contract) every one it lists or we follow.
    const scope = new Set<SymbolOwn>();
    if (asked) scope.add(this.symbol(call.market, asked)!);
    else if (whole) for (const sym of this.markets.get(call.market)?.values() ?? []) scope.add(sym);
    const seen = new Set<string>();
    for (const v of listed.items) {
      if (v.status !== 'open' && v.status !== 'partially_filled' && v.status !== 'pending_cancel') continue;
      // A listed order with a price rests, whatever the venue calls its type (futures may give a number).
      if (v.price === undefined) continue;
      const sym = this.symbol(call.market, asked ?? v.symbol)!;
      scope.add(sym);
      seen.add(v.orderId);
      const cancel = sym.canceled.get(v.orderId);
      if (cancel !== undefined && cancel > sent) continue;
      const was = sym.orders.get(v.orderId);
      const o: Own = {
        side: v.side,
        price: v.price,
        orig: v.origQty,
        executed: v.executedQty,
        traded: was?.traded ?? ('0' as Decimal),
        tradeIds: was?.tradeIds,
        knownAt: was?.knownAt ?? arrived,
      };
      sym.orders.set(v.orderId, o);
      sym.settle(v.orderId, o);
    }
    for (const sym of scope) {
      if (whole) {
        for (const [id, o] of sym.orders) {
          if (!seen.has(id) && o.knownAt <= sent) {
            sym.orders.delete(id);
            sym.changed();
          }
        }
      }
      // A cancel answered before this read was sent is in it: the listing decides from now on.
      for (const [id, at] of sym.canceled) if (at <= sent) sym.canceled.delete(id);
    }
  }
}
