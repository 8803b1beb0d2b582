// Conformance: spot instruments, matching, fees, balances, myTrades, cancel, batches and market
// data, over real HTTP. A tape (applyMarketEvent) pins the book where exact numbers matter.
import { afterEach, describe, expect, it } from 'vitest';
import { startVenue, type Venue } from './sim-client.js';

let v: Venue;
afterEach(async () => {
  await v?.server.close();
});

const ID = /^\d{18,19}$/;
const limit = (side: string, price: string, volume: string, extra: object = {}) => ({ symbol: 'BTCUSDT', side, type: 'LIMIT', price, volume, ...extra });
const balance = async (asset: string) => ((await v.client.ok('GET', '/sapi/v1/account')).balances as any[]).find((b) => b.asset === asset);

/** Pins the BTCUSDT book: other participants quote only these levels. */
function pinBook(bids: Array<[string, string]>, asks: Array<[string, string]>) {
  v.server.exchange.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids, asks });
}

describe('instruments', () => {
  it('lists the default symbols with precision and minimums', async () => {
    v = await startVenue({ rateLimits: false });
    const r = await v.client.get('/sapi/v1/symbols');
    expect(r.json.symbols).toEqual([
      { symbol: 'btcusdt', baseAsset: 'BTC', quoteAsset: 'USDT', pricePrecision: 2, quantityPrecision: 5, limitVolumeMin: '0.00001', limitPriceMin: '0.01', marketBuyMin: '5', marketSellMin: '0.00001' },
      { symbol: 'ethusdt', baseAsset: 'ETH', quoteAsset: 'USDT', pricePrecision: 2, quantityPrecision: 4, limitVolumeMin: '0.0001', limitPriceMin: '0.01', marketBuyMin: '5', marketSellMin: '0.0001' },
    ]);
  });

  it.each([
    ['unknown symbol', { ...limit('BUY', '100', '1'), symbol: 'DOGEUSDT' }, -1121],
    ['bad side', limit('HOLD', '100', '1'), -1117],
    ['lower-case side', limit('buy', '100', '1'), -1117],
    ['bad type', { ...limit('BUY', '100', '1'), type: 'STOP' }, -1116],
    ['price precision', limit('BUY', '100.001', '1'), -1111],
    ['volume precision', limit('BUY', '100', '0.000001'), -1147],
    ['zero volume', limit('BUY', '100', '0'), -1136],
    ['market buy below its minimum amount', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', volume: '4.99' }, -1136],
    ['market buy amount precision', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', volume: '10.001' }, -1147],
    ['insufficient quote', limit('BUY', '30000', '4'), -2017],
    ['insufficient base', limit('SELL', '30000', '2.00001'), -2017],
    ['LIMIT without price', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1' }, -1102],
    ['price as a JSON number', { ...limit('BUY', '100', '1'), price: 100 }, -1102],
    ['missing symbol', { side: 'BUY', type: 'LIMIT', price: '100', volume: '1' }, -1102],
  ])('%s is rejected with %s, on order and order/test alike, and nothing is placed', async (_name, body, code) => {
    v = await startVenue({ rateLimits: false });
    for (const path of ['/sapi/v1/order', '/sapi/v1/order/test']) {
      const r = await v.client.signed('POST', path, { body });
      expect([r.status, r.json.code]).toEqual([400, code]);
    }
    expect(v.server.exchange.orderLog()).toEqual([]);
    expect(await balance('USDT')).toEqual({ asset: 'USDT', free: '100000', locked: '0' });
  });

  it('accepts a lower-case symbol, and order/test places nothing', async () => {
    v = await startVenue({ rateLimits: false });
    expect(await v.client.ok('POST', '/sapi/v1/order/test', { body: { ...limit('BUY', '100', '1'), symbol: 'btcusdt' } })).toEqual({});
    expect(v.server.exchange.orderLog()).toEqual([]);
    const placed = await v.client.ok('POST', '/sapi/v1/order', { body: { ...limit('BUY', '100', '1'), symbol: 'btcusdt' } });
    expect(placed.symbol).toBe('BTCUSDT');
    const q = await v.client.ok('GET', '/sapi/v1/order', { query: `orderId=${placed.orderId}&symbol=btcusdt` });
    expect(q.orderId).toBe(placed.orderId);
  });
});

describe('matching', () => {
  it('a LIMIT crossing the synthetic book fills at the makers prices, best first', async () => {
    v = await startVenue({ rateLimits: false });
    const depth = (await v.client.get('/sapi/v1/depth', 'symbol=BTCUSDT&limit=5')).json;
    const [p0, q0] = depth.asks[0];
    const [p1] = depth.asks[1];
    // Buy the whole first level and a little of the second, with a limit above both.
    const volume = (Number(q0) + 0.001).toFixed(5);
    const order = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', p1, volume) });
    expect(order.status).toBe('FILLED');
    expect(order.executedQty).toBe(String(Number(volume)));
    const trades = await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' });
    expect(trades.map((t: any) => [t.price, t.qty, t.isMaker, t.isBuyer])).toEqual([
      [p0, q0, false, true],
      [p1, '0.001', false, true],
    ]);
  });

  it('partial fills, maker and taker fees in the received asset, free and locked balances', async () => {
    v = await startVenue({ rateLimits: false });
    pinBook([['29990', '1']], [['30010', '0.5'], ['30020', '1']]);
    const o = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '30015', '1', { newClientOrderId: 'mine-1' }) });
    expect(o).toMatchObject({ symbol: 'BTCUSDT', clientOrderId: 'mine-1', price: '30015', origQty: '1', executedQty: '0.5', status: 'PARTIALLY_FILLED', type: 'LIMIT', side: 'BUY' });
    expect(o.orderId).toMatch(ID);
    expect(o.orderIdString).toBe(o.orderId);
    // Taker: paid 0.5 * 30010 = 15005; fee 0.002 * 0.5 BTC; the rest of the order locks 0.5 * 30015.
    expect(await balance('BTC')).toEqual({ asset: 'BTC', free: '2.499', locked: '0' });
    expect(await balance('USDT')).toEqual({ asset: 'USDT', free: '69987.5', locked: '15007.5' });
    const depth = (await v.client.get('/sapi/v1/depth', 'symbol=BTCUSDT')).json;
    expect(depth.bids[0]).toEqual(['30015', '0.5']);
    expect(depth.asks[0]).toEqual(['30020', '1']);

    // Someone sells 0.2 at 30015: our resting bid fills as maker (fee 0.001 * 0.2 BTC).
    v.server.exchange.applyMarketEvent({ type: 'trade', symbol: 'BTCUSDT', price: '30015', qty: '0.2', side: 'SELL' });
    const q = await v.client.ok('GET', '/sapi/v1/order', { query: `symbol=BTCUSDT&orderId=${o.orderId}` });
    expect(q).toMatchObject({ executedQty: '0.7', status: 'PARTIALLY_FILLED', avgPrice: '30011.4286' });
    expect(await balance('BTC')).toEqual({ asset: 'BTC', free: '2.6988', locked: '0' });
    expect(await balance('USDT')).toEqual({ asset: 'USDT', free: '69987.5', locked: '9004.5' });

    const trades = await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' });
    expect(trades.map((t: any) => [t.price, t.qty, t.fee, t.feeCoin, t.isMaker, t.orderId])).toEqual([
      ['30010', '0.5', '0.001', 'BTC', false, o.orderId],
      ['30015', '0.2', '0.0002', 'BTC', true, o.orderId],
    ]);
    for (const t of trades) expect(t.id).toMatch(ID);
    expect(BigInt(trades[1].id)).toBeGreaterThan(BigInt(trades[0].id));
    // fromId is inclusive, ascending.
    expect((await v.client.ok('GET', '/sapi/v1/myTrades', { query: `symbol=BTCUSDT&fromId=${trades[1].id}` })).map((t: any) => t.id)).toEqual([trades[1].id]);
    expect((await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT&limit=1' })).map((t: any) => t.id)).toEqual([trades[1].id]);
  });

  it('a seller pays its fee in the quote asset; a MARKET BUY spends a quote amount', async () => {
    v = await startVenue({ rateLimits: false });
    pinBook([['30000', '1'], ['29000', '1']], [['31000', '1']]);
    const sell = await v.client.ok('POST', '/sapi/v1/order', { body: { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', volume: '1.5' } });
    expect(sell).toMatchObject({ status: 'FILLED', executedQty: '1.5' });
    // 30000 + 0.5 * 29000 = 44500, less 0.002 taker fee = 44411.
    expect(await balance('USDT')).toEqual({ asset: 'USDT', free: '144411', locked: '0' });
    expect(await balance('BTC')).toEqual({ asset: 'BTC', free: '0.5', locked: '0' });
    const buy = await v.client.ok('POST', '/sapi/v1/order', { body: { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', volume: '3100' } });
    // 3100 USDT at 31000 buys 0.1 BTC (fee 0.0002 BTC).
    expect(buy).toMatchObject({ status: 'FILLED', executedQty: '0.1', origQty: '3100' });
    expect(await balance('BTC')).toEqual({ asset: 'BTC', free: '0.5998', locked: '0' });
    expect(await balance('USDT')).toEqual({ asset: 'USDT', free: '141311', locked: '0' });
  });

  it('cancel answers PENDING_CANCEL, the order settles to CANCELED and its funds come back', async () => {
    v = await startVenue({ rateLimits: false });
    const o = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '1', { newClientOrderId: 'c1' }) });
    expect(o.status).toBe('NEW');
    expect(await balance('USDT')).toEqual({ asset: 'USDT', free: '80000', locked: '20000' });
    const open = await v.client.ok('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' });
    expect(open.map((x: any) => [x.orderId, x.clientOrderId, x.status])).toEqual([[o.orderId, 'c1', 'NEW']]);

    const c = await v.client.ok('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', orderId: o.orderId } });
    expect(c).toEqual({ symbol: 'BTCUSDT', clientOrderId: 'c1', orderId: o.orderId, orderIdString: o.orderId, status: 'PENDING_CANCEL' });
    // By client order id, as the venue allows.
    expect((await v.client.ok('GET', '/sapi/v1/order', { query: 'symbol=BTCUSDT&newClientOrderId=c1' })).status).toBe('PENDING_CANCEL');
    // Asking again while it is pending is harmless.
    expect((await v.client.ok('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', newClientOrderId: 'c1' } })).status).toBe('PENDING_CANCEL');
    await v.clock.advance(200);
    expect((await v.client.ok('GET', '/sapi/v1/order', { query: `symbol=BTCUSDT&orderId=${o.orderId}` })).status).toBe('CANCELED');
    expect(await v.client.ok('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' })).toEqual([]);
    expect(await balance('USDT')).toEqual({ asset: 'USDT', free: '100000', locked: '0' });
    const again = await v.client.signed('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', orderId: o.orderId } });
    expect([again.status, again.json.code]).toEqual([400, -1145]);
  });

  it('unknown orders are -2013, whatever the route', async () => {
    v = await startVenue({ rateLimits: false });
    const o = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.1') });
    expect((await v.client.signed('GET', '/sapi/v1/order', { query: 'symbol=BTCUSDT&orderId=123456789012345678' })).json.code).toBe(-2013);
    expect((await v.client.signed('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', orderId: '123456789012345678' } })).json.code).toBe(-2013);
    // The right id under another symbol is not that order.
    expect((await v.client.signed('GET', '/sapi/v1/order', { query: `symbol=ETHUSDT&orderId=${o.orderId}` })).json.code).toBe(-2013);
  });

  it('a resting order fills when the synthetic market moves through it', async () => {
    v = await startVenue({ rateLimits: false, seed: 5 });
    const depth = (await v.client.get('/sapi/v1/depth', 'symbol=BTCUSDT&limit=1')).json;
    // A bid just inside the spread is the best bid: the other participants' sells hit it.
    const price = (Number(depth.bids[0][0]) + 0.01).toFixed(2);
    const o = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', price, '0.01') });
    expect(o.status).toBe('NEW');
    let status = 'NEW';
    for (let i = 0; i < 240 && status !== 'FILLED'; i++) {
      await v.clock.advance(250);
      status = (await v.client.ok('GET', '/sapi/v1/order', { query: `symbol=BTCUSDT&orderId=${o.orderId}` })).status;
    }
    expect(status).toBe('FILLED');
    const trades = await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' });
    expect(trades.every((t: any) => t.isMaker && t.price === price)).toBe(true);
  });
});

