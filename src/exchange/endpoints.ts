// Every endpoint sluice speaks, as data. Limits are per rolling 2 s window and come from the
// contract (exchange-rest-api.md); rows marked `ours` are not in the contract and carry a
// conservative limit of our choosing (override in config under venue.limits).
import type { HttpMethod } from '../core/ports.js';
import type { Market } from '../core/types.js';

export type Security = 'NONE' | 'TRADE' | 'USER_DATA' | 'USER_STREAM' | 'MARKET_DATA';

export interface Endpoint {
  id: EndpointId;
  market: Market;
  method: HttpMethod;
  path: string;
  security: Security;
  /** Requests allowed in any rolling 2 s window. */
  limitPer2s: number;
  /** Items per request for batch endpoints. */
  maxBatch?: number;
  /** Places orders: an ambiguous outcome must never be retried blindly. */
  placesOrders: boolean;
  /** Limit not given by the contract; ours to choose. */
  ours?: true;
}

export const WINDOW_MS = 2000;

const table = {
  // spot, public
  'spot.ping': { market: 'spot', method: 'GET', path: '/sapi/v1/ping', security: 'NONE', limitPer2s: 20, ours: true },
  'spot.time': { market: 'spot', method: 'GET', path: '/sapi/v1/time', security: 'NONE', limitPer2s: 20, ours: true },
  'spot.symbols': { market: 'spot', method: 'GET', path: '/sapi/v1/symbols', security: 'NONE', limitPer2s: 20, ours: true },
  'spot.depth': { market: 'spot', method: 'GET', path: '/sapi/v1/depth', security: 'NONE', limitPer2s: 20, ours: true },
  'spot.ticker': { market: 'spot', method: 'GET', path: '/sapi/v1/ticker', security: 'NONE', limitPer2s: 20, ours: true },
  'spot.trades': { market: 'spot', method: 'GET', path: '/sapi/v1/trades', security: 'NONE', limitPer2s: 20, ours: true },
  'spot.klines': { market: 'spot', method: 'GET', path: '/sapi/v1/klines', security: 'NONE', limitPer2s: 20, ours: true },
  // spot, signed (contract)
  'spot.order': { market: 'spot', method: 'POST', path: '/sapi/v1/order', security: 'TRADE', limitPer2s: 100, placesOrders: true },
  'spot.orderTest': { market: 'spot', method: 'POST', path: '/sapi/v1/order/test', security: 'TRADE', limitPer2s: 100 },
  'spot.batchOrders': { market: 'spot', method: 'POST', path: '/sapi/v1/batchOrders', security: 'TRADE', limitPer2s: 50, maxBatch: 10, placesOrders: true },
  'spot.queryOrder': { market: 'spot', method: 'GET', path: '/sapi/v1/order', security: 'USER_DATA', limitPer2s: 20 },
  'spot.cancel': { market: 'spot', method: 'POST', path: '/sapi/v1/cancel', security: 'TRADE', limitPer2s: 100 },
  'spot.batchCancel': { market: 'spot', method: 'POST', path: '/sapi/v1/batchCancel', security: 'TRADE', limitPer2s: 50, maxBatch: 10 },
  'spot.openOrders': { market: 'spot', method: 'GET', path: '/sapi/v1/openOrders', security: 'USER_DATA', limitPer2s: 20 },
  'spot.myTrades': { market: 'spot', method: 'GET', path: '/sapi/v1/myTrades', security: 'USER_DATA', limitPer2s: 20 },
  'spot.account': { market: 'spot', method: 'GET', path: '/sapi/v1/account', security: 'USER_DATA', limitPer2s: 20 },
  // futures, public
  'futures.time': { market: 'futures', method: 'GET', path: '/fapi/v1/time', security: 'NONE', limitPer2s: 20, ours: true },
  'futures.contracts': { market: 'futures', method: 'GET', path: '/fapi/v1/contracts', security: 'NONE', limitPer2s: 20, ours: true },
  'futures.ticker': { market: 'futures', method: 'GET', path: '/fapi/v1/ticker', security: 'NONE', limitPer2s: 20, ours: true },
  'futures.depth': { market: 'futures', method: 'GET', path: '/fapi/v1/depth', security: 'NONE', limitPer2s: 20, ours: true },
  // The notes [2+]: a contract's candles (contractName, interval, limit, startTime, endTime).
  'futures.klines': { market: 'futures', method: 'GET', path: '/fapi/v1/klines', security: 'NONE', limitPer2s: 20, ours: true },
  // futures, signed (cancel, myTrades, account from the contract; the rest ours)
  'futures.order': { market: 'futures', method: 'POST', path: '/fapi/v1/order', security: 'TRADE', limitPer2s: 20, placesOrders: true, ours: true },
  'futures.queryOrder': { market: 'futures', method: 'GET', path: '/fapi/v1/order', security: 'USER_DATA', limitPer2s: 20, ours: true },
  'futures.cancel': { market: 'futures', method: 'POST', path: '/fapi/v1/cancel', security: 'TRADE', limitPer2s: 20 },
  'futures.openOrders': { market: 'futures', method: 'GET', path: '/fapi/v1/openOrders', security: 'USER_DATA', limitPer2s: 20, ours: true },
  'futures.myTrades': { market: 'futures', method: 'GET', path: '/fapi/v1/myTrades', security: 'USER_DATA', limitPer2s: 20 },
  'futures.account': { market: 'futures', method: 'GET', path: '/fapi/v1/account', security: 'USER_DATA', limitPer2s: 20 },
  // The notes [2+]: a contract's leverage, set once at start-up from the config.
  'futures.editLever': { market: 'futures', method: 'POST', path: '/fapi/v1/edit_lever', security: 'TRADE', limitPer2s: 20, ours: true },
} as const satisfies Record<string, Omit<Endpoint, 'id' | 'placesOrders'> & { placesOrders?: boolean }>;

export type EndpointId = keyof typeof table;

export const ENDPOINTS: Readonly<Record<EndpointId, Endpoint>> = Object.freeze(
  Object.fromEntries(
    Object.entries(table).map(([id, row]) => [id, Object.freeze({ placesOrders: false, ...row, id } as Endpoint)]),
  ) as Record<EndpointId, Endpoint>,
);

export const ENDPOINT_IDS = Object.keys(ENDPOINTS) as EndpointId[];

export function isSigned(e: Endpoint): boolean {
  return e.security === 'TRADE' || e.security === 'USER_DATA';
}

export function needsKey(e: Endpoint): boolean {
  return e.security !== 'NONE';
}

/** The endpoint a request addresses, or undefined for an unknown route. */
export function endpointFor(method: string, path: string): Endpoint | undefined {
  return ENDPOINT_IDS.map((id) => ENDPOINTS[id]).find((e) => e.method === method && e.path === path);
}

/** Limit per 2 s window for every endpoint, with config overrides applied. */
export function endpointLimits(overrides: Partial<Record<EndpointId, number>> = {}, share = 1): Record<EndpointId, number> {
  return Object.fromEntries(ENDPOINT_IDS.map((id) => [id, sharedLimit(overrides[id] ?? ENDPOINTS[id].limitPer2s, share)])) as Record<EndpointId, number>;
}

/**
 * This daemon's share of a per-key limit, rounded down (the tiny epsilon keeps 100 x 0.29 at 29,
 * not 28.999...), so daemons whose shares sum to 1 never exceed the limit together.
 */
export function sharedLimit(limit: number, share: number): number {
  return Math.floor(limit * share + 1e-9);
}
