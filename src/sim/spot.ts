// Spot trading: order validation against the symbol's rules, funds locked on entry, matching
// through the instrument's market, settlement of every fill with maker and taker fees, and the
// order and trade records the endpoints report.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { Side } from '../core/types.js';
import { VenueCode } from '../exchange/codes.js';
import { reject } from './errors.js';
import type { SymbolSpec } from './instruments.js';
import type { Ledger } from './ledger.js';
import type { InstrumentMarket } from './market.js';
import { OTHERS } from './others.js';
import { fromUnits, toUnits, toUnitsBig } from './units.js';
import { forgetOrders } from './history.js';
import { clientKey, FINAL, stillOpen, type Fees, type MarketFill, type UserTrade, type VenueStatus } from './types.js';

export interface SpotOrderInput {
  symbol: string;
  side: Side;
  type: 'LIMIT' | 'MARKET';
  /** Base quantity; for MARKET BUY the quote amount to spend. */
  volume: Decimal;
  price?: Decimal;
  clientOrderId?: string;
}

export interface SpotOrder {
  orderId: string;
  clientOrderId?: string;
  account: string;
  symbol: string;
  side: Side;
  type: 'LIMIT' | 'MARKET';
  price?: Decimal;
  priceTicks?: number;
  volume: Decimal;
  /** Base lots ordered (LIMIT and MARKET SELL); undefined for MARKET BUY. */
  origLots?: number;
  executedLots: number;
  /** Sum of price * quantity over the fills. */
  executedQuote: Decimal;
  /** Funds still locked for this order (quote for BUY, base for SELL). */
  locked: Decimal;
  status: VenueStatus;
  createdAt: number;
  updatedAt: number;
}

const DECIMAL_TEXT = /^\d+(\.\d+)?$/;

/** Reads a decimal that the contract says travels as a string. */
export function decimalParam(v: unknown, name: string): Decimal | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !DECIMAL_TEXT.test(v.trim())) {
    return reject(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, `Parameter '${name}' must be a positive decimal written as a string, like "0.015".`);
  }
  return dec.add(v.trim() as Decimal, ZERO);
}

/** Checks precision and minimums; returns the ticks and lots the book will use. */
export function checkSpotOrder(spec: SymbolSpec, o: SpotOrderInput): { priceTicks?: number; lots?: number } {
  const marketBuy = o.type === 'MARKET' && o.side === 'BUY';
  // A MARKET BUY volume is an amount of the quote asset, written to the price's precision.
  const volPlaces = marketBuy ? spec.pricePrecision : spec.quantityPrecision;
  if (dec.places(o.volume) > volPlaces) {
    reject(VenueCode.PRICE_VOLUME_PRECISION_ERROR, `Volume ${o.volume} has more than ${volPlaces} decimal places allowed for ${spec.symbol}.`);
  }
  let priceTicks: number | undefined;
  if (o.type === 'LIMIT') {
    const price = o.price!;
    if (dec.places(price) > spec.pricePrecision) {
      reject(VenueCode.BAD_PRECISION, `Price ${price} has more than ${spec.pricePrecision} decimal places allowed for ${spec.symbol}.`);
    }
    if (dec.lt(price, spec.limitPriceMin)) reject(VenueCode.ORDER_VOLUME_TOO_SMALL, `Price ${price} is below the minimum ${spec.limitPriceMin}.`);
    if (dec.lt(o.volume, spec.limitVolumeMin)) reject(VenueCode.ORDER_VOLUME_TOO_SMALL, `Volume ${o.volume} is below the minimum ${spec.limitVolumeMin}.`);
    priceTicks = toUnits(price, spec.pricePrecision) ?? reject(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, 'Price is too large.');
  } else if (marketBuy) {
    if (dec.lt(o.volume, spec.marketBuyMin)) reject(VenueCode.ORDER_VOLUME_TOO_SMALL, `Market buy amount ${o.volume} is below the minimum ${spec.marketBuyMin}.`);
  } else if (dec.lt(o.volume, spec.marketSellMin)) {
    reject(VenueCode.ORDER_VOLUME_TOO_SMALL, `Volume ${o.volume} is below the minimum ${spec.marketSellMin}.`);
  }
  const lots = marketBuy ? undefined : (toUnits(o.volume, spec.quantityPrecision) ?? reject(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, 'Volume is too large.'));
  return { priceTicks, lots };
}

