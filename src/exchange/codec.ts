// Typed requests and responses for every endpoint. Decoding tolerates the live variants the
// API family is known to send (ids as number, string or one-element array; bare arrays or
// {list}; {code:"0",data} envelopes; numeric or string decimals; status 0 for NEW) and is
// strict otherwise: anything else is a MalformedResponseError naming the field.
//
// Decimals: strings or JSON numbers, a leading sign, and exponent notation ("1e5", 1e-7, as
// some venue serialisers print them) are read exactly; "abc", "NaN", "Infinity", "" and
// exponents beyond +-40 are refused. Prices, quantities and balances must not be negative:
// a balance of "-5" is a broken answer, not a debt (only changes, PnL and fees carry a sign).
import { toDecimal, DecimalFormatError, type Decimal } from '../core/decimal.js';
import { MalformedResponseError } from '../core/errors.js';
import { venueOrderId, type VenueOrderId } from '../core/ids.js';
import type { Depth, Kline, KlineInterval, Level, PublicTrade, SymbolInfo, Ticker, VenueTrade } from '../core/market.js';
import type { Balance, OrderStatus, OrderType, Side } from '../core/types.js';
import type { EndpointId } from './endpoints.js';
import { RawJsonNumber, type JsonValue } from './json.js';

// ---------- requests ----------

export type { Depth, Kline, KlineInterval, Level, PublicTrade, SymbolInfo, Ticker, VenueTrade };

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
  'futures.order': FuturesOrderParams;
  'futures.queryOrder': { contractName: string; orderId?: VenueOrderId; clientOrderId?: string };
  'futures.cancel': { contractName: string; orderId: VenueOrderId };
  'futures.openOrders': { contractName?: string };
  'futures.myTrades': { contractName: string; limit?: number; fromId?: string };
  'futures.account': NoParams;
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

// ---------- responses ----------

export interface ServerTime {
  serverTime: number;
}

export interface ContractInfo {
  symbol: string;
  contractId: number;
  pricePrecision: number;
  multiplier: Decimal;
  minOrderVolume: Decimal;
  status: number;
}

export interface OrderAck {
  orderId: VenueOrderId;
  clientOrderId?: string;
  status: OrderStatus;
  venueStatus: string;
  executedQty?: Decimal;
}

export interface VenueOrder {
  orderId: VenueOrderId;
  clientOrderId?: string;
  symbol: string;
  side: Side;
  type: OrderType;
  price?: Decimal;
  origQty: Decimal;
  executedQty: Decimal;
  avgPrice?: Decimal;
  status: OrderStatus;
  venueStatus: string;
  time?: number;
}

export interface CancelAck {
  orderId: VenueOrderId;
  status?: OrderStatus;
  venueStatus?: string;
}

export interface BatchCancelResult {
  success: VenueOrderId[];
  failed: VenueOrderId[];
}

export interface FuturesPosition {
  contractName: string;
  side: Side;
  positionType: number;
  volume: Decimal;
  openPrice: Decimal;
  avgPrice: Decimal;
  unrealizedPnl: Decimal;
  realizedPnl: Decimal;
  margin: Decimal;
}

export interface FuturesAccount {
  marginCoin: string;
  available: Decimal;
  locked: Decimal;
  unrealizedPnl: Decimal;
  realizedPnl: Decimal;
  positions: FuturesPosition[];
}

export interface ResponseOf {
  'spot.ping': Record<string, never>;
  'spot.time': ServerTime;
  'spot.symbols': SymbolInfo[];
  'spot.depth': Depth;
  'spot.ticker': Ticker;
  'spot.trades': PublicTrade[];
  'spot.klines': Kline[];
  'spot.order': OrderAck;
  'spot.orderTest': Record<string, never>;
  'spot.batchOrders': { ids: VenueOrderId[] };
  'spot.queryOrder': VenueOrder;
  'spot.cancel': CancelAck;
  'spot.batchCancel': BatchCancelResult;
  'spot.openOrders': VenueOrder[];
  'spot.myTrades': VenueTrade[];
  'spot.account': { balances: Balance[] };
  'futures.time': ServerTime;
  'futures.contracts': ContractInfo[];
  'futures.ticker': Ticker;
  'futures.depth': Depth;
  'futures.order': OrderAck;
  'futures.queryOrder': VenueOrder;
  'futures.cancel': CancelAck;
  'futures.openOrders': VenueOrder[];
  'futures.myTrades': VenueTrade[];
  'futures.account': FuturesAccount[];
}

