// Futures trade and account endpoints (/fapi/v1), contracts named like E-BTC-USDT.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { VenueCode } from '../exchange/codes.js';
import { malformed, missing, reject } from './errors.js';
import type { SimExchange } from './exchange.js';
import type { FuturesOrder } from './futures.js';
import { clientId, decimal, integer, orderId, orderType, pageById, required, side, text, type Params } from './params.js';
import type { Call, Route } from './routes.js';
import { fromUnits } from './units.js';

/** The futures API family limits client order ids to fewer than 32 characters. */
const CLIENT_ID_MAX = 31;

function contractOf(ex: SimExchange, p: Params, needed = true): string | undefined {
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

function orderJson(ex: SimExchange, o: FuturesOrder) {
  const spec = ex.contracts.get(o.contract)!;
  const executedQty = fromUnits(o.executedLots, 0);
  const trades = ex.trades(o.account, 'futures', o.contract, Number.MAX_SAFE_INTEGER).filter((t) => t.orderId === o.orderId);
  return {
    orderId: o.orderId,
    orderIdString: o.orderId,
    clientOrderId: o.clientOrderId ?? null,
    contractName: o.contract,
    side: o.side,
    type: o.type,
    action: o.open,
    positionType: o.positionType,
    price: o.price ?? '0',
    origQty: o.volume,
    executedQty,
    avgPrice: o.executedLots === 0 ? '0' : dec.round(dec.div(o.executedValue, executedQty), spec.pricePrecision + 2),
    status: status(o),
    transactTime: String(o.createdAt),
    time: o.createdAt,
    fills: trades.map((t) => ({ tradeId: t.id, price: t.price, qty: t.qty, fee: t.fee, time: t.at })),
  };
}

function target(ex: SimExchange, c: Call, contract: string): FuturesOrder {
  const p = c.params;
  const id = p.orderId !== undefined && p.orderId !== '' ? orderId(p.orderId, 'orderId') : undefined;
  const cid = id === undefined ? clientId(p, ['clientOrderId'], CLIENT_ID_MAX) : undefined;
  if (id === undefined && cid === undefined) missing('orderId');
  return ex.futures.find(c.account, contract, id, cid) ?? reject(VenueCode.NO_SUCH_ORDER, 'Order does not exist.');
}

function positionType(p: Params): 1 | 2 {
  const v = integer(p, 'positionType', undefined, 1, 2);
  if (v === undefined) return missing('positionType');
  return v as 1 | 2;
}

export const FUTURES_ROUTES: Readonly<Record<string, Route>> = {
  'futures.order': (ex, c) => {
    const p = c.params;
    const contract = contractOf(ex, p)!;
    const s = side(p);
    const type = orderType(p);
    const open = required(p, 'open');
    if (open !== 'OPEN' && open !== 'CLOSE') malformed('open', 'must be OPEN or CLOSE');
    const pt = positionType(p);
    const volume = decimal(p, 'volume') ?? missing('volume');
    const price = decimal(p, 'price');
    if (type === 'LIMIT' && price === undefined) missing('price');
    const o = ex.futures.place(
      c.account,
      { contract, side: s, type, volume, price: type === 'LIMIT' ? price : undefined, open: open as 'OPEN' | 'CLOSE', positionType: pt, clientOrderId: clientId(p, ['clientOrderId'], CLIENT_ID_MAX) },
      c.now,
    );
    ex.logOrder({ orderId: o.orderId, clientOrderId: o.clientOrderId, market: 'futures', symbol: o.contract, side: o.side, type: o.type, price: o.price, volume: o.volume, open: o.open, at: c.now });
    return { orderId: o.orderId, orderIdString: o.orderId, clientOrderId: o.clientOrderId ?? null, status: status(o) };
  },

  'futures.queryOrder': (ex, c) => orderJson(ex, target(ex, c, contractOf(ex, c.params)!)),

  'futures.cancel': (ex, c) => {
    const o = target(ex, c, contractOf(ex, c.params)!);
    if (o.status !== 'PENDING_CANCEL') {
      ex.futures.requestCancel(o, c.now);
      ex.schedule(c.now + ex.cancelSettleMs, (at) => ex.futures.settleCancel(o, at));
    }
    return { orderId: o.orderId, orderIdString: o.orderId, status: o.status };
  },

  'futures.openOrders': (ex, c) =>
    ex.futures
      .open(c.account, contractOf(ex, c.params, false))
      .reverse()
      .map((o) => orderJson(ex, o)),

  'futures.myTrades': (ex, c) => {
    const contract = contractOf(ex, c.params)!;
    const chosen = pageById(ex.trades(c.account, 'futures', contract, c.now), c.params);
    return chosen.map((t) => ({
      tradeId: t.id,
      id: t.id,
      orderId: t.orderId,
      bidId: t.bidId,
      askId: t.askId,
      price: t.price,
      qty: t.qty,
      amount: t.quote,
      time: t.at,
      fee: t.fee,
      feeCoin: t.feeCoin,
      side: t.side,
      contractName: t.symbol,
      isMaker: t.isMaker,
      isBuyer: t.side === 'BUY',
    }));
  },

  'futures.account': (ex, c) => {
    const w = ex.futures.wallet(c.account);
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
        openPrice: pos.openPrice,
        avgPrice: avg,
        leverageLevel: spec.leverage,
        holdAmount: dec.round(pos.margin, 8),
        closeVolume: fromUnits(pos.lots - pos.pendingCloseLots, 0),
        pendingCloseVolume: fromUnits(pos.pendingCloseLots, 0),
        realizedAmount: dec.round(pos.realized, 8),
        unRealizedAmount: upnl,
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
          achievedAmount: dec.round(w.realized, 8),
          unrealizedAmount: unrealized,
          totalEquity: dec.round(equity, 8),
          positionVos: [...byContract.entries()].map(([name, list]) => {
            const spec = ex.contracts.get(name)!;
            return { contractId: spec.contractId, contractName: name, contractSymbol: name.replace(/^E-/, ''), positions: list };
          }),
        },
      ],
    };
  },
};