/** The asset and amount an order locks while it lives. */
export function lockFor(spec: SymbolSpec, o: SpotOrderInput): { asset: string; amount: Decimal } {
  if (o.side === 'SELL') return { asset: spec.baseAsset, amount: o.volume };
  if (o.type === 'MARKET') return { asset: spec.quoteAsset, amount: o.volume };
  return { asset: spec.quoteAsset, amount: dec.mul(o.price!, o.volume) };
}

export interface SpotHooks {
  nextOrderId(): string;
  onTrade(trade: UserTrade): void;
}

export class SpotEngine {
  readonly orders = new Map<string, SpotOrder>();
  /** Orders not yet seen final (see stillOpen). */
  private readonly live = new Set<SpotOrder>();
  /** Orders by (account, symbol, client order id): the latest order with that id wins, as on the venue. */
  readonly byClientId = new Map<string, SpotOrder>();

  constructor(
    readonly specs: ReadonlyMap<string, SymbolSpec>,
    readonly markets: ReadonlyMap<string, InstrumentMarket>,
    readonly ledger: Ledger,
    private readonly fees: Fees,
    private readonly hooks: SpotHooks,
  ) {}

  spec(symbol: string): SymbolSpec {
    return this.specs.get(symbol.toUpperCase()) ?? reject(VenueCode.BAD_SYMBOL, 'Invalid symbol.');
  }

  /** Forgets final orders last changed before `cutoff` (the venue's bounded memory, history.ts). */
  forget(cutoff: number): void {
    forgetOrders(this.orders, this.byClientId, (o) => clientKey(o.account, o.symbol, o.clientOrderId!), cutoff);
  }

  /**
   * Checks that `orders` can all be placed together (rules and combined funds) without placing
   * any: the all-or-nothing rule of batchOrders rests on this.
   */
  precheck(account: string, orders: readonly SpotOrderInput[]): void {
    const need = new Map<string, Decimal>();
    for (const o of orders) {
      const spec = this.spec(o.symbol);
      checkSpotOrder(spec, o);
      const { asset, amount } = lockFor(spec, o);
      need.set(asset, dec.add(need.get(asset) ?? ZERO, amount));
    }
    for (const [asset, amount] of need) {
      if (dec.lt(this.ledger.holding(account, asset).free, amount)) reject(VenueCode.BALANCE_NOT_ENOUGH, `Insufficient ${asset} balance.`);
    }
  }

  /** Validates, locks funds, matches and rests the remainder of a LIMIT order. */
  place(account: string, input: SpotOrderInput, at: number): SpotOrder {
    const spec = this.spec(input.symbol);
    const { priceTicks, lots } = checkSpotOrder(spec, input);
    const { asset, amount } = lockFor(spec, input);
    if (!this.ledger.lock(account, asset, amount)) reject(VenueCode.BALANCE_NOT_ENOUGH, `Insufficient ${asset} balance.`);
    const order: SpotOrder = {
      orderId: this.hooks.nextOrderId(),
      clientOrderId: input.clientOrderId,
      account,
      symbol: spec.symbol,
      side: input.side,
      type: input.type,
      price: input.type === 'LIMIT' ? input.price : undefined,
      priceTicks,
      volume: input.volume,
      origLots: lots,
      executedLots: 0,
      executedQuote: ZERO,
      locked: amount,
      status: 'NEW',
      createdAt: at,
      updatedAt: at,
    };
    this.orders.set(order.orderId, order);
    this.live.add(order);
    if (order.clientOrderId !== undefined) this.byClientId.set(clientKey(account, order.symbol, order.clientOrderId), order);
    const market = this.markets.get(spec.symbol)!;
    const places = spec.pricePrecision + spec.quantityPrecision;
    if (order.type === 'MARKET' && order.side === 'BUY') {
      // The budget in units of 10^-(pricePrecision+quantityPrecision): ticks * lots are that unit.
      const budget = (): bigint => toUnitsBig(order.locked, places) ?? 0n;
      const cap = (ticks: number): number => Number(budget() / BigInt(ticks));
      market.execute({ id: order.orderId, owner: account, side: 'BUY', lots: Number.MAX_SAFE_INTEGER, cap }, at, false);
      this.finishMarket(order, at);
    } else if (order.type === 'MARKET') {
      market.execute({ id: order.orderId, owner: account, side: 'SELL', lots: lots! }, at, false);
      this.finishMarket(order, at);
    } else {
      market.execute({ id: order.orderId, owner: account, side: order.side, limitTicks: priceTicks!, lots: lots! }, at, true);
    }
    return order;
  }