type Obj = Record<string, unknown>;

/** Field readers bound to one endpoint so every failure names the endpoint and the field path. */
class Reader {
  constructor(private readonly endpoint: string) {}

  fail(field: string, problem: string): never {
    throw new MalformedResponseError({ endpoint: this.endpoint }, field, problem);
  }

  obj(v: unknown, path: string): Obj {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(path, `must be an object, got ${kind(v)}`);
    return v as Obj;
  }

  /**
   * A list that may come bare or as {list: [...]}. null means "empty" only where the venue is
   * known to send it (futures `data:null`, null positionVos); anywhere else a null list would
   * turn a broken answer into a silent "no balances" or "no open orders".
   */
  list(v: unknown, path: string, opts: { nullIsEmpty?: boolean } = {}): unknown[] {
    if (Array.isArray(v)) return v;
    if (v === null && opts.nullIsEmpty) return [];
    if (v !== null && typeof v === 'object' && Array.isArray((v as Obj).list)) return (v as Obj).list as unknown[];
    return this.fail(path, `must be a list, got ${kind(v)}`);
  }

  str(o: Obj, key: string, path: string): string {
    const v = o[key];
    if (typeof v === 'string' && v.length > 0) return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    return this.fail(`${path}.${key}`, `must be a non-empty string, got ${kind(v)}`);
  }

  optStr(o: Obj, key: string, path: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null || v === '' || v === '0') return undefined;
    return this.str(o, key, path);
  }

  /** A decimal that must not be negative (price, quantity, balance). */
  dec(o: Obj, key: string, path: string): Decimal {
    const v = this.sdec(o, key, path);
    if (v.startsWith('-')) this.fail(`${path}.${key}`, `must not be negative, got ${kind(o[key])}`);
    return v;
  }

  /** A decimal that may carry a sign (24 h change, PnL, fee rebates). */
  sdec(o: Obj, key: string, path: string): Decimal {
    const v = o[key];
    // toDecimal expands exponents to plain digits: "1e999999999" would build a billion-digit
    // string, and an 80+ character decimal is not a price. Refuse both before converting.
    if (typeof v === 'string') {
      const exp = /e([+-]?\d+)$/i.exec(v.trim());
      if (v.length > 80 || (exp && Math.abs(Number(exp[1])) > 40)) this.fail(`${path}.${key}`, `must be a decimal of sane size, got ${kind(v)}`);
    }
    try {
      return toDecimal(v, `${path}.${key}`, { fromVenue: true });
    } catch (e) {
      if (e instanceof DecimalFormatError) this.fail(`${path}.${key}`, `must be a decimal, got ${kind(v)}`);
      throw e;
    }
  }

  optDec(o: Obj, key: string, path: string): Decimal | undefined {
    const v = o[key];
    return v === undefined || v === null || v === '' ? undefined : this.dec(o, key, path);
  }

  optSdec(o: Obj, key: string, path: string): Decimal | undefined {
    const v = o[key];
    return v === undefined || v === null || v === '' ? undefined : this.sdec(o, key, path);
  }

  int(o: Obj, key: string, path: string): number {
    const v = o[key];
    const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
    if (typeof n === 'number' && Number.isSafeInteger(n)) return n;
    return this.fail(`${path}.${key}`, `must be an integer, got ${kind(v)}`);
  }

  bool(o: Obj, key: string, path: string): boolean {
    const v = o[key];
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 1) return true;
    if (v === 'false' || v === 0) return false;
    return this.fail(`${path}.${key}`, `must be a boolean, got ${kind(v)}`);
  }

  /** Venue id as digits: from a string, a safe integer, or a one-element array of either. */
  id(v: unknown, path: string): VenueOrderId {
    const one = Array.isArray(v) && v.length === 1 ? v[0] : v;
    const text = typeof one === 'number' && Number.isSafeInteger(one) ? String(one) : one;
    if (typeof text === 'string' && /^\d{1,30}$/.test(text)) return venueOrderId(text);
    return this.fail(path, `must be an id of digits, got ${kind(v)}`);
  }

  /** Prefer the string form (orderIdString) the venue gives for ids beyond 2^53. */
  orderId(o: Obj, path: string): VenueOrderId {
    if (o.orderIdString !== undefined && o.orderIdString !== null) return this.id(o.orderIdString, `${path}.orderIdString`);
    return this.id(o.orderId, `${path}.orderId`);
  }

  side(o: Obj, key: string, path: string): Side {
    const v = typeof o[key] === 'string' ? (o[key] as string).toUpperCase() : o[key];
    if (v === 'BUY' || v === 'SELL') return v;
    return this.fail(`${path}.${key}`, `must be BUY or SELL, got ${kind(o[key])}`);
  }

  type(o: Obj, key: string, path: string): OrderType {
    const v = typeof o[key] === 'string' ? (o[key] as string).toUpperCase() : o[key];
    if (v === 'LIMIT' || v === 'MARKET') return v;
    return this.fail(`${path}.${key}`, `must be LIMIT or MARKET, got ${kind(o[key])}`);
  }

  status(o: Obj, key: string, path: string): { status: OrderStatus; venueStatus: string } {
    const raw = o[key];
    const venueStatus = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw : '';
    const status = STATUS_BY_VENUE_TEXT[venueStatus.trim().toUpperCase().replace(/[\s/]+/g, '_')];
    if (status === undefined) this.fail(`${path}.${key}`, `is not an order status we know, got ${kind(raw)}`);
    return { status, venueStatus };
  }
}

