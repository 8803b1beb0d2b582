// Futures trade and account endpoints (/fapi/v1), contracts named like E-BTC-USDT.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { VenueCode } from '../exchange/codes.js';
import { malformed, missing, reject } from './errors.js';
import type { FuturesOrder } from './futures.js';
import { decimalOut } from './json.js';
import { clientId, decimal, integer, orderId, orderType, pageRequest, refuseParameter, required, side, text, type Params } from './params.js';
import type { Call, Route, VenueView } from './venue.js';
import { fromUnits } from './units.js';

/** The futures API family limits client order ids to fewer than 32 characters. */
const CLIENT_ID_MAX = 31;

function contractOf(ex: VenueView, p: Params, needed = true): string | undefined {
  const name = needed ? required(p, 'contractName') : text(p, 'contractName');
  if (name === undefined) return undefined;
  const upper = name.toUpperCase();
  if (!ex.contracts.has(upper)) reject(VenueCode.BAD_SYMBOL, 'Invalid contract name.');
  return upper;
}

function status(o: FuturesOrder): string {
  // The family reports a fresh futures order as INIT.
  return o.status === 'NEW' ? 'INIT' : o.status;
}

/** A query-order answer, or an openOrders item (`listed`: the profile may leave the client id out). */
function orderJson(ex: VenueView, o: FuturesOrder, listed = false) {
  const spec = ex.contracts.get(o.contract)!;
  const executedQty = fromUnits(o.executedLots, 0);
  const n = (d: string) => decimalOut(ex.profile.decimalsAsNumbers, d);
  const out: Record<string, unknown> = {
    orderId: o.orderId,
    orderIdString: o.orderId,
    clientOrderId: o.clientOrderId ?? null,
    contractName: o.contract,
    side: o.side,
    type: o.type,
    action: o.open,
    positionType: o.positionType,
    price: n(o.price ?? '0'),
    origQty: n(o.volume),
    executedQty: n(executedQty),
    avgPrice: n(o.executedLots === 0 ? '0' : dec.round(dec.div(o.executedValue, executedQty), spec.pricePrecision + 2)),
    status: status(o),
    transactTime: String(o.createdAt),
    time: o.createdAt,
    fills: ex.fills.ofOrder(o.orderId).map((t) => ({ tradeId: t.id, price: n(t.price), qty: n(t.qty), fee: n(t.fee), time: t.at })),
  };
  if (listed && !ex.profile.openOrdersClientOrderId) delete out.clientOrderId;
  return out;
}

function target(ex: VenueView, c: Call, contract: string): FuturesOrder {
  const p = c.params;
  const id = p.orderId !== undefined && p.orderId !== '' ? orderId(p.orderId, 'orderId') : undefined;
  if (id === undefined && !ex.profile.lookupByClientOrderId) missing('orderId');
  const cid = id === undefined ? clientId(p, ['clientOrderId'], CLIENT_ID_MAX) : undefined;
  if (id === undefined && cid === undefined) missing('orderId');
  return ex.futures.find(c.account, contract, id, cid) ?? reject(VenueCode.NO_SUCH_ORDER, 'Order does not exist.');
}

function positionType(p: Params): 1 | 2 {
  const v = integer(p, 'positionType', undefined, 1, 2);
  if (v === undefined) return missing('positionType');
  return v as 1 | 2;
}

/** timeInForce by name, or by the family's integers (3 IOC, 4 FOK, 5 POST_ONLY); only on LIMIT orders. */
function timeInForce(p: Params, type: string): 'IOC' | 'FOK' | 'POST_ONLY' | undefined {
  const raw = p.timeInForce;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const byCode: Record<string, 'IOC' | 'FOK' | 'POST_ONLY'> = { '3': 'IOC', '4': 'FOK', '5': 'POST_ONLY', IOC: 'IOC', FOK: 'FOK', POST_ONLY: 'POST_ONLY' };
  const tif = byCode[String(raw).toUpperCase()];
  if (!tif) return malformed('timeInForce', 'must be IOC, FOK or POST_ONLY');
  if (type !== 'LIMIT') return malformed('timeInForce', 'applies to LIMIT orders only');
  return tif;
}

