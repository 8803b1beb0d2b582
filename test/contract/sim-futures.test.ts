// Conformance: futures end to end over HTTP: contracts and market data, open a long, see it in
// the account with margin and unrealised PnL, close it, realised PnL; limits and cancels.
import { afterEach, describe, expect, it } from 'vitest';
import { startVenue, type Venue } from './sim-client.js';

let v: Venue;
afterEach(async () => {
  await v?.server.close();
});

const C = 'E-BTC-USDT';
const order = (side: string, open: string, volume: string, extra: object = {}) => ({ contractName: C, side, type: 'MARKET', volume, open, positionType: 1, ...extra });
const account = async () => (await v.client.ok('GET', '/fapi/v1/account')).account[0];
const pin = (bid: string, ask: string) => v.server.exchange.applyMarketEvent({ type: 'book', symbol: C, bids: [[bid, '1000']], asks: [[ask, '1000']] });

describe('futures', () => {
  it('edit_lever sets a contract\'s leverage: margin follows, the account shows it, refused while orders are open', async () => {
    v = await startVenue({ rateLimits: false });
    pin('29999', '30000');
    expect(await v.client.ok('POST', '/fapi/v1/edit_lever', { body: { contractName: C, nowLevel: 20 } })).toEqual({ code: '0', msg: 'success', data: null });
    await v.client.ok('POST', '/fapi/v1/order', { body: order('BUY', 'OPEN', '10') });
    // Notional 300 at 20x: margin 15 (at 10x it was 30).
    expect((await account()).positionVos[0].positions[0]).toMatchObject({ holdAmount: '15', leverageLevel: 20 });
    await v.client.ok('POST', '/fapi/v1/order', { body: { ...order('BUY', 'OPEN', '1'), type: 'LIMIT', price: '29000' } });
    const busy = await v.client.signed('POST', '/fapi/v1/edit_lever', { body: { contractName: C, nowLevel: 5 } });
    expect(busy.status).toBe(400);
    expect(busy.json.msg).toMatch(/orders are open/);
    const bad = await v.client.signed('POST', '/fapi/v1/edit_lever', { body: { contractName: C, nowLevel: 0 } });
    expect(bad.status).toBe(400);
  });

  it('timeInForce: POST_ONLY rests or is cancelled untraded, IOC takes what it can and cancels the rest, FOK all or nothing', async () => {
    v = await startVenue({ rateLimits: false });
    pin('29999', '30000'); // 1000 contracts each side
    const limit = (side: string, price: string, volume: string, timeInForce: string) => v.client.ok('POST', '/fapi/v1/order', { body: { ...order(side, 'OPEN', volume), type: 'LIMIT', price, timeInForce } });
    expect((await limit('BUY', '29000', '5', 'POST_ONLY')).status).toBe('INIT'); // the family reports a fresh futures order as INIT
    expect((await limit('BUY', '30000', '5', 'POST_ONLY')).status).toBe('CANCELED');
    expect((await limit('BUY', '30000', '1500', 'IOC')).status).toBe('CANCELED'); // 1000 taken, 500 cancelled
    pin('29999', '30000');
    expect((await limit('BUY', '30000', '1500', 'FOK')).status).toBe('CANCELED');
    expect((await limit('BUY', '30000', '10', 'FOK')).status).toBe('FILLED');
    expect((await limit('BUY', '29000', '10', '5')).status).toBe('INIT'); // 5: POST_ONLY as the family's integer
    const bad = await v.client.signed('POST', '/fapi/v1/order', { body: { ...order('BUY', 'OPEN', '1'), timeInForce: 'GTC' } });
    expect(bad.status).toBe(400);
  });

  it('lists contracts, and serves ticker and depth consistent with each other', async () => {
    v = await startVenue({ rateLimits: false });
    const contracts = (await v.client.get('/fapi/v1/contracts')).json;
    expect(contracts.map((c: any) => [c.symbol, c.contractId, c.multiplier, c.pricePrecision, c.status])).toEqual([
      ['E-BTC-USDT', 1, '0.001', 1, 1],
      ['E-ETH-USDT', 2, '0.01', 2, 1],
    ]);
    await v.clock.advance(10_000);
    const depth = (await v.client.get('/fapi/v1/depth', `contractName=${C}&limit=5`)).json;
    const ticker = (await v.client.get('/fapi/v1/ticker', `contractName=${C}`)).json;
    expect(Number(depth.bids[0][0])).toBeLessThan(Number(depth.asks[0][0]));
    expect([ticker.buy, ticker.sell]).toEqual([depth.bids[0][0], depth.asks[0][0]]);
    // The contract follows its underlying spot market.
    const spot = (await v.client.get('/sapi/v1/ticker', 'symbol=BTCUSDT')).json;
    expect(Math.abs(Number(ticker.buy) - Number(spot.buy))).toBeLessThan(5);
    expect((await v.client.get('/fapi/v1/ping')).json).toEqual({});
    expect((await v.client.get('/fapi/v1/ticker', 'contractName=E-DOGE-USDT')).json.code).toBe(-1121);
  });

  it("serves the contract's klines as spot's route serves a symbol's: the futures intervals of the notes (1h, not 60min; no 4h), limit, startTime, endTime", async () => {
    v = await startVenue({ rateLimits: false, seed: 4 });
    for (let minute = 0; minute < 130; minute++) await v.clock.advance(60_000);
    const get = async (q: string) => (await v.client.get('/fapi/v1/klines', `contractName=${C}&${q}`)).json;
    const minutes = await get('interval=1min');
    expect(minutes).toHaveLength(100); // the default page
    const m = v.server.exchange.markets.get(C)!;
    expect(minutes).toEqual(m.klines((t) => Math.floor(t / 60_000) * 60_000, { limit: 100 }).map((c) => ({ idx: c.idx, open: m.price(c.open), close: m.price(c.close), high: m.price(c.high), low: m.price(c.low), vol: m.qty(c.lots), amount: expect.any(String) })));
    expect(minutes.at(-1).close).toBe((await v.client.get('/fapi/v1/ticker', `contractName=${C}`)).json.last);
    // Not the underlying's candles.
    expect(minutes.map((k: any) => k.close)).not.toEqual((await v.client.get('/sapi/v1/klines', 'symbol=BTCUSDT&interval=1min')).json.map((k: any) => k.close));
    expect(await get('interval=1min&limit=3')).toEqual(minutes.slice(-3));
    const from = minutes[10].idx;
    const to = minutes[12].idx;
    expect(await get(`interval=1min&startTime=${from}&endTime=${to}`)).toEqual(minutes.slice(10, 13));
    const hours = await get('interval=1h');
    expect(hours.length).toBeGreaterThanOrEqual(3);
    for (const k of hours) expect(k.idx % 3_600_000).toBe(0);
    for (const interval of ['5min', '15min', '30min', '1day', '1week', '1month']) expect(Array.isArray(await get(`interval=${interval}`))).toBe(true);
    for (const interval of ['60min', '4h', '2min']) expect((await get(`interval=${interval}`)).code).toBe(-1102);
    expect((await v.client.get('/fapi/v1/klines', 'contractName=E-DOGE-USDT&interval=1min')).json.code).toBe(-1121);
  });

  it('open a long, see the position with margin and unrealised PnL, close it for a realised PnL', async () => {
    v = await startVenue({ rateLimits: false });
    pin('29999', '30000');
    const open = await v.client.ok('POST', '/fapi/v1/order', { body: order('BUY', 'OPEN', '10', { clientOrderId: 'long-1' }) });
    expect(open).toMatchObject({ clientOrderId: 'long-1', status: 'FILLED' });
    expect(open.orderId).toMatch(/^\d{18,19}$/);
    // Notional 10 * 0.001 * 30000 = 300: margin 30 at 10x, taker fee 0.6.
    let acct = await account();
    expect(acct).toMatchObject({ marginCoin: 'USDT', accountNormal: '99969.4', accountLock: '0', totalPositionNormal: '30', unrealizedAmount: '-0.005' });
    expect(acct.positionVos).toHaveLength(1);
    expect(acct.positionVos[0]).toMatchObject({ contractId: 1, contractName: C });
    expect(acct.positionVos[0].positions[0]).toMatchObject({ side: 'BUY', positionType: 1, volume: '10', avgPrice: '30000', openPrice: '30000', holdAmount: '30', leverageLevel: 10 });

    pin('31000', '31002');
    acct = await account();
    // Mark 31001: (31001 - 30000) * 10 * 0.001.
    expect(acct.unrealizedAmount).toBe('10.01');
    expect(acct.positionVos[0].positions[0].unRealizedAmount).toBe('10.01');

    const tooMuch = await v.client.signed('POST', '/fapi/v1/order', { body: order('SELL', 'CLOSE', '11') });
    expect([tooMuch.status, tooMuch.json.code]).toEqual([400, 10015]);
    const close = await v.client.ok('POST', '/fapi/v1/order', { body: order('SELL', 'CLOSE', '10') });
    expect(close.status).toBe('FILLED');
    acct = await account();
    // Realised (31000 - 30000) * 10 * 0.001 = 10, fee 310 * 0.002 = 0.62.
    expect(acct).toMatchObject({ accountNormal: '100008.78', achievedAmount: '10', unrealizedAmount: '0', positionVos: [] });

    const trades = await v.client.ok('GET', '/fapi/v1/myTrades', { query: `contractName=${C}` });
    expect(trades.map((t: any) => [t.side, t.price, t.qty, t.fee, t.isMaker, t.contractName])).toEqual([
      ['BUY', '30000', '10', '0.6', false, C],
      ['SELL', '31000', '10', '0.62', false, C],
    ]);
    expect(trades[0].tradeId).toMatch(/^\d{18,19}$/);
    const q = await v.client.ok('GET', '/fapi/v1/order', { query: `contractName=${C}&clientOrderId=long-1` });
    expect(q).toMatchObject({ orderId: open.orderId, status: 'FILLED', executedQty: '10', avgPrice: '30000', action: 'OPEN', contractName: C });
  });

  it('a short position: open SELL, close BUY', async () => {
    v = await startVenue({ rateLimits: false });
    pin('30000', '30001');
    await v.client.ok('POST', '/fapi/v1/order', { body: order('SELL', 'OPEN', '5') });
    let acct = await account();
    expect(acct.positionVos[0].positions[0]).toMatchObject({ side: 'SELL', volume: '5', avgPrice: '30000' });
    pin('28999', '29000');
    await v.client.ok('POST', '/fapi/v1/order', { body: order('BUY', 'CLOSE', '5') });
    acct = await account();
    // (30000 - 29000) * 5 * 0.001 = 5.
    expect(acct.achievedAmount).toBe('5');
    expect(acct.positionVos).toEqual([]);
  });

  it('a LIMIT order locks margin, shows in openOrders, and cancel settles to CANCELED and unlocks', async () => {
    v = await startVenue({ rateLimits: false });
    pin('29999', '30000');
    const o = await v.client.ok('POST', '/fapi/v1/order', { body: { ...order('BUY', 'OPEN', '10'), type: 'LIMIT', price: '29000' } });
    expect(o.status).toBe('INIT');
    // 290 notional: 29 margin plus at most 0.58 fee locked.
    expect(await account()).toMatchObject({ accountNormal: '99970.42', accountLock: '29.58' });
    const open = await v.client.ok('GET', '/fapi/v1/openOrders', { query: `contractName=${C}` });
    expect(open.map((x: any) => [x.orderId, x.status, x.price, x.origQty])).toEqual([[o.orderId, 'INIT', '29000', '10']]);
    const c = await v.client.ok('POST', '/fapi/v1/cancel', { body: { contractName: C, orderId: o.orderId } });
    expect(c).toMatchObject({ orderId: o.orderId, status: 'PENDING_CANCEL' });
    await v.clock.advance(200);
    expect((await v.client.ok('GET', '/fapi/v1/order', { query: `contractName=${C}&orderId=${o.orderId}` })).status).toBe('CANCELED');
    expect(await account()).toMatchObject({ accountNormal: '100000', accountLock: '0' });
    expect((await v.client.signed('POST', '/fapi/v1/cancel', { body: { contractName: C, orderId: o.orderId } })).json.code).toBe(-1145);
    expect((await v.client.signed('POST', '/fapi/v1/cancel', { body: { contractName: C, orderId: '111111111111111111' } })).json.code).toBe(-2013);
  });

  it.each([
    ['unknown contract', { ...order('BUY', 'OPEN', '1'), contractName: 'E-DOGE-USDT' }, -1121],
    ['bad side', order('LONG', 'OPEN', '1'), -1117],
    ['bad type', { ...order('BUY', 'OPEN', '1'), type: 'STOP' }, -1116],
    ['bad open', order('BUY', 'MAYBE', '1'), -1102],
    ['bad positionType', { ...order('BUY', 'OPEN', '1'), positionType: 3 }, -1102],
    ['fractional contracts', order('BUY', 'OPEN', '1.5'), -1147],
    ['insufficient margin', order('BUY', 'OPEN', '40000'), -2017],
    ['close with no position', order('SELL', 'CLOSE', '1'), 10015],
  ])('%s is rejected with %s', async (_n, body, code) => {
    v = await startVenue({ rateLimits: false });
    const r = await v.client.signed('POST', '/fapi/v1/order', { body });
    expect([r.status, r.json.code]).toEqual([400, code]);
    expect(v.server.exchange.orderLog()).toEqual([]);
  });
});