// Venue status spellings seen across the API family, normalised to upper snake case.
const STATUS_BY_VENUE_TEXT: Readonly<Record<string, OrderStatus>> = {
  '0': 'open',
  NEW: 'open',
  NEW_: 'open',
  NEW_ORDER: 'open',
  INIT: 'open',
  PARTIALLY_FILLED: 'partially_filled',
  FILLED: 'filled',
  // Still on the book until the venue settles it: it can still fill.
  PENDING_CANCEL: 'open',
  TO_BE_CANCELLED: 'open',
  CANCELED: 'canceled',
  CANCELLED: 'canceled',
  PARTIALLY_FILLED_CANCELED: 'canceled',
  PARTIALLY_FILLED_CANCELLED: 'canceled',
  REJECTED: 'rejected',
};

function kind(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return JSON.stringify(v.length > 30 ? `${v.slice(0, 30)}…` : v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return 'an object';
}

/** Unwraps the futures {code:"0", data} success envelope; anything else passes through. */
function unwrap(body: unknown): unknown {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Obj;
    if ((o.code === '0' || o.code === 0) && 'data' in o) return o.data;
  }
  return body;
}

function decodeDepth(r: Reader, body: unknown): Depth {
  const o = r.obj(body, 'body');
  const side = (key: 'bids' | 'asks'): Level[] =>
    r.list(o[key], key).map((lvl, i) => {
      if (!Array.isArray(lvl) || lvl.length < 2) r.fail(`${key}[${i}]`, `must be [price, quantity], got ${kind(lvl)}`);
      // Named so a failure reads "bids[0].price must be a decimal", not "bids[0].0".
      const pair = { price: lvl[0], quantity: lvl[1] };
      return [r.dec(pair, 'price', `${key}[${i}]`), r.dec(pair, 'quantity', `${key}[${i}]`)] as const;
    });
  return { time: o.time === undefined ? 0 : r.int(o, 'time', 'body'), bids: side('bids'), asks: side('asks') };
}

