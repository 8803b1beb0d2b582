// Linear perpetual futures: volume in contracts, margin in the margin coin at the contract's
// leverage, OPEN/CLOSE orders on long (BUY) and short (SELL) positions, held side by side (hedge
// model) or as one signed position per contract (net model); realised PnL on what is reduced,
// unrealised PnL against the contract's mid price.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { Side } from '../core/types.js';
import { VenueCode } from '../exchange/codes.js';
import { reject } from './errors.js';
import type { ContractSpec } from './instruments.js';
import type { InstrumentMarket } from './market.js';
import { OTHERS } from './others.js';
import { forgetOrders } from './history.js';
import { clientKey, FINAL, stillOpen, type Fees, type MarketFill, type UserTrade, type VenueStatus } from './types.js';
import { fromUnits, toUnits } from './units.js';

export interface FuturesOrderInput {
  contract: string;
  side: Side;
  type: 'LIMIT' | 'MARKET';
  volume: Decimal;
  price?: Decimal;
  open: 'OPEN' | 'CLOSE';
  positionType: 1 | 2;
  /** IOC: what trades at once, the rest cancelled; FOK: all at once or nothing; POST_ONLY: rests as maker or is cancelled. */
  timeInForce?: 'IOC' | 'FOK' | 'POST_ONLY';
  clientOrderId?: string;
}

export interface FuturesOrder {
  orderId: string;
  clientOrderId?: string;
  account: string;
  contract: string;
  side: Side;
  type: 'LIMIT' | 'MARKET';
  open: 'OPEN' | 'CLOSE';
  positionType: 1 | 2;
  price?: Decimal;
  volume: Decimal;
  lots: number;
  executedLots: number;
  /** Sum of price * contracts over the fills (without the multiplier). */
  executedValue: Decimal;
  /** Margin coin locked for an OPEN order (margin plus the most its fee can be). */
  locked: Decimal;
  /** Price the lock was computed at, per contract. */
  lockPrice: Decimal;
  status: VenueStatus;
  createdAt: number;
  updatedAt: number;
}

export interface Position {
  contract: string;
  /** BUY: long, SELL: short. */
  side: Side;
  positionType: 1 | 2;
  lots: number;
  /** Sum of entry price * contracts of what is held; avg = openValue / lots. */
  openValue: Decimal;
  /** Price of the first opening fill. */
  openPrice: Decimal;
  margin: Decimal;
  realized: Decimal;
  pendingCloseLots: number;
  closedLots: number;
}

export interface FuturesWallet {
  coin: string;
  normal: Decimal;
  lock: Decimal;
  realized: Decimal;
  positions: Map<string, Position>;
  /** Leverage set per contract (POST /fapi/v1/edit_lever); the contract's default otherwise. */
  leverage: Map<string, number>;
}

export interface FuturesHooks {
  nextOrderId(): string;
  onTrade(trade: UserTrade): void;
}

/** MARKET orders walk the book no further than this from the best price, then the rest is canceled. */
const MARKET_BAND = 0.1;

/** 1: net, one signed position per contract; 2: hedge, long and short apart (the family's positionModel). */
export type PositionModel = 1 | 2;

const opposite = (side: Side): Side => (side === 'BUY' ? 'SELL' : 'BUY');

/** Who a fill was between, the same for both of its legs. */
interface FillParties {
  bidId: string;
  askId: string;
  bidUser: string;
  askUser: string;
  isSelf: boolean;
}

export class FuturesEngine {
  readonly orders = new Map<string, FuturesOrder>();
  /** Orders not yet seen final (see stillOpen). */
  private readonly live = new Set<FuturesOrder>();
  readonly byClientId = new Map<string, FuturesOrder>();
  readonly wallets = new Map<string, FuturesWallet>();
  readonly feesCollected = new Map<string, Decimal>();

