// Venue profiles: how closely the simulator follows the letter of the contract and the live
// variants the notes record. The simulator is written by the same hands as the client, so by
// default it shares the client's assumptions (`lenient`); `strict` drops every convenience the
// contract does not promise and answers in the live shapes, so a client tested against it codes
// to the contract and not to us. Each field is one knob; README.md has the table.

export interface VenueProfile {
  /** 'strict', 'lenient', or a name of your own for a custom mix. */
  readonly name: string;
  /** openOrders items (spot and futures) carry `clientOrderId`. Strict: the field is absent. */
  readonly openOrdersClientOrderId: boolean;
  /**
   * Query order and cancel (spot and futures) find an order by client order id when no orderId
   * is given. Strict: orderId is mandatory (-1102 without it, even with a client id).
   */
  readonly lookupByClientOrderId: boolean;
  /**
   * GET /fapi/v1/openOrders honours `limit` (default 100, max 1000, newest first) as spot does.
   * Lenient: every open order, whatever `limit` says.
   */
  readonly futuresOpenOrdersLimit: boolean;
  /**
   * Most trades one futures myTrades page holds, whatever `limit` asks (a shorter page, no
   * error). Lenient 1000 (the `limit` maximum), strict 100 as some venues cap it.
   */
  readonly futuresMyTradesPageCap: number;
  /**
   * Spot create-order answer. 'strings': orderId a digit string, status a string. 'live': the
   * GB/KB form: orderId a bare JSON number written from its digits (beyond 2^53), plus
   * orderIdString, and status the number 0 while NEW.
   */
  readonly spotOrderAck: 'strings' | 'live';
  /**
   * myTrades items carry `orderId` (and futures items `id` beside `tradeId`). Strict: they do
   * not, as in the notes' field lists; spot items carry `bidUserId`/`askUserId` instead of
   * `amount`, futures items carry `bidUserId`/`askUserId` too. The client finds its order as
   * bidId (isBuyer) or askId.
   */
  readonly tradeOrderIds: boolean;
  /**
   * Decimals of openOrders, query order and myTrades items and of spot balances as JSON
   * numbers with trailing zeros to 8 places (`0.00100000`), written from their decimal text.
   * Lenient: decimal strings.
   */
  readonly decimalsAsNumbers: boolean;
  /**
   * GET /fapi/v1/account sends null where live venues do: achievedAmount, unrealizedAmount,
   * totalEquity, and per position openPrice, unRealizedAmount, holdAmount, realizedAmount.
   */
  readonly futuresAccountNulls: boolean;
  /**
   * What batchCancel answers when the `orderIds` list itself is unusable (missing, not an
   * array, empty, an element that is not an id): 'error' -1102, or 'empty' HTTP 200 `{}` as
   * the notes record.
   */
  readonly batchCancelBadList: 'error' | 'empty';
  /**
   * batchOrders items keep their `newClientOrderId`. False: the venue drops it without a word
   * (the notes' item shape has none), so those orders have no client order id on the venue,
   * while an order request's own is kept and found.
   */
  readonly batchItemClientOrderIds: boolean;
  /**
   * Order requests (spot and futures) take a client order id. False: one carrying
   * `newClientOrderId` (futures: `clientOrderId`) is refused with -1103, as a venue that takes
   * only the contract's create-order fields would (the notes list the id as optional).
   */
  readonly orderClientOrderIds: boolean;
  /**
   * GET /sapi/v1/symbols lists `marketBuyMin` and `marketSellMin`. False: left out, as some
   * venues do (the notes), while the venue still enforces them.
   */
  readonly symbolsMarketMinimums: boolean;
}

export const LENIENT_PROFILE: VenueProfile = Object.freeze({
  name: 'lenient',
  openOrdersClientOrderId: true,
  lookupByClientOrderId: true,
  futuresOpenOrdersLimit: false,
  futuresMyTradesPageCap: 1000,
  spotOrderAck: 'strings',
  tradeOrderIds: true,
  decimalsAsNumbers: false,
  futuresAccountNulls: false,
  batchCancelBadList: 'error',
  batchItemClientOrderIds: true,
  orderClientOrderIds: true,
  symbolsMarketMinimums: true,
});

export const STRICT_PROFILE: VenueProfile = Object.freeze({
  name: 'strict',
  openOrdersClientOrderId: false,
  lookupByClientOrderId: false,
  futuresOpenOrdersLimit: true,
  futuresMyTradesPageCap: 100,
  spotOrderAck: 'live',
  tradeOrderIds: false,
  decimalsAsNumbers: true,
  futuresAccountNulls: true,
  batchCancelBadList: 'empty',
  batchItemClientOrderIds: true,
  orderClientOrderIds: true,
  symbolsMarketMinimums: true,
});

export type ProfileOption = 'strict' | 'lenient' | VenueProfile;

/** The contract's letter, unless a caller asks for the older conveniences. */
export const DEFAULT_PROFILE: ProfileOption = 'strict';

/** The profile an option names (a custom one is checked and frozen). */
export function resolveProfile(option: ProfileOption | undefined = DEFAULT_PROFILE): VenueProfile {
  if (option === 'strict') return STRICT_PROFILE;
  if (option === 'lenient') return LENIENT_PROFILE;
  if (option === null || typeof option !== 'object') throw new RangeError(`unknown venue profile ${String(option)}: use 'strict', 'lenient' or a VenueProfile`);
  const missing = (Object.keys(LENIENT_PROFILE) as Array<keyof VenueProfile>).filter((k) => option[k] === undefined);
  if (missing.length > 0) throw new RangeError(`venue profile ${option.name ?? '(unnamed)'} lacks ${missing.join(', ')}: spread STRICT_PROFILE or LENIENT_PROFILE and change what you need`);
  if (!Number.isSafeInteger(option.futuresMyTradesPageCap) || option.futuresMyTradesPageCap < 1) {
    throw new RangeError(`venue profile ${option.name}: futuresMyTradesPageCap must be a positive integer`);
  }
  return Object.freeze({ ...option });
}