export const FUTURES_ROUTES: Readonly<Record<string, Route>> = {
  'futures.order': (ex, c) => {
    const p = c.params;
    if (!ex.profile.orderClientOrderIds) refuseParameter(p, 'clientOrderId');
    const contract = contractOf(ex, p)!;
    const s = side(p);
    const type = orderType(p);
    const open = required(p, 'open');
    if (open !== 'OPEN' && open !== 'CLOSE') malformed('open', 'must be OPEN or CLOSE');
    const pt = positionType(p);
    const volume = decimal(p, 'volume') ?? missing('volume');
    const price = decimal(p, 'price');
    if (type === 'LIMIT' && price === undefined) missing('price');
    const tif = timeInForce(p, type);
    const o = ex.futures.place(
      c.account,
      { contract, side: s, type, volume, price: type === 'LIMIT' ? price : undefined, open: open as 'OPEN' | 'CLOSE', positionType: pt, ...(tif ? { timeInForce: tif } : {}), clientOrderId: clientId(p, ['clientOrderId'], CLIENT_ID_MAX) },
      c.now,
    );
    ex.logOrder({ orderId: o.orderId, clientOrderId: o.clientOrderId, market: 'futures', symbol: o.contract, side: o.side, type: o.type, price: o.price, volume: o.volume, open: o.open, at: c.now });
    return { orderId: o.orderId, orderIdString: o.orderId, clientOrderId: o.clientOrderId ?? null, status: status(o) };
  },

  'futures.queryOrder': (ex, c) => orderJson(ex, target(ex, c, contractOf(ex, c.params)!)),

  'futures.editLever': (ex, c) => {
    const p = c.params;
    const contract = contractOf(ex, p)!;
    const level = integer(p, 'nowLevel', undefined, 1, 125) ?? missing('nowLevel');
    ex.futures.setLeverage(c.account, contract, level);
    return { code: '0', msg: 'success', data: null };
  },

  'futures.cancel': (ex, c) => {
    const o = target(ex, c, contractOf(ex, c.params)!);
    if (o.status !== 'PENDING_CANCEL') {
      ex.futures.requestCancel(o, c.now);
      ex.schedule(c.now + ex.cancelSettleMs, (at) => ex.futures.settleCancel(o, at));
    }
    return { orderId: o.orderId, orderIdString: o.orderId, status: o.status };
  },

  'futures.openOrders': (ex, c) => {
    const contract = contractOf(ex, c.params, false);
    // Strict: a page like spot's (default 100, max 1000, newest first); lenient: everything.
    const limit = ex.profile.futuresOpenOrdersLimit ? integer(c.params, 'limit', 100, 1, 1000)! : Infinity;
    return ex.futures
      .open(c.account, contract)
      .reverse()
      .slice(0, limit)
      .map((o) => orderJson(ex, o, true));
  },

  'futures.myTrades': (ex, c) => {
    const contract = contractOf(ex, c.params)!;
    const chosen = ex.fills.page(c.account, 'futures', contract, c.now, pageRequest(c.params, ex.profile.futuresMyTradesPageCap));
    const n = (d: string) => decimalOut(ex.profile.decimalsAsNumbers, d);
    if (!ex.profile.tradeOrderIds) {
      // The notes' field list: tradeId only (no id, no orderId: the client's order is bidId or askId).
      return chosen.map((t) => ({
        tradeId: t.id,
        bidId: t.bidId,
        askId: t.askId,
        bidUserId: ex.uid(t.bidUser),
        askUserId: ex.uid(t.askUser),
        price: n(t.price),
        qty: n(t.qty),
        amount: n(t.quote),
        time: t.at,
        fee: n(t.fee),
        feeCoin: t.feeCoin,
        side: t.side,
        contractName: t.symbol,
        isMaker: t.isMaker,
        isBuyer: t.side === 'BUY',
        isSelf: t.isSelf,
      }));
    }
    return chosen.map((t) => ({
      tradeId: t.id,
      id: t.id,
      orderId: t.orderId,
      bidId: t.bidId,
      askId: t.askId,
      price: n(t.price),
      qty: n(t.qty),
      amount: n(t.quote),
      time: t.at,
      fee: n(t.fee),
      feeCoin: t.feeCoin,
      side: t.side,
      contractName: t.symbol,
      isMaker: t.isMaker,
      isBuyer: t.side === 'BUY',
      isSelf: t.isSelf,
    }));
  },

  'futures.account': (ex, c) => {
    const w = ex.futures.wallet(c.account);
    // Strict: null where live venues send null ("Many fields can be null live").
    const nulls = ex.profile.futuresAccountNulls;
    const positions = [...w.positions.values()].filter((p) => p.lots > 0);
    let cross: Decimal = ZERO;
    let isolated: Decimal = ZERO;
    let unrealized: Decimal = ZERO;
    const byContract = new Map<string, unknown[]>();
    for (const pos of positions) {
      const spec = ex.contracts.get(pos.contract)!;
      const upnl = ex.futures.unrealized(pos);
      unrealized = dec.add(unrealized, upnl);
      if (pos.positionType === 1) cross = dec.add(cross, pos.margin);
      else isolated = dec.add(isolated, pos.margin);
      const avg = dec.round(dec.div(pos.openValue, fromUnits(pos.lots, 0)), spec.pricePrecision + 2);
      const mark = ex.markets.get(pos.contract)!.price(ex.markets.get(pos.contract)!.midTicks);
      const list = byContract.get(pos.contract) ?? [];
      list.push({
        positionType: pos.positionType,
        side: pos.side,
        volume: fromUnits(pos.lots, 0),
        openPrice: nulls ? null : pos.openPrice,
        avgPrice: avg,
        leverageLevel: ex.futures.leverageOf(c.account, spec),
        holdAmount: nulls ? null : dec.round(pos.margin, 8),
        closeVolume: fromUnits(pos.lots - pos.pendingCloseLots, 0),
        pendingCloseVolume: fromUnits(pos.pendingCloseLots, 0),
        realizedAmount: nulls ? null : dec.round(pos.realized, 8),
        unRealizedAmount: nulls ? null : upnl,
        indexPrice: mark,
        keepRate: '0.005',
        status: 1,
      });
      byContract.set(pos.contract, list);
    }
    const equity = dec.add(dec.add(dec.add(w.normal, w.lock), dec.add(cross, isolated)), unrealized);
    return {
      account: [
        {
          marginCoin: w.coin,
          accountNormal: dec.round(w.normal, 8),
          accountLock: dec.round(w.lock, 8),
          partPositionNormal: dec.round(isolated, 8),
          totalPositionNormal: dec.round(cross, 8),
          achievedAmount: nulls ? null : dec.round(w.realized, 8),
          unrealizedAmount: nulls ? null : unrealized,
          totalEquity: nulls ? null : dec.round(equity, 8),
          positionVos: [...byContract.entries()].map(([name, list]) => {
            const spec = ex.contracts.get(name)!;
            return { contractId: spec.contractId, contractName: name, contractSymbol: name.replace(/^E-/, ''), positions: list };
          }),
        },
      ],
    };
  },
};
