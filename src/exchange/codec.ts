// Typed responses for every endpoint, decoded from the parsed JSON the venue answered. The
// field readers (reader.ts) tolerate the live variants of the API family and refuse anything
// else with a MalformedResponseError naming the field.
//
// List answers about the account (open orders, trades, balances, positions, instruments) are
// decoded item by item: an item we cannot read is returned in `skipped` with its problem (and
// its id, asset or contract when that much is readable), and the rest are used. One odd item
// never fails the whole answer, and is never read as a zero.
import type { Decimal } from '../core/decimal.js';
import type { MalformedResponseError } from '../core/errors.js';
import type { VenueOrderId } from '../core/ids.js';
import type { Depth, Kline, Level, PublicTrade, SymbolInfo, Ticker } from '../core/market.js';
import type { Balance, OrderStatus } from '../core/types.js';
import type { FuturesAccount, FuturesPosition, Listing, SkippedItem, VenueOrder, VenueTrade } from '../core/venue.js';
import type { EndpointId } from './endpoints.js';
import { idOf, kind, nameOf, orderStatusOf, Reader, type Obj, type UnreadableItem } from './reader.js';

export { encodeBody, encodeQuery, type BatchOrderItem, type FuturesOrderParams, type RequestParams, type SpotOrderParams } from './request.js';
export type { Depth, Kline, KlineInterval, Level, PublicTrade, SymbolInfo, Ticker } from '../core/market.js';
export type { FuturesAccount, FuturesPosition, Listing, SkippedItem, VenueOrder, VenueTrade } from '../core/venue.js';

export interface ServerTime {
  serverTime: number;
}

export interface ContractInfo {
  symbol: string;
  contractId: number;
  pricePrecision: number;
  multiplier: Decimal;
  /** The asset one contract's multiplier is counted in (BTC for E-BTC-USDT), where the venue says. */
  multiplierCoin?: string;
  minOrderVolume: Decimal;
  /** 1 tradable (the notes). */
  status: number;
  /** 1 linear, 0 inverse (the notes), where the venue says. */
  side?: number;
}

