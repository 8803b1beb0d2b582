import type { Decimal } from './decimal.js';
import type { ClientOrderId, VenueOrderId } from './ids.js';

export type Market = 'spot' | 'futures';
export type Side = 'BUY' | 'SELL';
export type OrderType = 'LIMIT' | 'MARKET';

/**
 * Canonical order status inside sluice. `pending`: journaled, no answer yet. `unknown`: the
 * answer was lost; only the reconciler settles it. `pending_cancel`: the venue accepted our
 * cancel and has not settled it; the order can still fill meanwhile.
 */
export type OrderStatus = 'pending' | 'open' | 'partially_filled' | 'pending_cancel' | 'filled' | 'canceled' | 'rejected' | 'unknown';

export const FINAL_STATUSES: ReadonlySet<OrderStatus> = new Set(['filled', 'canceled', 'rejected']);

export interface PlaceIntent {
  kind: 'place';
  intentId: string;
  strategyId: string;
  market: Market;
  symbol: string;
  side: Side;
  type: OrderType;
  /** Base quantity; for a spot MARKET BUY, the quote amount to spend (venue rule). */
  volume: Decimal;
  price?: Decimal;
  /** Futures only. */
  open?: 'OPEN' | 'CLOSE';
  positionType?: 1 | 2;
  /** Futures only: IOC, FOK or POST_ONLY (the venue's default when absent). */
  timeInForce?: 'IOC' | 'FOK' | 'POST_ONLY';
  clientOrderId: ClientOrderId;
  /**
   * Sent only once this order of ours has ended (replacing a futures close: the venue holds the
   * old order's volume until its cancel settles); dropped if that order filled instead.
   */
  after?: ClientOrderId;
}

export interface CancelIntent {
  kind: 'cancel';
  intentId: string;
  strategyId: string;
  market: Market;
  symbol: string;
  clientOrderId: ClientOrderId;
  venueOrderId?: VenueOrderId;
}

export type OrderIntent = PlaceIntent | CancelIntent;

/** 1..10 intents of one market, symbol and kind. */
export interface Batch<I extends OrderIntent = OrderIntent> {
  market: Market;
  symbol: string;
  kind: I['kind'];
  items: readonly I[];
}

/**
 * How an order's request carried its client order id to the venue: in an order request of its
 * own, in a batch's item, or not at all (a batch sent without them). A venue may keep one and
 * drop the other (the notes' batch item shows none), so a lookup by client order id proves an
 * order absent only where orders sent the same way have been found by theirs.
 */
export type ClientIdCarrier = 'order' | 'batch' | 'none';

export interface Order {
  clientOrderId: ClientOrderId;
  venueOrderId?: VenueOrderId;
  strategyId: string;
  market: Market;
  symbol: string;
  side: Side;
  type: OrderType;
  volume: Decimal;
  price?: Decimal;
  executedVolume: Decimal;
  avgPrice?: Decimal;
  status: OrderStatus;
  /** When its intent was journaled (local epoch ms): the order cannot be on the venue before. */
  createdAt: number;
  updatedAt: number;
  /** Futures only: whether it opens or closes a position, and cross (1) or isolated (2), as sent. */
  open?: 'OPEN' | 'CLOSE';
  positionType?: 1 | 2;
  /** Futures only: IOC, FOK or POST_ONLY, as sent (replace() keeps it). */
  timeInForce?: 'IOC' | 'FOK' | 'POST_ONLY';
}

export interface Fill {
  /** Venue trade id: the key that makes applying fills idempotent. */
  tradeId: string;
  market: Market;
  symbol: string;
  venueOrderId: VenueOrderId;
  side: Side;
  price: Decimal;
  volume: Decimal;
  fee: Decimal;
  feeAsset: string;
  isMaker: boolean;
  time: number;
}

export interface Position {
  market: Market;
  symbol: string;
  /** Signed: positive long, negative short. */
  quantity: Decimal;
  avgEntryPrice: Decimal;
  realizedPnl: Decimal;
  fees: Decimal;
}

/** A position as strategies read it (ctx.position, ctx.ownPosition): with the fees paid in other assets than the quote. */
export interface StrategyPosition extends Position {
  /** Fees paid in assets other than the quote, per asset: on spot, a buy's fee the venue took in the base asset. */
  otherFees: Readonly<Record<string, Decimal>>;
  /**
   * What these fills left held: on spot, `quantity` less the fees taken in the base asset (what a
   * sell that closes the position can sell); on futures, `quantity`.
   */
  netQuantity: Decimal;
  /**
   * The part of `quantity` (and `netQuantity`) the venue said executed whose fills are not booked
   * yet (signed, as `quantity`; zero once they are). `avgEntryPrice`, `realizedPnl`, `fees` and
   * `otherFees` come from booked fills only: they leave this part out.
   */
  unbookedQuantity: Decimal;
}

export interface Balance {
  asset: string;
  free: Decimal;
  locked: Decimal;
}

/**
 * The identity of a fill: one side of one trade. The venue does not say trade ids are unique
 * across symbols or markets, and a self-trade (both the bid and the ask ours) is one trade id
 * with two sides, each a fill of ours. A key any narrower could silently drop a real fill.
 */
export function fillKey(fill: Pick<Fill, 'market' | 'symbol' | 'tradeId' | 'side'>): string {
  return `${fill.market}:${fill.symbol}:${fill.tradeId}:${fill.side}`;
}

/** What an operator alert is about (ops/alerts.ts sends them; docs/deployment.md lists each). */
export type AlertKind = 'ban' | 'halt' | 'drift' | 'plugin_disabled' | 'recording' | 'journal' | 'stop_unsettled' | 'venue_unreachable' | 'venue_reachable' | 'drift_resolved' | 'exit' | 'loss_limit';

/**
 * A strategy's protective exits (its config entry's `exits`): percentages of the price, each
 * above 0 (stop-loss and trailing stop below 100); absent means that exit is off.
 */
export interface ExitSettings {
  readonly stopLossPct?: Decimal;
  readonly takeProfitPct?: Decimal;
  readonly trailingStopPct?: Decimal;
  /** After an exit, the strategy's new orders in that symbol are refused this long (0: none). */
  readonly cooldownMs: number;
}

/** A strategy's loss limit: the most it may lose in one UTC day (quote currency; futures: margin coin), above 0. */
export interface LossLimitSettings {
  readonly daily: Decimal;
}

/** Why an exit closed a strategy's position. */
export type ExitReason = 'stop_loss' | 'take_profit' | 'trailing_stop';

/** A part of a tape by time (ms since the epoch, each end optional): a backtest over `from` to `to`. */
export interface TapeWindow {
  from?: number;
  to?: number;
}
