// Typed request parameters for every endpoint, and how they are written: the JSON body of a
// POST in the field order the venue documents, the query string of a GET in the order given.
import type { Decimal } from '../core/decimal.js';
import type { VenueOrderId } from '../core/ids.js';
import type { KlineInterval } from '../core/market.js';
import type { OrderType, Side } from '../core/types.js';
import type { EndpointId } from './endpoints.js';
import { RawJsonNumber, type JsonValue } from './json.js';

export interface SpotOrderParams {
  symbol: string;
  side: Side;
  type: OrderType;
  /** Base quantity; for MARKET BUY the quote amount to spend. */
  volume: Decimal;
  price?: Decimal;
  newClientOrderId?: string;
}

export type BatchOrderItem = Omit<SpotOrderParams, 'symbol'>;

export interface FuturesOrderParams {
  contractName: string;
  side: Side;
  type: OrderType;
  volume: Decimal;
  price?: Decimal;
  open: 'OPEN' | 'CLOSE';
  positionType: 1 | 2;
  /** IOC, FOK or POST_ONLY; the venue's default (good till cancelled) when absent. */
  timeInForce?: 'IOC' | 'FOK' | 'POST_ONLY';
  clientOrderId?: string;
}

type NoParams = Record<string, never>;

export interface RequestParams {
  'spot.ping': NoParams;
  'spot.time': NoParams;
  'spot.symbols': NoParams;
  'spot.depth': { symbol: string; limit?: number };
  'spot.ticker': { symbol: string };
  'spot.trades': { symbol: string; limit?: number };
  'spot.klines': { symbol: string; interval: KlineInterval; limit?: number; startTime?: number; endTime?: number };
  'spot.order': SpotOrderParams;
  'spot.orderTest': SpotOrderParams;
  'spot.batchOrders': { symbol: string; orders: readonly BatchOrderItem[] };
  'spot.queryOrder': { symbol: string; orderId?: VenueOrderId; newClientOrderId?: string };
  'spot.cancel': { symbol: string; orderId?: VenueOrderId; newClientOrderId?: string };
  'spot.batchCancel': { symbol: string; orderIds: readonly VenueOrderId[] };
  'spot.openOrders': { symbol: string; limit?: number };
  'spot.myTrades': { symbol: string; limit?: number; fromId?: string };
  'spot.account': NoParams;
  'futures.time': NoParams;
  'futures.contracts': NoParams;
  'futures.ticker': { contractName: string };
  'futures.depth': { contractName: string; limit?: number };
  'futures.klines': { contractName: string; interval: KlineInterval; limit?: number; startTime?: number; endTime?: number };
  'futures.order': FuturesOrderParams;
  'futures.queryOrder': { contractName: string; orderId?: VenueOrderId; clientOrderId?: string };
  'futures.cancel': { contractName: string; orderId: VenueOrderId };
  'futures.openOrders': { contractName?: string };
  'futures.myTrades': { contractName: string; limit?: number; fromId?: string };
  'futures.account': NoParams;
  'futures.editLever': { contractName: string; nowLevel: number };
}

/** The JSON body of a POST, in the field order the venue documents. */
export function encodeBody<E extends EndpointId>(endpoint: E, params: RequestParams[E]): JsonValue {
  switch (endpoint) {
    case 'spot.batchOrders': {
      const p = params as RequestParams['spot.batchOrders'];
      return {
        symbol: p.symbol,
        orders: p.orders.map((o) => ({
          price: o.price,
          volume: o.volume,
          side: o.side,
          batchType: o.type,
          newClientOrderId: o.newClientOrderId,
        })),
      };
    }
    case 'spot.batchCancel': {
      // The venue wants ids as JSON numbers; they exceed 2^53, so they are written from their digits.
      const p = params as RequestParams['spot.batchCancel'];
      return { symbol: p.symbol, orderIds: p.orderIds.map((id) => new RawJsonNumber(id)) };
    }
    default:
      return { ...(params as Record<string, JsonValue | undefined>) };
  }
}

/** The query string of a GET, parameters in the order given, undefined ones left out. */
export function encodeQuery(params: object): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.join('&');
}