  /** A MARKET order never rests: what the book could not fill is released. */
  private finishMarket(order: SpotOrder, at: number): void {
    const spec = this.spec(order.symbol);
    const asset = order.side === 'BUY' ? spec.quoteAsset : spec.baseAsset;
    const leftover = order.locked;
    this.ledger.unlock(order.account, asset, leftover);
    order.locked = ZERO;
    const complete =
      order.side === 'SELL'
        ? order.executedLots === order.origLots
        : // Bought as much as the amount buys: what is left cannot pay for one more lot.
          order.executedLots > 0 && this.dustLeft(spec, leftover);
    order.status = complete ? 'FILLED' : 'CANCELED';
    order.updatedAt = at;
  }

  private dustLeft(spec: SymbolSpec, left: Decimal): boolean {
    const best = this.markets.get(spec.symbol)!.book.best('SELL');
    if (!best) return false;
    const oneLot = fromUnits(BigInt(best.priceTicks), spec.pricePrecision + spec.quantityPrecision);
    return dec.lt(left, oneLot);
  }

  /** Settles one fill of the symbol's market: called by the market for every fill with an account in it. */
  settle(fill: MarketFill, visibleAt: (at: number) => number): void {
    const maker = fill.maker;
    const takerOrder = this.orders.get(fill.takerId);
    const makerOrder = this.orders.get(maker.id);
    const specSymbol = (takerOrder ?? makerOrder)!.symbol;
    const spec = this.spec(specSymbol);
    const qty = fromUnits(fill.lots, spec.quantityPrecision);
    const quote = fromUnits(BigInt(fill.priceTicks) * BigInt(fill.lots), spec.pricePrecision + spec.quantityPrecision);
    const price = fromUnits(fill.priceTicks, spec.pricePrecision);
    const buyIsTaker = fill.takerSide === 'BUY';
    const buyer = buyIsTaker ? { owner: fill.takerOwner, order: takerOrder, maker: false } : { owner: maker.owner, order: makerOrder, maker: true };
    const seller = buyIsTaker ? { owner: maker.owner, order: makerOrder, maker: true } : { owner: fill.takerOwner, order: takerOrder, maker: false };
    const bidId = buyer.order?.orderId ?? (buyIsTaker ? fill.takerId : maker.id);
    const askId = seller.order?.orderId ?? (buyIsTaker ? maker.id : fill.takerId);
    const isSelf = buyer.owner === seller.owner && buyer.owner !== OTHERS;

    // Buyer pays quote out of its lock and receives base less its fee.
    const buyerFee = buyer.owner === OTHERS ? ZERO : dec.mul(qty, buyer.maker ? this.fees.maker : this.fees.taker);
    if (buyer.order) {
      const o = buyer.order;
      // A LIMIT buy locked at its own price; a better fill frees the difference.
      const lockedShare = o.type === 'LIMIT' ? dec.mul(o.price!, qty) : quote;
      this.ledger.spendLocked(buyer.owner, spec.quoteAsset, lockedShare);
      if (o.type === 'LIMIT') this.ledger.credit(buyer.owner, spec.quoteAsset, dec.sub(lockedShare, quote));
      o.locked = dec.sub(o.locked, lockedShare);
    } else this.ledger.spendLocked(OTHERS, spec.quoteAsset, quote);
    this.ledger.credit(buyer.owner, spec.baseAsset, dec.sub(qty, buyerFee));
    this.ledger.collectFee(spec.baseAsset, buyerFee);

    // Seller pays base out of its lock and receives quote less its fee.
    const sellerFee = seller.owner === OTHERS ? ZERO : dec.mul(quote, seller.maker ? this.fees.maker : this.fees.taker);
    this.ledger.spendLocked(seller.owner, spec.baseAsset, qty);
    if (seller.order) seller.order.locked = dec.sub(seller.order.locked, qty);
    this.ledger.credit(seller.owner, spec.quoteAsset, dec.sub(quote, sellerFee));
    this.ledger.collectFee(spec.quoteAsset, sellerFee);

    for (const [party, fee, feeCoin, side] of [
      [buyer, buyerFee, spec.baseAsset, 'BUY'],
      [seller, sellerFee, spec.quoteAsset, 'SELL'],
    ] as const) {
      const o = party.order;
      if (!o) continue;
      o.executedLots += fill.lots;
      o.executedQuote = dec.add(o.executedQuote, quote);
      o.updatedAt = fill.at;
      if (o.type === 'LIMIT' && o.status !== 'PENDING_CANCEL') o.status = o.executedLots === o.origLots ? 'FILLED' : 'PARTIALLY_FILLED';
      if (o.type === 'LIMIT' && o.executedLots === o.origLots) o.status = 'FILLED';
      this.hooks.onTrade({
        id: fill.tradeId,
        market: 'spot',
        symbol: spec.symbol,
        account: party.owner,
        orderId: o.orderId,
        side,
        takerSide: fill.takerSide,
        price,
        qty,
        quote,
        fee,
        feeCoin,
        isMaker: party.maker,
        bidId,
        askId,
        bidUser: buyer.owner,
        askUser: seller.owner,
        isSelf,
        at: fill.at,
        visibleAt: visibleAt(fill.at),
      });
    }
  }