  constructor(
    readonly specs: ReadonlyMap<string, ContractSpec>,
    readonly markets: ReadonlyMap<string, InstrumentMarket>,
    private readonly fees: Fees,
    private readonly hooks: FuturesHooks,
    readonly positionModel: PositionModel = 2,
  ) {}

  /** Key of the position of `side` (BUY long, SELL short) in the wallet's map. */
  private positionKey(contract: string, side: Side): string {
    return this.positionModel === 1 ? contract : `${contract}:${side}`;
  }

  /** Forgets final orders last changed before `cutoff` (the venue's bounded memory, history.ts). */
  forget(cutoff: number): void {
    forgetOrders(this.orders, this.byClientId, (o) => clientKey(o.account, o.contract, o.clientOrderId!), cutoff);
  }

  /** The position a CLOSE order of `side` reduces (a SELL closes a long, a BUY a short), if any. */
  private closeTarget(w: FuturesWallet, contract: string, side: Side): Position | undefined {
    const pos = w.positions.get(this.positionKey(contract, opposite(side)));
    return pos && pos.side === opposite(side) ? pos : undefined;
  }

  openWallet(account: string, coin: string, amount: Decimal): void {
    this.wallets.set(account, { coin, normal: amount, lock: ZERO, realized: ZERO, positions: new Map(), leverage: new Map() });
  }

  wallet(account: string): FuturesWallet {
    return this.wallets.get(account) ?? reject(VenueCode.NO_THIS_COMPANY, 'No futures account.');
  }

  spec(contract: string): ContractSpec {
    return this.specs.get(contract.toUpperCase()) ?? reject(VenueCode.BAD_SYMBOL, 'Invalid contract name.');
  }

  notional(spec: ContractSpec, price: Decimal, lots: number): Decimal {
    return dec.mul(dec.mul(price, fromUnits(lots, 0)), spec.multiplier);
  }

  place(account: string, input: FuturesOrderInput, at: number): FuturesOrder {
    const spec = this.spec(input.contract);
    const w = this.wallet(account);
    const market = this.markets.get(spec.symbol)!;
    if (dec.places(input.volume) > 0) reject(VenueCode.PRICE_VOLUME_PRECISION_ERROR, 'Volume is a whole number of contracts.');
    if (dec.lt(input.volume, spec.minOrderVolume)) reject(VenueCode.ORDER_VOLUME_TOO_SMALL, `Volume ${input.volume} is below the minimum ${spec.minOrderVolume}.`);
    const max = input.type === 'MARKET' ? spec.maxMarketVolume : spec.maxLimitVolume;
    if (dec.gt(input.volume, max)) reject(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, `Volume ${input.volume} is above the maximum ${max}.`);
    const lots = toUnits(input.volume, 0)!;
    let limitTicks: number | undefined;
    if (input.type === 'LIMIT') {
      if (dec.places(input.price!) > spec.pricePrecision) reject(VenueCode.BAD_PRECISION, `Price has more than ${spec.pricePrecision} decimal places.`);
      if (!dec.isPositive(input.price!)) reject(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, 'Price must be positive.');
      limitTicks = toUnits(input.price!, spec.pricePrecision)!;
    } else {
      const best = market.book.best(input.side === 'BUY' ? 'SELL' : 'BUY');
      if (!best) reject(VenueCode.NO_DEPTH, 'No depth to fill a market order.');
      limitTicks = Math.round(best!.priceTicks * (input.side === 'BUY' ? 1 + MARKET_BAND : 1 - MARKET_BAND));
    }
    const lockPrice = fromUnits(limitTicks!, spec.pricePrecision);
    let locked = ZERO;
    if (input.open === 'OPEN') {
      locked = this.openCost(account, spec, lockPrice, lots);
      if (dec.lt(w.normal, locked)) reject(VenueCode.BALANCE_NOT_ENOUGH, 'Insufficient margin.');
      w.normal = dec.sub(w.normal, locked);
      w.lock = dec.add(w.lock, locked);
    } else {
      const pos = this.closeTarget(w, spec.symbol, input.side);
      const closable = pos ? pos.lots - pos.pendingCloseLots : 0;
      if (lots > closable) reject(VenueCode.CLOSE_EXCEEDS_POSITION, `Exceeded the close available: ${closable} contracts.`);
      pos!.pendingCloseLots += lots;
    }
    const order: FuturesOrder = {
      orderId: this.hooks.nextOrderId(),
      clientOrderId: input.clientOrderId,
      account,
      contract: spec.symbol,
      side: input.side,
      type: input.type,
      open: input.open,
      positionType: input.positionType,
      price: input.type === 'LIMIT' ? input.price : undefined,
      volume: input.volume,
      lots,
      executedLots: 0,
      executedValue: ZERO,
      locked,
      lockPrice,
      status: 'NEW',
      createdAt: at,
      updatedAt: at,
    };
    this.orders.set(order.orderId, order);
    this.live.add(order);
    if (order.clientOrderId !== undefined) this.byClientId.set(clientKey(account, order.contract, order.clientOrderId), order);
    const tif = input.timeInForce;
    // Refused by its time in force before it trades: accepted, then cancelled at once.
    if ((tif === 'POST_ONLY' && market.book.wouldCross(order.side, limitTicks!)) || (tif === 'FOK' && market.book.lotsTaken(order.side, limitTicks!) < lots)) {
      this.release(order, at, 'CANCELED');
      return order;
    }
    const rests = order.type === 'LIMIT' && tif !== 'IOC' && tif !== 'FOK';
    market.execute({ id: order.orderId, owner: account, side: order.side, limitTicks, lots }, at, rests);
    if (!rests) this.release(order, at, order.executedLots === order.lots ? 'FILLED' : 'CANCELED');
    return order;
  }

