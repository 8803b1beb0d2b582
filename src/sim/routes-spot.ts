// Spot trade and account endpoints.
import { amend } from '../core/amend.js';
import { dec, type Decimal } from '../core/decimal.js';
import { VenueCode } from '../exchange/codes.js';
import { malformed, missing, reject, SimError } from './errors.js';
import { decimalOut, JsonNumber } from './json.js';
import { clientId, decimal, integer, orderId, orderType, pageRequest, refuseParameter, required, side, type Params } from './params.js';
import type { Call, Route, VenueView } from './venue.js';
import { avgPrice, type SpotOrder, type SpotOrderInput } from './spot.js';
import { fromUnits } from './units.js';

const MAX_BATCH = 10;
const CLIENT_ID_MAX = 64;

function symbolOf(ex: VenueView, p: Params): string {
  const symbol = required(p, 'symbol').toUpperCase();
  if (!ex.symbols.has(symbol)) reject(VenueCode.BAD_SYMBOL, 'Invalid symbol.');
  return symbol;
}

/** Reads one order (the create body, or a batch item whose type is named `batchType`). */
function orderInput(ex: VenueView, symbol: string, p: Params, typeField: 'type' | 'batchType'): SpotOrderInput {
  const s = side(p);
  const type = orderType(p, typeField in p || typeField === 'type' ? typeField : 'type');
  const volume = decimal(p, 'volume') ?? missing('volume');
  const price = decimal(p, 'price');
  if (type === 'LIMIT' && price === undefined) missing('price');
  if (dec.isZero(volume)) reject(VenueCode.ORDER_VOLUME_TOO_SMALL, 'Volume must be above zero.');
  const input: SpotOrderInput = { symbol, side: s, type, volume, price: type === 'LIMIT' ? price : undefined, clientOrderId: clientId(p, ['newClientOrderId'], CLIENT_ID_MAX) };
  ex.spot.spec(symbol);
  return input;
}

function qty(ex: VenueView, o: SpotOrder): Decimal {
  return fromUnits(o.executedLots, ex.symbols.get(o.symbol)!.quantityPrecision);
}

/** A query-order answer, or an openOrders item (`listed`: the profile may leave the client id out). */
function orderJson(ex: VenueView, o: SpotOrder, listed = false) {
  const spec = ex.symbols.get(o.symbol)!;
  const executedQty = qty(ex, o);
  const n = (d: string) => decimalOut(ex.profile.decimalsAsNumbers, d);
  const out: Record<string, unknown> = {
    orderId: o.orderId,
    orderIdString: o.orderId,
    clientOrderId: o.clientOrderId ?? null,
    symbol: o.symbol,
    price: n(o.price ?? '0'),
    origQty: n(o.volume),
    executedQty: n(executedQty),
    avgPrice: n(avgPrice(o.executedQuote, executedQty, spec.pricePrecision) ?? '0'),
    status: o.status,
    type: o.type,
    side: o.side,
    transactTime: String(o.createdAt),
    time: o.createdAt,
  };
  if (listed && !ex.profile.openOrdersClientOrderId) delete out.clientOrderId;
  return out;
}

function ack(ex: VenueView, o: SpotOrder) {
  // The GB/KB live form: a bare number id (beyond 2^53, written from its digits) and status 0 while new.
  const live = ex.profile.spotOrderAck === 'live';
  return {
    symbol: o.symbol,
    orderId: live ? JsonNumber.id(o.orderId) : o.orderId,
    orderIdString: o.orderId,
    clientOrderId: o.clientOrderId ?? null,
    transactTime: String(o.createdAt),
    price: o.price ?? '0',
    origQty: o.volume,
    executedQty: qty(ex, o),
    status: live && o.status === 'NEW' ? 0 : o.status,
    type: o.type,
    side: o.side,
  };
}

function place(ex: VenueView, c: Call, input: SpotOrderInput): SpotOrder {
  const o = ex.spot.place(c.account, input, c.now);
  ex.logOrder({ orderId: o.orderId, clientOrderId: o.clientOrderId, market: 'spot', symbol: o.symbol, side: o.side, type: o.type, price: o.price, volume: o.volume, at: c.now });
  return o;
}

/** The order a query or cancel names by orderId or by client order id. */
function target(ex: VenueView, c: Call, symbol: string): SpotOrder {
  const p = c.params;
  const id = p.orderId !== undefined && p.orderId !== '' ? orderId(p.orderId, 'orderId') : undefined;
  if (id === undefined && !ex.profile.lookupByClientOrderId) missing('orderId');
  const cid = id === undefined ? clientId(p, ['newClientOrderId', 'clientOrderId'], CLIENT_ID_MAX) : undefined;
  if (id === undefined && cid === undefined) missing('orderId');
  return ex.spot.find(c.account, symbol, id, cid) ?? reject(VenueCode.NO_SUCH_ORDER, 'Order does not exist.');
}

function cancel(ex: VenueView, o: SpotOrder, now: number): void {
  if (o.status === 'PENDING_CANCEL') return;
  ex.spot.requestCancel(o, now);
  ex.schedule(now + ex.cancelSettleMs, (at) => ex.spot.settleCancel(o, at));
}