function decodeTicker(r: Reader, body: unknown): Ticker {
  const o = r.obj(body, 'body');
  return {
    high: r.dec(o, 'high', 'body'),
    low: r.dec(o, 'low', 'body'),
    last: r.dec(o, 'last', 'body'),
    vol: r.dec(o, 'vol', 'body'),
    buy: r.dec(o, 'buy', 'body'),
    sell: r.dec(o, 'sell', 'body'),
    rose: r.optSdec(o, 'rose', 'body') ?? ('0' as Decimal),
    time: r.int(o, 'time', 'body'),
  };
}

function decodeVenueOrder(r: Reader, v: unknown, path: string, symbolKey: 'symbol' | 'contractName'): VenueOrder {
  const o = r.obj(v, path);
  const { status, venueStatus } = r.status(o, 'status', path);
  return {
    orderId: r.orderId(o, path),
    clientOrderId: r.optStr(o, 'clientOrderId', path),
    symbol: r.str(o, symbolKey, path).toUpperCase(),
    side: r.side(o, 'side', path),
    type: r.type(o, 'type', path),
    price: r.optDec(o, 'price', path),
    origQty: r.dec(o, 'origQty', path),
    executedQty: r.dec(o, 'executedQty', path),
    avgPrice: r.optDec(o, 'avgPrice', path),
    status,
    venueStatus,
    time: o.time !== undefined ? r.int(o, 'time', path) : o.transactTime !== undefined ? r.int(o, 'transactTime', path) : undefined,
  };
}

function decodeTrade(r: Reader, v: unknown, path: string, futures: boolean): VenueTrade {
  const o = r.obj(v, path);
  return {
    tradeId: r.id(futures && o.tradeId !== undefined ? o.tradeId : o.id, `${path}.${futures && o.tradeId !== undefined ? 'tradeId' : 'id'}`),
    symbol: r.str(o, futures ? 'contractName' : 'symbol', path).toUpperCase(),
    orderId: o.orderId !== undefined ? r.id(o.orderId, `${path}.orderId`) : undefined,
    bidId: o.bidId !== undefined ? r.id(o.bidId, `${path}.bidId`) : undefined,
    askId: o.askId !== undefined ? r.id(o.askId, `${path}.askId`) : undefined,
    price: r.dec(o, 'price', path),
    qty: r.dec(o, 'qty', path),
    time: r.int(o, 'time', path),
    isBuyer: r.bool(o, 'isBuyer', path),
    isMaker: r.bool(o, 'isMaker', path),
    // Maker rebates are negative fees.
    fee: r.optSdec(o, 'fee', path) ?? ('0' as Decimal),
    feeCoin: typeof o.feeCoin === 'string' ? o.feeCoin : '',
  };
}

function decodeAck(r: Reader, body: unknown): OrderAck {
  const o = r.obj(body, 'body');
  const st = o.status === undefined ? { status: 'open' as const, venueStatus: '' } : r.status(o, 'status', 'body');
  return {
    orderId: r.orderId(o, 'body'),
    clientOrderId: r.optStr(o, 'clientOrderId', 'body'),
    ...st,
    executedQty: r.optDec(o, 'executedQty', 'body'),
  };
}

type Decoders = { [E in EndpointId]: (r: Reader, body: unknown) => ResponseOf[E] };

const empty = (r: Reader, body: unknown): Record<string, never> => {
  r.obj(body, 'body');
  return {};
};