  /** Margin plus the largest fee an OPEN of `lots` at `price` can cost. */
  private openCost(account: string, spec: ContractSpec, price: Decimal, lots: number): Decimal {
    const n = this.notional(spec, price, lots);
    return dec.add(dec.div(n, String(this.leverageOf(account, spec)) as Decimal), dec.mul(n, dec.max(this.fees.maker, this.fees.taker)));
  }

  leverageOf(account: string, spec: ContractSpec): number {
    return this.wallet(account).leverage.get(spec.symbol) ?? spec.leverage;
  }

  /** Sets a contract's leverage: refused while the account has orders open on it (their margin was locked at the old one). */
  setLeverage(account: string, contract: string, level: number): void {
    const spec = this.spec(contract);
    if (!Number.isInteger(level) || level < 1 || level > 125) reject(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, 'nowLevel must be an integer from 1 to 125.');
    if ([...this.live].some((o) => o.account === account && o.contract === spec.symbol)) reject(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, 'Leverage cannot change while orders are open on this contract.');
    this.wallet(account).leverage.set(spec.symbol, level);
  }

  settle(fill: MarketFill, visibleAt: (at: number) => number): void {
    const taker = this.orders.get(fill.takerId);
    const maker = this.orders.get(fill.maker.id);
    const buyIsTaker = fill.takerSide === 'BUY';
    const parties: FillParties = {
      bidId: buyIsTaker ? fill.takerId : fill.maker.id,
      askId: buyIsTaker ? fill.maker.id : fill.takerId,
      bidUser: buyIsTaker ? fill.takerOwner : fill.maker.owner,
      askUser: buyIsTaker ? fill.maker.owner : fill.takerOwner,
      // Both legs are this account's orders: myTrades lists the trade once from each side.
      isSelf: fill.takerOwner === fill.maker.owner && fill.takerOwner !== OTHERS,
    };
    for (const [order, isMaker] of [
      [taker, false],
      [maker, true],
    ] as const) {
      if (order) this.apply(order, fill, isMaker, visibleAt(fill.at), parties);
    }
  }