export interface OrderAck {
  orderId: VenueOrderId;
  clientOrderId?: string;
  status: OrderStatus;
  venueStatus: string;
  executedQty?: Decimal;
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

export interface ResponseOf {
  'spot.ping': Record<string, never>;
  'spot.time': ServerTime;
  'spot.symbols': Listing<SymbolInfo>;
  'spot.depth': Depth;
  'spot.ticker': Ticker;
  'spot.trades': PublicTrade[];
  'spot.klines': Kline[];
  'spot.order': OrderAck;
  'spot.orderTest': Record<string, never>;
  /** Per order of the batch, in its order: its venue id, or why its item could not be read. */
  'spot.batchOrders': { ids: (VenueOrderId | UnreadableItem)[] };
  'spot.queryOrder': VenueOrder;
  'spot.cancel': CancelAck;
  'spot.batchCancel': BatchCancelResult;
  'spot.openOrders': Listing<VenueOrder>;
  'spot.myTrades': Listing<VenueTrade>;
  'spot.account': Listing<Balance>;
  'futures.time': ServerTime;
  'futures.contracts': Listing<ContractInfo>;
  'futures.ticker': Ticker;
  'futures.depth': Depth;
  'futures.klines': Kline[];
  'futures.order': OrderAck;
  'futures.queryOrder': VenueOrder;
  'futures.cancel': CancelAck;
  'futures.openOrders': Listing<VenueOrder>;
  'futures.myTrades': Listing<VenueTrade>;
  /** Every margin account's readable positions; `skipped` names the contract of each position that was not. */
  'futures.account': Listing<FuturesAccount>;
  /** The notes give only the success envelope ({code:"0", data:null}): nothing to read. */
  'futures.editLever': Record<string, never>;
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
  const action = typeof o.action === 'string' ? o.action.toUpperCase() : undefined;
  const order: VenueOrder = {
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
    time: o.time !== undefined && o.time !== null ? r.int(o, 'time', path) : r.optInt(o, 'transactTime', path),
  };
  if (action === 'OPEN' || action === 'CLOSE') order.open = action;
  const positionType = r.optInt(o, 'positionType', path);
  if (positionType !== undefined) order.positionType = positionType;
  return order;
}

function decodeTrade(r: Reader, v: unknown, path: string, futures: boolean): VenueTrade {
  const o = r.obj(v, path);
  const idKey = futures && o.tradeId !== undefined ? 'tradeId' : 'id';
  const trade: VenueTrade = {
    tradeId: r.id(o[idKey], `${path}.${idKey}`),
    symbol: r.str(o, futures ? 'contractName' : 'symbol', path).toUpperCase(),
    orderId: r.optId(o, 'orderId', path),
    bidId: r.optId(o, 'bidId', path),
    askId: r.optId(o, 'askId', path),
    price: r.dec(o, 'price', path),
    qty: r.dec(o, 'qty', path),
    time: r.int(o, 'time', path),
    isBuyer: r.bool(o, 'isBuyer', path),
    isMaker: r.bool(o, 'isMaker', path),
    // Maker rebates are negative fees.
    fee: r.optSdec(o, 'fee', path) ?? ('0' as Decimal),
    // Upper-cased as every asset name sluice keeps (balances, symbols' assets): fees are matched to them.
    feeCoin: typeof o.feeCoin === 'string' ? o.feeCoin.toUpperCase() : '',
  };
  if (o.isSelf === true || o.isSelf === 'true') trade.isSelf = true;
  // Without our order's id the trade cannot be attributed: refuse it rather than guess.
  if (!trade.orderId && !(trade.isBuyer ? trade.bidId : trade.askId)) r.fail(`${path}.${trade.isBuyer ? 'bidId' : 'askId'}`, 'must name our order (orderId, or the bid for a buyer, the ask for a seller)');
  return trade;
}

function decodeAck(r: Reader, body: unknown): OrderAck {
  const o = r.obj(body, 'body');
  // The ack's status varies across the family (the notes): one we cannot read, or none, still
  // comes with the order's id, so the order is on the venue, and the reconciler reads its
  // status by that id. Dropping the id for it left an order only findable by its looks.
  const { status, venueStatus } = orderStatusOf(o.status);
  return {
    orderId: r.orderId(o, 'body'),
    clientOrderId: r.optStr(o, 'clientOrderId', 'body'),
    status: status ?? 'open',
    venueStatus,
    executedQty: r.optDec(o, 'executedQty', 'body'),
  };
}

function decodeSymbol(r: Reader, v: unknown, p: string): SymbolInfo {
  const o = r.obj(v, p);
  return {
    symbol: r.str(o, 'symbol', p).toUpperCase(),
    baseAsset: r.str(o, 'baseAsset', p).toUpperCase(),
    quoteAsset: r.str(o, 'quoteAsset', p).toUpperCase(),
    pricePrecision: r.int(o, 'pricePrecision', p),
    quantityPrecision: r.int(o, 'quantityPrecision', p),
    limitVolumeMin: r.optDec(o, 'limitVolumeMin', p),
    limitPriceMin: r.optDec(o, 'limitPriceMin', p),
    marketBuyMin: r.optDec(o, 'marketBuyMin', p),
    marketSellMin: r.optDec(o, 'marketSellMin', p),
  };
}

const withCoin = (coin: string | undefined) => (coin ? { multiplierCoin: coin.toUpperCase() } : {});

function decodeContract(r: Reader, v: unknown, p: string): ContractInfo {
  const o = r.obj(v, p);
  return {
    symbol: r.str(o, 'symbol', p).toUpperCase(),
    contractId: r.int(o, 'contractId', p),
    pricePrecision: r.int(o, 'pricePrecision', p),
    multiplier: r.dec(o, 'multiplier', p),
    ...withCoin(r.optStr(o, 'multiplierCoin', p)),
    minOrderVolume: r.dec(o, 'minOrderVolume', p),
    status: r.int(o, 'status', p),
    ...withSide(r.optInt(o, 'side', p)),
  };
}

const withSide = (side: number | undefined) => (side === undefined ? {} : { side });

function decodePosition(r: Reader, contractName: string, q: Obj, pp: string): FuturesPosition {
  const position: FuturesPosition = { contractName, side: r.side(q, 'side', pp), volume: r.dec(q, 'volume', pp) };
  const positionType = r.optInt(q, 'positionType', pp);
  if (positionType !== undefined) position.positionType = positionType;
  const optional: [keyof FuturesPosition, Decimal | undefined][] = [
    ['openPrice', r.optDec(q, 'openPrice', pp)],
    ['avgPrice', r.optDec(q, 'avgPrice', pp)],
    ['unrealizedPnl', r.optSdec(q, 'unRealizedAmount', pp)],
    ['realizedPnl', r.optSdec(q, 'realizedAmount', pp)],
    ['margin', r.optDec(q, 'holdAmount', pp)],
  ];
  for (const [k, v] of optional) if (v !== undefined) (position as unknown as Record<string, Decimal>)[k] = v;
  return position;
}

/** One margin account; its positions are read one by one, unreadable ones go to `skipped` under their contract. */
function decodeFuturesAccount(r: Reader, v: unknown, p: string, skipped: SkippedItem[]): FuturesAccount {
  const o = r.obj(v, p);
  const positions: FuturesPosition[] = [];
  r.list(o.positionVos ?? [], `${p}.positionVos`, { nullIsEmpty: true }).forEach((vo, j) => {
    const vp = `${p}.positionVos[${j}]`;
    const group = r.items([vo], () => vp, (g, path) => r.str(r.obj(g, path), 'contractName', path).toUpperCase());
    if (group.items.length === 0) {
      skipped.push(...group.skipped);
      return;
    }
    const contractName = group.items[0]!;
    const pv = vo as Obj;
    const listed = r.items(
      r.list(pv.positions ?? [], `${vp}.positions`, { nullIsEmpty: true }),
      (k) => `${vp}.positions[${k}]`,
      (pos, pp) => decodePosition(r, contractName, r.obj(pos, pp), pp),
      () => contractName,
    );
    positions.push(...listed.items);
    skipped.push(...listed.skipped);
  });
  const account: FuturesAccount = { marginCoin: r.str(o, 'marginCoin', p).toUpperCase(), positions };
  // Live venues send many of these as null: absent then, never a zero.
  const available = r.optSdec(o, 'accountNormal', p); // a realised loss beyond the wallet is a real debt
  const locked = r.optDec(o, 'accountLock', p);
  const unrealizedPnl = r.optSdec(o, 'unrealizedAmount', p);
  const realizedPnl = r.optSdec(o, 'achievedAmount', p);
  if (available !== undefined) account.available = available;
  if (locked !== undefined) account.locked = locked;
  if (unrealizedPnl !== undefined) account.unrealizedPnl = unrealizedPnl;
  if (realizedPnl !== undefined) account.realizedPnl = realizedPnl;
  return account;
}

/** A klines answer: candles `{idx, open, close, high, low, vol}`. */
function decodeKlines(r: Reader, b: unknown): Kline[] {
  return r.list(b, 'body').map((v, i) => {
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
  });
}

type Decoders = { [E in EndpointId]: (r: Reader, body: unknown) => ResponseOf[E] };

const empty = (r: Reader, body: unknown): Record<string, never> => {
  r.obj(body, 'body');
  return {};
};

const at = (prefix: string) => (i: number) => `${prefix}[${i}]`;

const decoders: Decoders = {
  'spot.ping': empty,
  'spot.time': (r, b) => ({ serverTime: r.int(r.obj(b, 'body'), 'serverTime', 'body') }),
  'spot.symbols': (r, b) => r.items(r.list(r.obj(b, 'body').symbols, 'symbols'), at('symbols'), (v, p) => decodeSymbol(r, v, p), (v) => nameOf(v, 'symbol')),
  'spot.depth': decodeDepth,
  'spot.ticker': decodeTicker,
  'spot.trades': (r, b) =>
    r.list(b, 'body').map((v, i) => {
      const o = r.obj(v, `trades[${i}]`);
      return { price: r.dec(o, 'price', `trades[${i}]`), qty: r.dec(o, 'qty', `trades[${i}]`), time: r.int(o, 'time', `trades[${i}]`), side: r.side(o, 'side', `trades[${i}]`) };
    }),
  'spot.klines': decodeKlines,
  'spot.order': decodeAck,
  'spot.orderTest': empty,
  'spot.batchOrders': (r, b) => {
    const o = r.obj(b, 'body');
    const key = o.idsString !== undefined && o.idsString !== null ? 'idsString' : 'ids';
    // Item by item: one that is no id (null, an error object) leaves its own order's outcome
    // unknown, not the batch's; the notes document no per-item failure, so none is guessed.
    const read = (list: unknown, name: string) => r.list(list, name).map((v, i) => r.idOrWhyNot(v, `${name}[${i}]`));
    const ids = read(o[key], key);
    // Both forms present must agree (ids is read losslessly, so exactly); otherwise we cannot
    // tell which list is the truth, and mapping ids to orders by position would be a guess.
    if (key === 'idsString' && o.ids !== undefined && o.ids !== null) {
      const other = read(o.ids, 'ids');
      if (other.length !== ids.length || other.some((id, i) => typeof id !== typeof ids[i] || (typeof id === 'string' && id !== ids[i]))) r.fail('ids', `disagrees with idsString (${other.length} vs ${ids.length} ids)`);
    }
    const readable = ids.filter((id) => typeof id === 'string');
    if (new Set(readable).size !== readable.length) r.fail(key, 'holds the same id twice');
    return { ids };
  },
  'spot.queryOrder': (r, b) => decodeVenueOrder(r, b, 'body', 'symbol'),
  'spot.cancel': (r, b) => {
    const o = r.obj(b, 'body');
    const st = o.status === undefined || o.status === null ? {} : r.status(o, 'status', 'body');
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
  'spot.openOrders': (r, b) => r.items(r.list(b, 'body'), at('body'), (v, p) => decodeVenueOrder(r, v, p, 'symbol'), (v) => idOf(v, 'orderIdString', 'orderId')),
  'spot.myTrades': (r, b) => r.items(r.list(b, 'body'), at('body'), (v, p) => decodeTrade(r, v, p, false), (v) => idOf(v, 'id')),
  'spot.account': (r, b) =>
    r.items(
      r.list(r.obj(b, 'body').balances, 'balances'),
      at('balances'),
      (v, p) => {
        const o = r.obj(v, p);
        return { asset: r.str(o, 'asset', p).toUpperCase(), free: r.dec(o, 'free', p), locked: r.dec(o, 'locked', p) };
      },
      (v) => nameOf(v, 'asset'),
    ),
  'futures.time': (r, b) => ({ serverTime: r.int(r.obj(b, 'body'), 'serverTime', 'body') }),
  'futures.contracts': (r, b) => r.items(r.list(b, 'body'), at('contracts'), (v, p) => decodeContract(r, v, p), (v) => nameOf(v, 'symbol')),
  'futures.ticker': decodeTicker,
  'futures.depth': decodeDepth,
  // The notes give no futures klines shape: read as spot's, the same items {idx, open, close, high, low, vol}.
  'futures.klines': decodeKlines,
  'futures.order': decodeAck,
  'futures.queryOrder': (r, b) => decodeVenueOrder(r, b, 'body', 'contractName'),
  'futures.cancel': (r, b) => ({ orderId: r.orderId(r.obj(b, 'body'), 'body') }),
  // KB live: an empty futures openOrders is {"code":"0","data":null}.
  'futures.openOrders': (r, b) =>
    r.items(r.list(b, 'body', { nullIsEmpty: true }), at('body'), (v, p) => decodeVenueOrder(r, v, p, 'contractName'), (v) => idOf(v, 'orderIdString', 'orderId')),
  // As its openOrders: the family's futures envelope says an empty page as {code:"0", data:null}.
  'futures.myTrades': (r, b) => r.items(r.list(b, 'body', { nullIsEmpty: true }), at('body'), (v, p) => decodeTrade(r, v, p, true), (v) => idOf(v, 'tradeId', 'id')),
  'futures.editLever': () => ({}),
  'futures.account': (r, b) => {
    const skipped: SkippedItem[] = [];
    const accounts = r.items(r.list(r.obj(b, 'body').account, 'account'), at('account'), (v, p) => decodeFuturesAccount(r, v, p, skipped), (v) => nameOf(v, 'marginCoin'));
    return { items: accounts.items, skipped: [...accounts.skipped, ...skipped] };
  },
};

/** Decodes a parsed 2xx body for `endpoint`; throws MalformedResponseError naming the field. */
export function decodeResponse<E extends EndpointId>(endpoint: E, body: unknown): ResponseOf[E] {
  return decoders[endpoint](new Reader(endpoint), unwrap(body));
}

/** The errors of a batch answer's items that could not be read, where the rest was. */
export function unreadableItems(answer: ResponseOf['spot.batchOrders']): MalformedResponseError[] {
  return answer.ids.flatMap((id) => (typeof id === 'string' ? [] : [id.unreadable]));
}
