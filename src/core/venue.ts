// What the venue says about the account, decoded: the values the read ports hand the
// reconciler. Venue ids are digit strings (they exceed 2^53); decimals are Decimal strings.
import type { Decimal } from './decimal.js';
import type { VenueOrderId } from './ids.js';
import type { Balance, OrderStatus, OrderType, Side } from './types.js';

/** One order as the venue lists it (openOrders, query order). */
export interface VenueOrder {
  orderId: VenueOrderId;
  /** Only where the venue echoes it (not every venue does, and openOrders often does not). */
  clientOrderId?: string;
  symbol: string;
  side: Side;
  type: OrderType;
  price?: Decimal;
  origQty: Decimal;
  executedQty: Decimal;
  avgPrice?: Decimal;
  status: OrderStatus;
  /** The venue's own spelling of the status, for logs. */
  venueStatus: string;
  /** Venue time the order was created, when the venue says. */
  time?: number;
  /** Futures: OPEN or CLOSE (the venue's `action`), when it says. */
  open?: 'OPEN' | 'CLOSE';
  /** Futures: 1 cross, 2 isolated, when it says. */
  positionType?: number;
}

/** One of the account's own trades (myTrades). A self-trade comes as two: one per side. */
export interface VenueTrade {
  tradeId: string;
  symbol: string;
  /** Our order's venue id, when the item names it; else the bid (buyer) or ask (seller) id is ours. */
  orderId?: VenueOrderId;
  bidId?: VenueOrderId;
  askId?: VenueOrderId;
  price: Decimal;
  qty: Decimal;
  time: number;
  isBuyer: boolean;
  isMaker: boolean;
  /** True when both sides of the trade are this account's (the venue says so, where it does). */
  isSelf?: boolean;
  fee: Decimal;
  feeCoin: string;
}

/** One futures position as the account reports it: long (BUY) or short (SELL), in contracts. */
export interface FuturesPosition {
  contractName: string;
  side: Side;
  volume: Decimal;
  /** The rest may be null live (the notes); absent then. 1 cross, 2 isolated. */
  positionType?: number;
  openPrice?: Decimal;
  avgPrice?: Decimal;
  unrealizedPnl?: Decimal;
  realizedPnl?: Decimal;
  margin?: Decimal;
}

export interface FuturesAccount {
  marginCoin: string;
  available?: Decimal;
  locked?: Decimal;
  unrealizedPnl?: Decimal;
  realizedPnl?: Decimal;
  positions: FuturesPosition[];
}

/** An item of a list answer that could not be read: left out of every decision, never a zero. */
export interface SkippedItem {
  /** Where it was, e.g. body[3] or account[0].positionVos[1].positions[0]. */
  path: string;
  problem: string;
  /**
   * What it was about, when that part could be read: the order id (openOrders), trade id
   * (myTrades), asset (balances) or contract name (futures positions). An open order we cannot
   * read is still known to be open; an unreadable position makes its contract unknown.
   */
  key?: string;
}

/** A list answer decoded item by item: one odd item never fails the rest. */
export interface Listing<T> {
  items: T[];
  skipped: SkippedItem[];
}

export type { Balance };

/**
 * Beyond recvWindow and the clock's error: the venue's own time from taking a request to showing
 * its order. An order whose answer was lost is looked up by client order id only this long after
 * it could last have been taken (reconciler/lookups.ts), and its balance hold lasts as long
 * (bookableForMs, below); config refuses a reconcile.unknownTimeoutMs that would give it up before then
 * (config/rules.ts).
 */
export const BOOKING_MARGIN_MS = 1000;

/** How long after a lost answer the venue may still book (and then show) its request. */
export function bookableForMs(recvWindowMs: number, clockErrorMs: number): number {
  return recvWindowMs + clockErrorMs + BOOKING_MARGIN_MS;
}