  private apply(o: FuturesOrder, fill: MarketFill, isMaker: boolean, visibleAt: number, parties: FillParties): void {
    const spec = this.spec(o.contract);
    const w = this.wallet(o.account);
    const price = fromUnits(fill.priceTicks, spec.pricePrecision);
    const notional = this.notional(spec, price, fill.lots);
    const fee = dec.mul(notional, isMaker ? this.fees.maker : this.fees.taker);
    this.feesCollected.set(w.coin, dec.add(this.feesCollected.get(w.coin) ?? ZERO, fee));
    if (o.open === 'OPEN') {
      const share = this.openCost(o.account, spec, o.lockPrice, fill.lots);
      o.locked = dec.sub(o.locked, share);
      w.lock = dec.sub(w.lock, share);
      // Net model: an OPEN against the opposite position reduces it first; the rest opens.
      const against = this.positionModel === 1 ? w.positions.get(o.contract) : undefined;
      const reduced = against && against.side !== o.side ? Math.min(fill.lots, against.lots) : 0;
      const opened = fill.lots - reduced;
      const leverage = String(this.leverageOf(o.account, spec)) as Decimal;
      const margin = reduced === 0 ? dec.div(notional, leverage) : dec.div(this.notional(spec, price, opened), leverage);
      w.normal = dec.add(w.normal, dec.sub(dec.sub(share, margin), fee));
      if (reduced > 0) {
        // CLOSE orders may not reserve more than is left: the newest give way.
        if (against!.pendingCloseLots > against!.lots - reduced) this.cancelCloses(o.account, against!, against!.lots - reduced, fill.at);
        w.normal = dec.add(w.normal, this.reduce(w, spec, against!, price, reduced));
      }
      if (opened > 0) {
        const key = this.positionKey(o.contract, o.side);
        let pos = w.positions.get(key);
        if (!pos) {
          pos = { contract: o.contract, side: o.side, positionType: o.positionType, lots: 0, openValue: ZERO, openPrice: price, margin: ZERO, realized: ZERO, pendingCloseLots: 0, closedLots: 0 };
          w.positions.set(key, pos);
        } else if (pos.lots === 0) Object.assign(pos, { side: o.side, positionType: o.positionType, openPrice: price });
        pos.lots += opened;
        pos.openValue = dec.add(pos.openValue, dec.mul(price, fromUnits(opened, 0)));
        pos.margin = dec.add(pos.margin, margin);
      }
    } else {
      const pos = this.closeTarget(w, o.contract, o.side)!;
      pos.pendingCloseLots -= fill.lots;
      w.normal = dec.add(w.normal, dec.sub(this.reduce(w, spec, pos, price, fill.lots), fee));
    }
    o.executedLots += fill.lots;
    o.executedValue = dec.add(o.executedValue, dec.mul(price, fromUnits(fill.lots, 0)));
    o.updatedAt = fill.at;
    if (o.executedLots === o.lots) o.status = 'FILLED';
    else if (o.status !== 'PENDING_CANCEL') o.status = 'PARTIALLY_FILLED';
    if (o.status === 'FILLED') this.release(o, fill.at, 'FILLED');
    this.hooks.onTrade({
      id: fill.tradeId,
      market: 'futures',
      symbol: o.contract,
      account: o.account,
      orderId: o.orderId,
      side: o.side,
      takerSide: fill.takerSide,
      price,
      qty: fromUnits(fill.lots, 0),
      quote: notional,
      fee,
      feeCoin: w.coin,
      isMaker,
      ...parties,
      at: fill.at,
      visibleAt,
    });
  }