describe('batches', () => {
  const item = (price: string, extra: object = {}) => ({ price, volume: '0.01', side: 'BUY', batchType: 'LIMIT', ...extra });

  it('places up to 10 orders and answers ids and idsString', async () => {
    v = await startVenue({ rateLimits: false });
    const orders = Array.from({ length: 10 }, (_, i) => item(String(20000 + i), { newClientOrderId: `b${i}` }));
    const r = await v.client.ok('POST', '/sapi/v1/batchOrders', { body: { symbol: 'BTCUSDT', orders } });
    expect(r.ids).toHaveLength(10);
    expect(r.idsString).toEqual(r.ids);
    for (const id of r.ids) expect(id).toMatch(ID);
    expect(v.server.exchange.orderLog().map((o) => o.clientOrderId)).toEqual(orders.map((_, i) => `b${i}`));
    const q = await v.client.ok('GET', '/sapi/v1/order', { query: `symbol=BTCUSDT&orderId=${r.ids[3]}` });
    expect(q).toMatchObject({ clientOrderId: 'b3', price: '20003', status: 'NEW' });
  });

  it.each([
    ['11 items', Array.from({ length: 11 }, () => item('20000')), -1015],
    ['one bad side', [item('20000'), item('20001', { side: 'UP' }), item('20002')], -1117],
    ['one bad precision', [item('20000'), item('20000.001')], -1111],
    ['funds for each but not for all', Array.from({ length: 4 }, () => item('30000', { volume: '1' })), -2017],
    ['no orders', [], -1102],
  ])('%s: the whole batch is rejected with one {code,msg} and nothing is placed', async (_n, orders, code) => {
    v = await startVenue({ rateLimits: false });
    const r = await v.client.signed('POST', '/sapi/v1/batchOrders', { body: { symbol: 'BTCUSDT', orders } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json).sort()).toEqual(['code', 'msg']);
    expect(r.json.code).toBe(code);
    expect(v.server.exchange.orderLog()).toEqual([]);
    expect(await balance('USDT')).toEqual({ asset: 'USDT', free: '100000', locked: '0' });
  });

  it('batchCancel answers {success, failed}; ids beyond 2^53 as JSON numbers keep their digits', async () => {
    v = await startVenue({ rateLimits: false });
    const placed = await v.client.ok('POST', '/sapi/v1/batchOrders', { body: { symbol: 'BTCUSDT', orders: [item('20000'), item('20001'), item('20002')] } });
    const [a, b, c] = placed.ids as string[];
    await v.client.ok('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', orderId: c } });
    await v.clock.advance(200);
    // Raw numeric literals, as the venue documents them; c is already canceled; 42 never existed.
    const body = `{"symbol":"BTCUSDT","orderIds":[${a},"${b}",${c},42]}`;
    const r = await v.client.ok('POST', '/sapi/v1/batchCancel', { body });
    expect(r).toEqual({ success: [a, b], failed: [c, '42'] });
    await v.clock.advance(200);
    const open = await v.client.ok('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' });
    expect(open).toEqual([]);
    const over = await v.client.signed('POST', '/sapi/v1/batchCancel', { body: { symbol: 'BTCUSDT', orderIds: Array.from({ length: 11 }, (_, i) => String(i + 1)) } });
    expect([over.status, over.json.code]).toEqual([400, -1015]);
  });
});