export const SPOT_ROUTES: Readonly<Record<string, Route>> = {
  'spot.order': (ex, c) => {
    if (!ex.profile.orderClientOrderIds) refuseParameter(c.params, 'newClientOrderId');
    return ack(ex, place(ex, c, orderInput(ex, symbolOf(ex, c.params), c.params, 'type')));
  },

  'spot.orderTest': (ex, c) => {
    if (!ex.profile.orderClientOrderIds) refuseParameter(c.params, 'newClientOrderId');
    const input = orderInput(ex, symbolOf(ex, c.params), c.params, 'type');
    ex.spot.precheck(c.account, [input]);
    return {};
  },

  'spot.batchOrders': (ex, c) => {
    const symbol = symbolOf(ex, c.params);
    const raw = c.params.orders;
    if (!Array.isArray(raw) || raw.length === 0) return missing('orders');
    if (raw.length > MAX_BATCH) reject(VenueCode.TOO_MANY_ORDERS, `A batch holds at most ${MAX_BATCH} orders; got ${raw.length}.`);
    // All or nothing: every item is checked, and the funds of all of them together, before any is placed.
    const inputs = raw.map((item, i) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return malformed(`orders[${i}]`, 'must be an object');
      try {
        const input = orderInput(ex, symbol, item as Params, 'batchType');
        return ex.profile.batchItemClientOrderIds ? input : amend(input, { clientOrderId: undefined });
      } catch (e) {
        if (e instanceof Error) e.message = `orders[${i}]: ${e.message}`;
        throw e;
      }
    });
    ex.spot.precheck(c.account, inputs);
    const ids = inputs.map((input) => place(ex, c, input).orderId);
    return { ids, idsString: ids };
  },

  'spot.queryOrder': (ex, c) => orderJson(ex, target(ex, c, symbolOf(ex, c.params))),

  'spot.cancel': (ex, c) => {
    const o = target(ex, c, symbolOf(ex, c.params));
    cancel(ex, o, c.now);
    return { symbol: o.symbol, clientOrderId: o.clientOrderId ?? null, orderId: o.orderId, orderIdString: o.orderId, status: o.status };
  },

  'spot.batchCancel': (ex, c) => {
    const symbol = symbolOf(ex, c.params);
    const raw = c.params.orderIds;
    let ids: string[];
    try {
      if (!Array.isArray(raw) || raw.length === 0) return missing('orderIds');
      if (raw.length > MAX_BATCH) reject(VenueCode.TOO_MANY_ORDERS, `A batch holds at most ${MAX_BATCH} orders; got ${raw.length}.`);
      ids = raw.map((v, i) => {
        if (typeof v === 'number' && !Number.isSafeInteger(v)) return malformed(`orderIds[${i}]`, 'lost digits: send ids beyond 2^53 as digit strings or exact literals');
        return orderId(v, `orderIds[${i}]`);
      });
    } catch (e) {
      // The notes: "If the id list itself is wrong the answer is {}".
      if (ex.profile.batchCancelBadList === 'empty' && e instanceof SimError && e.code === VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED) return {};
      throw e;
    }
    const success: string[] = [];
    const failed: string[] = [];
    for (const id of ids) {
      const o = ex.spot.find(c.account, symbol, id);
      if (!o || o.status === 'FILLED' || o.status === 'CANCELED' || o.status === 'REJECTED') failed.push(id);
      else {
        cancel(ex, o, c.now);
        success.push(id);
      }
    }
    return { success, failed };
  },

  'spot.openOrders': (ex, c) => {
    const symbol = symbolOf(ex, c.params);
    const limit = integer(c.params, 'limit', 100, 1, 1000)!;
    return ex.spot
      .open(c.account, symbol)
      .reverse()
      .slice(0, limit)
      .map((o) => orderJson(ex, o, true));
  },

  'spot.myTrades': (ex, c) => {
    const symbol = symbolOf(ex, c.params);
    const chosen = ex.fills.page(c.account, 'spot', symbol, c.now, pageRequest(c.params));
    const n = (d: string) => decimalOut(ex.profile.decimalsAsNumbers, d);
    if (!ex.profile.tradeOrderIds) {
      // The notes' field list: no orderId (the client's order is bidId or askId), no amount.
      return chosen.map((t) => ({
        symbol: t.symbol,
        id: t.id,
        bidId: t.bidId,
        askId: t.askId,
        price: n(t.price),
        qty: n(t.qty),
        time: t.at,
        isBuyer: t.side === 'BUY',
        isMaker: t.isMaker,
        feeCoin: t.feeCoin,
        fee: n(t.fee),
        bidUserId: ex.uid(t.bidUser),
        askUserId: ex.uid(t.askUser),
        isSelf: t.isSelf,
        side: t.takerSide,
      }));
    }
    return chosen.map((t) => ({
      symbol: t.symbol,
      id: t.id,
      orderId: t.orderId,
      bidId: t.bidId,
      askId: t.askId,
      price: n(t.price),
      qty: n(t.qty),
      amount: n(t.quote),
      time: t.at,
      isBuyer: t.side === 'BUY',
      isMaker: t.isMaker,
      isSelf: t.isSelf,
      side: t.takerSide,
      feeCoin: t.feeCoin,
      fee: n(t.fee),
    }));
  },

  'spot.account': (ex, c) => {
    const balances = ex.ledger.balances(c.account);
    if (!ex.profile.decimalsAsNumbers) return { balances };
    return { balances: balances.map((b) => ({ asset: b.asset, free: JsonNumber.decimal(b.free), locked: JsonNumber.decimal(b.locked) })) };
  },
};