  /**
   * Takes `lots` off a position at `price`: realises their PnL and frees their share of the
   * margin. Returns margin freed plus PnL, for the wallet.
   */
  private reduce(w: FuturesWallet, spec: ContractSpec, pos: Position, price: Decimal, lots: number): Decimal {
    const avg = dec.div(pos.openValue, fromUnits(pos.lots, 0));
    const diff = pos.side === 'BUY' ? dec.sub(price, avg) : dec.sub(avg, price);
    const pnl = dec.mul(dec.mul(diff, fromUnits(lots, 0)), spec.multiplier);
    const released = dec.div(dec.mul(pos.margin, fromUnits(lots, 0)), fromUnits(pos.lots, 0));
    const valueOut = dec.div(dec.mul(pos.openValue, fromUnits(lots, 0)), fromUnits(pos.lots, 0));
    pos.lots -= lots;
    pos.closedLots += lots;
    pos.margin = pos.lots === 0 ? ZERO : dec.sub(pos.margin, released);
    pos.openValue = pos.lots === 0 ? ZERO : dec.sub(pos.openValue, valueOut);
    pos.realized = dec.add(pos.realized, pnl);
    w.realized = dec.add(w.realized, pnl);
    return dec.add(released, pnl);
  }

  /**
   * Net model: cancels the account's open CLOSE orders on `pos`, newest first, until they
   * reserve at most `keep` contracts (an OPEN fill took the rest of the position).
   */
  private cancelCloses(account: string, pos: Position, keep: number, at: number): void {
    const closes = [...this.live].filter((x) => x.account === account && x.contract === pos.contract && x.open === 'CLOSE' && x.side !== pos.side && !FINAL.has(x.status));
    for (let i = closes.length - 1; i >= 0 && pos.pendingCloseLots > keep; i--) {
      this.markets.get(pos.contract)!.book.remove(closes[i]!.orderId);
      this.release(closes[i]!, at, 'CANCELED');
    }
  }

  /** Ends an order: gives back what it still holds (margin lock, or reserved close volume). */
  private release(o: FuturesOrder, at: number, status: VenueStatus): void {
    const w = this.wallet(o.account);
    if (o.open === 'OPEN') {
      w.lock = dec.sub(w.lock, o.locked);
      w.normal = dec.add(w.normal, o.locked);
      o.locked = ZERO;
    } else {
      const pos = this.closeTarget(w, o.contract, o.side);
      if (pos) pos.pendingCloseLots -= o.lots - o.executedLots;
    }
    o.status = status;
    o.updatedAt = at;
  }

  requestCancel(o: FuturesOrder, at: number): void {
    if (FINAL.has(o.status)) reject(VenueCode.ORDER_NOT_SUPPORT_CANCELLATION, `Order ${o.orderId} is ${o.status} and cannot be canceled.`);
    o.status = 'PENDING_CANCEL';
    o.updatedAt = at;
  }

  settleCancel(o: FuturesOrder, at: number): void {
    if (o.status !== 'PENDING_CANCEL') return;
    this.markets.get(o.contract)!.book.remove(o.orderId);
    this.release(o, at, o.executedLots === o.lots ? 'FILLED' : 'CANCELED');
  }

  find(account: string, contract: string | undefined, orderId?: string, clientOrderId?: string): FuturesOrder | undefined {
    const byClient = clientOrderId !== undefined && contract !== undefined ? this.byClientId.get(clientKey(account, contract, clientOrderId)) : undefined;
    const o = orderId !== undefined ? this.orders.get(orderId) : byClient;
    return o && o.account === account && (contract === undefined || o.contract === contract) ? o : undefined;
  }

  open(account: string, contract?: string): FuturesOrder[] {
    return stillOpen(this.live, (o) => o.account === account && (contract === undefined || o.contract === contract));
  }

  unrealized(pos: Position): Decimal {
    if (pos.lots === 0) return ZERO;
    const spec = this.spec(pos.contract);
    const m = this.markets.get(pos.contract)!;
    const mark = fromUnits(m.midTicks, spec.pricePrecision);
    const avg = dec.div(pos.openValue, fromUnits(pos.lots, 0));
    const diff = pos.side === 'BUY' ? dec.sub(mark, avg) : dec.sub(avg, mark);
    return dec.round(dec.mul(dec.mul(diff, fromUnits(pos.lots, 0)), spec.multiplier), 8);
  }
}