describe('market data', () => {
  it('depth is sorted best first and never crossed; ticker buy/sell are the depth tops; trades and klines agree', async () => {
    v = await startVenue({ rateLimits: false, seed: 9 });
    for (let minute = 0; minute < 3; minute++) {
      await v.clock.advance(60_000);
      for (const symbol of ['BTCUSDT', 'ETHUSDT']) {
        const depth = (await v.client.get('/sapi/v1/depth', `symbol=${symbol}&limit=20`)).json;
        const ticker = (await v.client.get('/sapi/v1/ticker', `symbol=${symbol}`)).json;
        const trades = (await v.client.get('/sapi/v1/trades', `symbol=${symbol}&limit=5`)).json;
        expect(depth.time).toBe(v.clock.now());
        const bids = depth.bids.map((l: string[]) => Number(l[0]));
        const asks = depth.asks.map((l: string[]) => Number(l[0]));
        expect(bids).toEqual([...bids].sort((x, y) => y - x));
        expect(asks).toEqual([...asks].sort((x, y) => x - y));
        expect(bids[0]).toBeLessThan(asks[0]);
        expect(depth.bids).toHaveLength(20);
        expect([ticker.buy, ticker.sell]).toEqual([depth.bids[0][0], depth.asks[0][0]]);
        expect(trades.length).toBeGreaterThan(0);
        expect(ticker.last).toBe(trades[0].price);
        expect(Number(ticker.low)).toBeLessThanOrEqual(Number(ticker.last));
        expect(Number(ticker.high)).toBeGreaterThanOrEqual(Number(ticker.last));
      }
    }
    const klines = (await v.client.get('/sapi/v1/klines', 'symbol=BTCUSDT&interval=1min')).json;
    expect(klines.length).toBeGreaterThanOrEqual(3);
    for (const k of klines) {
      expect(k.idx % 60_000).toBe(0);
      for (const p of [k.open, k.close]) {
        expect(Number(p)).toBeGreaterThanOrEqual(Number(k.low));
        expect(Number(p)).toBeLessThanOrEqual(Number(k.high));
      }
    }
    const fiveMin = (await v.client.get('/sapi/v1/klines', 'symbol=BTCUSDT&interval=5min')).json;
    expect(fiveMin.length).toBeLessThanOrEqual(2);
    const last = klines[klines.length - 1];
    expect(last.close).toBe((await v.client.get('/sapi/v1/ticker', 'symbol=BTCUSDT')).json.last);
    expect((await v.client.get('/sapi/v1/klines', 'symbol=BTCUSDT&interval=2min')).json.code).toBe(-1102);
    expect((await v.client.get('/sapi/v1/depth', 'symbol=NOPE')).json.code).toBe(-1121);
  });

  it('our own resting order shows in depth and ticker', async () => {
    v = await startVenue({ rateLimits: false });
    const before = (await v.client.get('/sapi/v1/depth', 'symbol=BTCUSDT&limit=1')).json;
    const price = (Number(before.bids[0][0]) + 0.01).toFixed(2);
    await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', price, '0.5') });
    const after = (await v.client.get('/sapi/v1/depth', 'symbol=BTCUSDT&limit=1')).json;
    expect(after.bids[0]).toEqual([price, '0.5']);
    expect((await v.client.get('/sapi/v1/ticker', 'symbol=BTCUSDT')).json.buy).toBe(price);
  });
});