  /** Asks to cancel: the order stays on the book (and may still fill) until `settleCancel`. */
  requestCancel(order: SpotOrder, at: number): void {
    if (FINAL.has(order.status)) reject(VenueCode.ORDER_NOT_SUPPORT_CANCELLATION, `Order ${order.orderId} is ${order.status} and cannot be canceled.`);
    order.status = 'PENDING_CANCEL';
    order.updatedAt = at;
  }

  settleCancel(order: SpotOrder, at: number): void {
    if (order.status !== 'PENDING_CANCEL') return;
    const spec = this.spec(order.symbol);
    this.markets.get(spec.symbol)!.book.remove(order.orderId);
    this.ledger.unlock(order.account, order.side === 'BUY' ? spec.quoteAsset : spec.baseAsset, order.locked);
    order.locked = ZERO;
    order.status = order.executedLots === order.origLots ? 'FILLED' : 'CANCELED';
    order.updatedAt = at;
  }

  find(account: string, symbol: string, orderId?: string, clientOrderId?: string): SpotOrder | undefined {
    const o = orderId !== undefined ? this.orders.get(orderId) : clientOrderId !== undefined ? this.byClientId.get(clientKey(account, symbol, clientOrderId)) : undefined;
    return o && o.account === account && o.symbol === symbol ? o : undefined;
  }

  open(account: string, symbol?: string): SpotOrder[] {
    return stillOpen(this.live, (o) => o.account === account && (symbol === undefined || o.symbol === symbol));
  }
}

/** Average fill price at the symbol's price precision plus two places, or undefined before any fill. */
export function avgPrice(executedQuote: Decimal, executedQty: Decimal, pricePrecision: number): Decimal | undefined {
  if (dec.isZero(executedQty)) return undefined;
  return dec.round(dec.div(executedQuote, executedQty), pricePrecision + 2);
}