const decoders: Decoders = {
  'spot.ping': empty,
  'spot.time': (r, b) => ({ serverTime: r.int(r.obj(b, 'body'), 'serverTime', 'body') }),
  'spot.symbols': (r, b) =>
    r.list(r.obj(b, 'body').symbols, 'symbols').map((v, i) => {
      const p = `symbols[${i}]`;
      const o = r.obj(v, p);
      return {
        symbol: r.str(o, 'symbol', p).toUpperCase(),
        baseAsset: r.str(o, 'baseAsset', p).toUpperCase(),
        quoteAsset: r.str(o, 'quoteAsset', p).toUpperCase(),
        pricePrecision: r.int(o, 'pricePrecision', p),
        quantityPrecision: r.int(o, 'quantityPrecision', p),
        limitVolumeMin: r.dec(o, 'limitVolumeMin', p),
        limitPriceMin: r.dec(o, 'limitPriceMin', p),
        marketBuyMin: r.optDec(o, 'marketBuyMin', p),
        marketSellMin: r.optDec(o, 'marketSellMin', p),
      };
    }),
  'spot.depth': decodeDepth,
  'spot.ticker': decodeTicker,
  'spot.trades': (r, b) =>
    r.list(b, 'body').map((v, i) => {
      const o = r.obj(v, `trades[${i}]`);
      return { price: r.dec(o, 'price', `trades[${i}]`), qty: r.dec(o, 'qty', `trades[${i}]`), time: r.int(o, 'time', `trades[${i}]`), side: r.side(o, 'side', `trades[${i}]`) };
    }),
  'spot.klines': (r, b) =>
    r.list(b, 'body').map((v, i) => {
      const p = `klines[${i}]`;
      const o = r.obj(v, p);
      const idx = r.int(o, 'idx', p);
      return {
        // Old venues give seconds; anything before 2001 in ms is taken as seconds.
        openTime: idx < 1e12 ? idx * 1000 : idx,
        open: r.dec(o, 'open', p),
        high: r.dec(o, 'high', p),
        low: r.dec(o, 'low', p),
        close: r.dec(o, 'close', p),
        vol: r.dec(o, 'vol', p),
      };
    }),
  'spot.order': decodeAck,
  'spot.orderTest': empty,
  'spot.batchOrders': (r, b) => {
    const o = r.obj(b, 'body');
    const key = o.idsString !== undefined && o.idsString !== null ? 'idsString' : 'ids';
    const ids = r.list(o[key], key).map((v, i) => r.id(v, `${key}[${i}]`));
    // Both forms present must agree (ids is read losslessly, so exactly); otherwise we cannot
    // tell which list is the truth, and mapping ids to orders by position would be a guess.
    if (key === 'idsString' && o.ids !== undefined && o.ids !== null) {
      const other = r.list(o.ids, 'ids').map((v, i) => r.id(v, `ids[${i}]`));
      if (other.length !== ids.length || other.some((id, i) => id !== ids[i])) r.fail('ids', `disagrees with idsString (${other.length} vs ${ids.length} ids)`);
    }
    if (new Set(ids).size !== ids.length) r.fail(key, 'holds the same id twice');
    return { ids };
  },
  'spot.queryOrder': (r, b) => decodeVenueOrder(r, b, 'body', 'symbol'),
  'spot.cancel': (r, b) => {
    const o = r.obj(b, 'body');
    const st = o.status === undefined ? {} : r.status(o, 'status', 'body');
    return { orderId: r.orderId(o, 'body'), ...st };
  },
  'spot.batchCancel': (r, b) => {
    const o = r.obj(b, 'body');
    // {} means the venue could not read the id list at all: it lists no id (the gateway takes
    // an id in neither list as not dealt with).
    return {
      success: o.success === undefined ? [] : r.list(o.success, 'success').map((v, i) => r.id(v, `success[${i}]`)),
      failed: o.failed === undefined ? [] : r.list(o.failed, 'failed').map((v, i) => r.id(v, `failed[${i}]`)),
    };
  },
  'spot.openOrders': (r, b) => r.list(b, 'body').map((v, i) => decodeVenueOrder(r, v, `body[${i}]`, 'symbol')),
  'spot.myTrades': (r, b) => r.list(b, 'body').map((v, i) => decodeTrade(r, v, `body[${i}]`, false)),
  'spot.account': (r, b) => ({
    balances: r.list(r.obj(b, 'body').balances, 'balances').map((v, i) => {
      const p = `balances[${i}]`;
      const o = r.obj(v, p);
      return { asset: r.str(o, 'asset', p).toUpperCase(), free: r.dec(o, 'free', p), locked: r.dec(o, 'locked', p) };
    }),
  }),
  'futures.time': (r, b) => ({ serverTime: r.int(r.obj(b, 'body'), 'serverTime', 'body') }),
  'futures.contracts': (r, b) =>
    r.list(b, 'body').map((v, i) => {
      const p = `contracts[${i}]`;
      const o = r.obj(v, p);
      return {
        symbol: r.str(o, 'symbol', p).toUpperCase(),
        contractId: r.int(o, 'contractId', p),
        pricePrecision: r.int(o, 'pricePrecision', p),
        multiplier: r.dec(o, 'multiplier', p),
        minOrderVolume: r.dec(o, 'minOrderVolume', p),
        status: r.int(o, 'status', p),
      };
    }),
  'futures.ticker': decodeTicker,
  'futures.depth': decodeDepth,
  'futures.order': decodeAck,
  'futures.queryOrder': (r, b) => decodeVenueOrder(r, b, 'body', 'contractName'),
  'futures.cancel': (r, b) => ({ orderId: r.orderId(r.obj(b, 'body'), 'body') }),
  // KB live: an empty futures openOrders is {"code":"0","data":null}.
  'futures.openOrders': (r, b) => r.list(b, 'body', { nullIsEmpty: true }).map((v, i) => decodeVenueOrder(r, v, `body[${i}]`, 'contractName')),
  'futures.myTrades': (r, b) => r.list(b, 'body').map((v, i) => decodeTrade(r, v, `body[${i}]`, true)),
  'futures.account': (r, b) =>
    r.list(r.obj(b, 'body').account, 'account').map((v, i) => {
      const p = `account[${i}]`;
      const o = r.obj(v, p);
      const positions: FuturesPosition[] = [];
      r.list(o.positionVos ?? [], `${p}.positionVos`, { nullIsEmpty: true }).forEach((vo, j) => {
        const pv = r.obj(vo, `${p}.positionVos[${j}]`);
        const contractName = r.str(pv, 'contractName', `${p}.positionVos[${j}]`).toUpperCase();
        r.list(pv.positions ?? [], `${p}.positionVos[${j}].positions`, { nullIsEmpty: true }).forEach((pos, k) => {
          const pp = `${p}.positionVos[${j}].positions[${k}]`;
          const q = r.obj(pos, pp);
          positions.push({
            contractName,
            side: r.side(q, 'side', pp),
            positionType: r.int(q, 'positionType', pp),
            volume: r.dec(q, 'volume', pp),
            openPrice: r.dec(q, 'openPrice', pp),
            avgPrice: r.dec(q, 'avgPrice', pp),
            unrealizedPnl: r.optSdec(q, 'unRealizedAmount', pp) ?? ('0' as Decimal),
            realizedPnl: r.optSdec(q, 'realizedAmount', pp) ?? ('0' as Decimal),
            margin: r.optDec(q, 'holdAmount', pp) ?? ('0' as Decimal),
          });
        });
      });
      return {
        marginCoin: r.str(o, 'marginCoin', p).toUpperCase(),
        // A realized loss beyond the wallet leaves futures available below zero: a real debt.
        available: r.sdec(o, 'accountNormal', p),
        locked: r.dec(o, 'accountLock', p),
        unrealizedPnl: r.optSdec(o, 'unrealizedAmount', p) ?? ('0' as Decimal),
        realizedPnl: r.optSdec(o, 'achievedAmount', p) ?? ('0' as Decimal),
        positions,
      };
    }),
};

/** Decodes a parsed 2xx body for `endpoint`; throws MalformedResponseError naming the field. */
export function decodeResponse<E extends EndpointId>(endpoint: E, body: unknown): ResponseOf[E] {
  return decoders[endpoint](new Reader(endpoint), unwrap(body));
}
