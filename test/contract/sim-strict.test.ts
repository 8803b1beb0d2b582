// Conformance of the strict venue profile over real HTTP: every knob with its strict value and,
// where it differs, the lenient one; the error-after-act fault; the 5xx body; the rewrite seam.
// Raw answer text is checked where JSON.parse would hide what is on the wire (big ids, zeros).
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { JsonNumber, LENIENT_PROFILE, resolveProfile, SimExchange, STRICT_PROFILE } from '../../src/sim/index.js';
import { startVenue, T0, type Raw, type Venue } from './sim-client.js';

let v: Venue;
afterEach(async () => {
  await v?.server.close();
});

const C = 'E-BTC-USDT';
const limit = (side: string, price: string, volume: string, extra: object = {}) => ({ symbol: 'BTCUSDT', side, type: 'LIMIT', price, volume, ...extra });
const fut = (side: string, open: string, volume: string, extra: object = {}) => ({ contractName: C, side, type: 'MARKET', volume, open, positionType: 1, ...extra });
const pinSpot = (bid: string, ask: string) => v.server.exchange.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [[bid, '10']], asks: [[ask, '10']] });
const pinFut = (bid: string, ask: string) => v.server.exchange.applyMarketEvent({ type: 'book', symbol: C, bids: [[bid, '1000']], asks: [[ask, '1000']] });
const MANDATORY_ORDER_ID = { code: -1102, msg: "Mandatory parameter 'orderId' was not sent, was empty/null, or malformed." };

describe('profiles', () => {
  it('resolves strict (the default), lenient and a custom mix; the exchange exposes it', () => {
    const clock = new ManualClock(T0);
    expect(new SimExchange({ clock }).profile).toBe(STRICT_PROFILE);
    expect(new SimExchange({ clock, profile: 'lenient' }).profile).toBe(LENIENT_PROFILE);
    expect(new SimExchange({ clock, profile: 'strict' }).profile).toBe(STRICT_PROFILE);
    const custom = new SimExchange({ clock, profile: { ...LENIENT_PROFILE, name: 'mix', futuresMyTradesPageCap: 50 } }).profile;
    expect([custom.name, custom.futuresMyTradesPageCap, custom.lookupByClientOrderId, Object.isFrozen(custom)]).toEqual(['mix', 50, true, true]);
    expect(STRICT_PROFILE).toEqual({
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
    expect(() => resolveProfile('loose' as never)).toThrow(/unknown venue profile loose/);
    expect(() => resolveProfile({ name: 'half' } as never)).toThrow(/lacks openOrdersClientOrderId/);
  });
});

describe('knob 1: openOrders items and client order ids', () => {
  for (const profile of ['strict', 'lenient'] as const) {
    it(`${profile}: ${profile === 'strict' ? 'no clientOrderId field' : 'clientOrderId carried'} on spot and futures`, async () => {
      v = await startVenue({ rateLimits: false, profile });
      const s = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01', { newClientOrderId: 'k1' }) });
      const f = await v.client.ok('POST', '/fapi/v1/order', { body: { ...fut('BUY', 'OPEN', '1', { clientOrderId: 'f1' }), type: 'LIMIT', price: '20000' } });
      const spot = await v.client.signed('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' });
      const futures = await v.client.signed('GET', '/fapi/v1/openOrders', { query: `contractName=${C}` });
      expect(spot.json.map((o: any) => o.orderIdString)).toEqual([s.orderIdString]);
      expect(futures.json.map((o: any) => o.orderId)).toEqual([f.orderId]);
      if (profile === 'strict') {
        expect(spot.body).not.toContain('clientOrderId');
        expect(futures.body).not.toContain('clientOrderId');
      } else {
        expect(spot.json[0].clientOrderId).toBe('k1');
        expect(futures.json[0].clientOrderId).toBe('f1');
      }
    });
  }
});

describe('knob 2: query and cancel need orderId', () => {
  it('strict: -1102 without orderId even with a client id, on spot and futures; with orderId they work', async () => {
    v = await startVenue({ rateLimits: false, profile: 'strict' });
    const s = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01', { newClientOrderId: 'k1' }) });
    const f = await v.client.ok('POST', '/fapi/v1/order', { body: { ...fut('BUY', 'OPEN', '1', { clientOrderId: 'f1' }), type: 'LIMIT', price: '20000' } });
    const refused: Raw[] = [
      await v.client.signed('GET', '/sapi/v1/order', { query: 'symbol=BTCUSDT&newClientOrderId=k1' }),
      await v.client.signed('GET', '/sapi/v1/order', { query: 'symbol=BTCUSDT&clientOrderId=k1' }),
      await v.client.signed('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', newClientOrderId: 'k1' } }),
      await v.client.signed('GET', '/fapi/v1/order', { query: `contractName=${C}&clientOrderId=f1` }),
      await v.client.signed('POST', '/fapi/v1/cancel', { body: { contractName: C, clientOrderId: 'f1' } }),
    ];
    for (const r of refused) expect([r.status, r.json]).toEqual([400, MANDATORY_ORDER_ID]);
    expect(v.server.exchange.openOrders().spot.map((o) => o.status)).toEqual(['NEW']);
    expect((await v.client.ok('GET', '/sapi/v1/order', { query: `symbol=BTCUSDT&orderId=${s.orderIdString}` })).clientOrderId).toBe('k1');
    expect((await v.client.ok('GET', '/fapi/v1/order', { query: `contractName=${C}&orderId=${f.orderId}` })).clientOrderId).toBe('f1');
    expect((await v.client.ok('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', orderId: s.orderIdString } })).status).toBe('PENDING_CANCEL');
    expect((await v.client.ok('POST', '/fapi/v1/cancel', { body: { contractName: C, orderId: f.orderId } })).status).toBe('PENDING_CANCEL');
  });

  it('lenient: a client id finds the latest order with it (ids are not unique), per symbol', async () => {
    v = await startVenue({ rateLimits: false });
    const first = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01', { newClientOrderId: 'dup' }) });
    const second = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '20001', '0.01', { newClientOrderId: 'dup' }) });
    await v.client.ok('POST', '/sapi/v1/order', { body: { ...limit('BUY', '1000', '0.01', { newClientOrderId: 'dup' }), symbol: 'ETHUSDT' } });
    expect(first.orderId).not.toBe(second.orderId);
    expect((await v.client.ok('GET', '/sapi/v1/order', { query: 'symbol=BTCUSDT&newClientOrderId=dup' })).orderId).toBe(second.orderId);
    expect((await v.client.ok('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', newClientOrderId: 'dup' } })).orderId).toBe(second.orderId);
    const f1 = await v.client.ok('POST', '/fapi/v1/order', { body: { ...fut('BUY', 'OPEN', '1', { clientOrderId: 'fd' }), type: 'LIMIT', price: '20000' } });
    const f2 = await v.client.ok('POST', '/fapi/v1/order', { body: { ...fut('BUY', 'OPEN', '1', { clientOrderId: 'fd' }), type: 'LIMIT', price: '20001' } });
    expect(f1.orderId).not.toBe(f2.orderId);
    expect((await v.client.ok('GET', '/fapi/v1/order', { query: `contractName=${C}&clientOrderId=fd` })).orderId).toBe(f2.orderId);
  });
});

describe('knob 3: futures openOrders pages', () => {
  for (const profile of ['strict', 'lenient'] as const) {
    it(`${profile}: ${profile === 'strict' ? 'default 100, limit honoured, newest first, above 1000 is -1102' : 'every open order whatever the limit'}`, async () => {
      v = await startVenue({ rateLimits: false, profile });
      const ids: string[] = [];
      for (let i = 0; i < 105; i++) ids.push((await v.client.ok('POST', '/fapi/v1/order', { body: { ...fut('BUY', 'OPEN', '1'), type: 'LIMIT', price: String(20000 + i) } })).orderId);
      const page = async (q = '') => (await v.client.ok('GET', '/fapi/v1/openOrders', { query: `contractName=${C}${q}` })).map((o: any) => o.orderId);
      const newestFirst = [...ids].reverse();
      if (profile === 'strict') {
        expect(await page()).toEqual(newestFirst.slice(0, 100));
        expect(await page('&limit=3')).toEqual(newestFirst.slice(0, 3));
        expect(await page('&limit=1000')).toEqual(newestFirst);
        const over = await v.client.signed('GET', '/fapi/v1/openOrders', { query: `contractName=${C}&limit=1001` });
        expect([over.status, over.json.code]).toEqual([400, -1102]);
      } else {
        expect(await page()).toEqual(newestFirst);
        expect(await page('&limit=3')).toEqual(newestFirst);
        expect(await page('&limit=1001')).toEqual(newestFirst);
      }
    });
  }
});

describe('knob 4: myTrades page caps', () => {
  /** 120 fills of one resting order, one per trade event. */
  async function fills(market: 'spot' | 'futures'): Promise<void> {
    if (market === 'spot') {
      pinSpot('29000', '31000');
      await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '30000', '1') });
    } else {
      pinFut('29000', '31000');
      await v.client.ok('POST', '/fapi/v1/order', { body: { ...fut('BUY', 'OPEN', '200'), type: 'LIMIT', price: '30000' } });
    }
    const symbol = market === 'spot' ? 'BTCUSDT' : C;
    for (let i = 0; i < 120; i++) v.server.exchange.applyMarketEvent({ type: 'trade', symbol, price: '30000', qty: market === 'spot' ? '0.001' : '1', side: 'SELL' });
  }

  for (const profile of ['strict', 'lenient'] as const) {
    it(`${profile}: a futures page holds at most ${profile === 'strict' ? 100 : 1000} whatever the limit; spot pages are not capped below 1000`, async () => {
      v = await startVenue({ rateLimits: false, profile });
      await fills('futures');
      const all = v.server.exchange.allTrades().map((t) => t.id);
      expect(all).toHaveLength(120);
      const page = async (q: string) => (await v.client.ok('GET', '/fapi/v1/myTrades', { query: `contractName=${C}${q}` })).map((t: any) => t.tradeId);
      const cap = profile === 'strict' ? 100 : 1000;
      // Without fromId the latest page, with fromId (inclusive) the first from it; ascending ids.
      expect(await page('&limit=500')).toEqual(all.slice(-Math.min(cap, 500)));
      expect(await page(`&limit=500&fromId=${all[0]}`)).toEqual(all.slice(0, Math.min(cap, 500)));
      expect(await page(`&limit=1000&fromId=${all[100]}`)).toEqual(all.slice(100));
      expect(await page('&limit=7')).toEqual(all.slice(-7));
      expect(await page('')).toEqual(all.slice(-100));
      const over = await v.client.signed('GET', '/fapi/v1/myTrades', { query: `contractName=${C}&limit=1001` });
      expect([over.status, over.json.code]).toEqual([400, -1102]);

      await fills('spot');
      const spotAll = v.server.exchange.allTrades().slice(120).map((t) => t.id);
      const spot = await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT&limit=500' });
      expect(spot.map((t: any) => t.id)).toEqual(spotAll);
      const spotOver = await v.client.signed('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT&limit=1001' });
      expect([spotOver.status, spotOver.json.code]).toEqual([400, -1102]);
    });
  }
});

describe('knob 5: response shapes', () => {
  it('strict spot ack: orderId a bare number written from its digits, orderIdString, status 0 while NEW', async () => {
    v = await startVenue({ rateLimits: false, profile: 'strict' });
    pinSpot('29000', '31000');
    const r = await v.client.signed('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01', { newClientOrderId: 'a1' }) });
    expect(r.status).toBe(200);
    const id = v.server.exchange.orderLog()[0]!.orderId;
    expect(id).toMatch(/^\d{18,19}$/);
    expect(BigInt(id)).toBeGreaterThan(2n ** 53n);
    expect(r.body).toBe(
      `{"symbol":"BTCUSDT","orderId":${id},"orderIdString":"${id}","clientOrderId":"a1","transactTime":"${T0}","price":"20000","origQty":"0.01","executedQty":"0","status":0,"type":"LIMIT","side":"BUY"}`,
    );
    // Another status stays a string.
    const filled = await v.client.signed('POST', '/sapi/v1/order', { body: limit('BUY', '31000', '0.01') });
    const id2 = v.server.exchange.orderLog()[1]!.orderId;
    expect(filled.body).toContain(`"orderId":${id2},"orderIdString":"${id2}"`);
    expect(filled.json.status).toBe('FILLED');
  });

  it('lenient spot ack: orderId a string, status a string', async () => {
    v = await startVenue({ rateLimits: false });
    const r = await v.client.signed('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01') });
    const id = v.server.exchange.orderLog()[0]!.orderId;
    expect(r.body).toContain(`"orderId":"${id}","orderIdString":"${id}"`);
    expect(r.json.status).toBe('NEW');
  });

  it('strict: decimals in openOrders, query order and balances are numbers to 8 places, from their text', async () => {
    v = await startVenue({ rateLimits: false, profile: 'strict', balances: { USDT: '100000.12', BTC: '2', ETH: '20' } });
    await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '20000.5', '0.01') });
    const id = v.server.exchange.orderLog()[0]!.orderId;
    const fields = `"price":20000.50000000,"origQty":0.01000000,"executedQty":0.00000000,"avgPrice":0.00000000,"status":"NEW"`;
    const open = await v.client.signed('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' });
    expect(open.body).toBe(`[{"orderId":"${id}","orderIdString":"${id}","symbol":"BTCUSDT",${fields},"type":"LIMIT","side":"BUY","transactTime":"${T0}","time":${T0}}]`);
    const q = await v.client.signed('GET', '/sapi/v1/order', { query: `symbol=BTCUSDT&orderId=${id}` });
    expect(q.body).toBe(`{"orderId":"${id}","orderIdString":"${id}","clientOrderId":null,"symbol":"BTCUSDT",${fields},"type":"LIMIT","side":"BUY","transactTime":"${T0}","time":${T0}}`);
    const acct = await v.client.signed('GET', '/sapi/v1/account');
    expect(acct.body).toBe(
      '{"balances":[{"asset":"BTC","free":2.00000000,"locked":0.00000000},{"asset":"USDT","free":99800.11500000,"locked":200.00500000},{"asset":"ETH","free":20.00000000,"locked":0.00000000}]}',
    );
    // Futures items too, fills included.
    pinFut('29000', '31000');
    const f = await v.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'OPEN', '2') });
    const fq = await v.client.signed('GET', '/fapi/v1/order', { query: `contractName=${C}&orderId=${f.orderId}` });
    expect(fq.body).toContain('"price":0.00000000,"origQty":2.00000000,"executedQty":2.00000000,"avgPrice":31000.00000000,"status":"FILLED"');
    expect(fq.body).toMatch(/"fills":\[\{"tradeId":"\d{18,19}","price":31000\.00000000,"qty":2\.00000000,"fee":0\.12400000,"time":1700000000000\}\]/);
  });

  it('lenient: the same decimals are strings', async () => {
    v = await startVenue({ rateLimits: false });
    await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '20000.5', '0.01') });
    const open = await v.client.ok('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' });
    expect(open[0]).toMatchObject({ price: '20000.5', origQty: '0.01', executedQty: '0', avgPrice: '0' });
    expect((await v.client.ok('GET', '/sapi/v1/account')).balances[1]).toEqual({ asset: 'USDT', free: '99799.995', locked: '200.005' });
  });

  it('strict myTrades: the notes field lists, no orderId (nor futures id), decimals as numbers', async () => {
    v = await startVenue({ rateLimits: false, profile: 'strict' });
    pinSpot('29000', '30010');
    await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '30010', '0.1') });
    const order = v.server.exchange.orderLog()[0]!.orderId;
    const t = v.server.exchange.allTrades()[0]!;
    const spot = await v.client.signed('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' });
    expect(Object.keys(spot.json[0])).toEqual(['symbol', 'id', 'bidId', 'askId', 'price', 'qty', 'time', 'isBuyer', 'isMaker', 'feeCoin', 'fee', 'bidUserId', 'askUserId', 'isSelf', 'side']);
    expect(spot.json[0]).toMatchObject({ symbol: 'BTCUSDT', id: t.id, bidId: order, isBuyer: true, isMaker: false, feeCoin: 'BTC', bidUserId: 10001, askUserId: 10000, isSelf: false, side: 'BUY' });
    expect(spot.body).toContain('"price":30010.00000000,"qty":0.10000000');
    expect(spot.body).toContain('"fee":0.00020000');

    pinFut('29000', '30000');
    const f = await v.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'OPEN', '3') });
    const futures = await v.client.signed('GET', '/fapi/v1/myTrades', { query: `contractName=${C}` });
    expect(Object.keys(futures.json[0])).toEqual([
      'tradeId', 'bidId', 'askId', 'bidUserId', 'askUserId', 'price', 'qty', 'amount', 'time', 'fee', 'feeCoin', 'side', 'contractName', 'isMaker', 'isBuyer', 'isSelf',
    ]);
    expect(futures.json[0]).toMatchObject({ bidId: f.orderId, bidUserId: 10001, askUserId: 10000, feeCoin: 'USDT', side: 'BUY', contractName: C, isMaker: false, isBuyer: true, isSelf: false });
    // 3 contracts * 0.001 * 30000 = 90; taker fee 0.18.
    expect(futures.body).toContain('"price":30000.00000000,"qty":3.00000000,"amount":90.00000000');
    expect(futures.body).toContain('"fee":0.18000000');
  });

  it('lenient myTrades carry orderId (and futures id), decimals as strings', async () => {
    v = await startVenue({ rateLimits: false });
    pinFut('29000', '30000');
    const f = await v.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'OPEN', '3') });
    const [t] = await v.client.ok('GET', '/fapi/v1/myTrades', { query: `contractName=${C}` });
    expect(t).toMatchObject({ id: t.tradeId, orderId: f.orderId, price: '30000', qty: '3', amount: '90', fee: '0.18', isSelf: false });
  });

  it('strict futures account: null where live venues send null, real values elsewhere', async () => {
    v = await startVenue({ rateLimits: false, profile: 'strict' });
    pinFut('29999', '30000');
    await v.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'OPEN', '10') });
    const acct = (await v.client.ok('GET', '/fapi/v1/account')).account[0];
    expect(acct).toMatchObject({ marginCoin: 'USDT', accountNormal: '99969.4', accountLock: '0', achievedAmount: null, unrealizedAmount: null, totalEquity: null });
    expect(acct.positionVos[0].contractName).toBe(C);
    expect(acct.positionVos[0].positions[0]).toMatchObject({ side: 'BUY', volume: '10', positionType: 1, avgPrice: '30000', openPrice: null, unRealizedAmount: null, holdAmount: null, realizedAmount: null });
    const lenient = await startVenue({ rateLimits: false });
    try {
      lenient.server.exchange.applyMarketEvent({ type: 'book', symbol: C, bids: [['29999', '1000']], asks: [['30000', '1000']] });
      await lenient.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'OPEN', '10') });
      const la = (await lenient.client.ok('GET', '/fapi/v1/account')).account[0];
      expect(la).toMatchObject({ achievedAmount: '0', unrealizedAmount: '-0.005', totalEquity: '99999.395' });
      expect(la.positionVos[0].positions[0]).toMatchObject({ openPrice: '30000', unRealizedAmount: '-0.005', holdAmount: '30', realizedAmount: '0' });
    } finally {
      await lenient.server.close();
    }
  });
});

describe('knob 7: batchCancel with an unusable id list', () => {
  const bad: Array<[string, object]> = [
    ['missing', { symbol: 'BTCUSDT' }],
    ['not an array', { symbol: 'BTCUSDT', orderIds: '123' }],
    ['empty', { symbol: 'BTCUSDT', orderIds: [] }],
    ['an element that is not an id', { symbol: 'BTCUSDT', orderIds: ['12', 'abc'] }],
  ];
  for (const profile of ['strict', 'lenient'] as const) {
    it(`${profile}: ${profile === 'strict' ? '200 {}' : '400 -1102'}; more than 10 ids stays -1015`, async () => {
      v = await startVenue({ rateLimits: false, profile });
      await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01') });
      for (const [name, body] of bad) {
        const r = await v.client.signed('POST', '/sapi/v1/batchCancel', { body });
        if (profile === 'strict') expect([name, r.status, r.body]).toEqual([name, 200, '{}']);
        else expect([name, r.status, r.json.code]).toEqual([name, 400, -1102]);
      }
      expect(v.server.exchange.openOrders().spot.map((o) => o.status)).toEqual(['NEW']);
      const over = await v.client.signed('POST', '/sapi/v1/batchCancel', { body: { symbol: 'BTCUSDT', orderIds: Array.from({ length: 11 }, (_, i) => String(i + 1)) } });
      expect([over.status, over.json.code]).toEqual([400, -1015]);
      const badSymbol = await v.client.signed('POST', '/sapi/v1/batchCancel', { body: { symbol: 'DOGEUSDT' } });
      expect([badSymbol.status, badSymbol.json.code]).toEqual([400, -1121]);
    });
  }
});

describe('knob: order requests and client order ids', () => {
  it("orderClientOrderIds false: an order request carrying its client order id is refused -1103 and places nothing; without it, it is placed", async () => {
    v = await startVenue({ rateLimits: false, profile: { ...STRICT_PROFILE, name: 'no-order-ids', orderClientOrderIds: false } });
    pinFut('29990', '30010');
    const refusals = [
      await v.client.signed('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01', { newClientOrderId: 'k-1' }) }),
      await v.client.signed('POST', '/sapi/v1/order/test', { body: limit('BUY', '20000', '0.01', { newClientOrderId: 'k-2' }) }),
      await v.client.signed('POST', '/fapi/v1/order', { body: fut('BUY', 'OPEN', '1', { clientOrderId: 'k-3' }) }),
    ];
    expect(refusals.map((r) => [r.status, r.json.code, r.json.msg])).toEqual([
      [400, -1103, "An unknown parameter was sent: 'newClientOrderId'."],
      [400, -1103, "An unknown parameter was sent: 'newClientOrderId'."],
      [400, -1103, "An unknown parameter was sent: 'clientOrderId'."],
    ]);
    expect(v.server.exchange.orderLog()).toEqual([]);
    await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01') });
    await v.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'OPEN', '1') });
    expect(v.server.exchange.orderLog().map((o) => [o.market, o.clientOrderId])).toEqual([
      ['spot', undefined],
      ['futures', undefined],
    ]);
  });
});

describe('the rewrite seam', () => {
  it('sees every 200 body by endpoint before it is written, JsonNumbers included, and answers what it returns', async () => {
    const seen: string[] = [];
    v = await startVenue({
      rateLimits: false,
      profile: 'strict',
      rewrite: (endpoint, body) => {
        seen.push(endpoint);
        if (endpoint === 'spot.order') return { ...(body as object), extra: new JsonNumber('1.50') };
        if (endpoint === 'spot.openOrders') return (body as any[]).map((o) => ({ ...o, status: 'EXPIRED', type: 1, avgPrice: null }));
        return body;
      },
    });
    const placed = await v.client.signed('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01') });
    const id = v.server.exchange.orderLog()[0]!.orderId;
    expect(placed.body).toContain(`"orderId":${id},`);
    expect(placed.body.endsWith(',"extra":1.50}')).toBe(true);
    const open = await v.client.ok('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' });
    expect(open[0]).toMatchObject({ orderId: id, status: 'EXPIRED', type: 1, avgPrice: null });
    // Errors are not success bodies.
    expect((await v.client.signed('GET', '/sapi/v1/order', { query: 'symbol=BTCUSDT' })).json.code).toBe(-1102);
    expect(seen).toEqual(['spot.order', 'spot.openOrders']);
  });
});

const AFTER_ACT = [
  { status: 500, type: 'application/json', body: '{"code":-1000,"msg":"An unknown error occurred while processing the request."}', code: -1000 },
  { status: 502, type: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>', code: undefined },
  { status: 200, type: 'application/json', body: '{"code":-1001,"msg":"Internal error; unable to process your request. Please try again."}', code: -1001 },
];
const shapeOf = (r: Raw) => AFTER_ACT.findIndex((a) => a.status === r.status && r.headers['content-type'] === a.type && r.body === a.body);

describe('fault: errorAfterActRate', () => {
  it('every order-placing or cancelling write acts, then answers one of the three shapes; reads and rejections do not', async () => {
    v = await startVenue({ rateLimits: false, profile: 'strict', faults: { errorAfterActRate: 1 } });
    const ex = v.server.exchange;
    const shapes: number[] = [];
    shapes.push(shapeOf(await v.client.signed('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01', { newClientOrderId: 'x1' }) })));
    const item = { price: '20001', volume: '0.01', side: 'BUY', batchType: 'LIMIT' };
    shapes.push(shapeOf(await v.client.signed('POST', '/sapi/v1/batchOrders', { body: { symbol: 'BTCUSDT', orders: [item, item] } })));
    const [a, b, c] = ex.orderLog().map((o) => o.orderId);
    expect(ex.orderLog().map((o) => [o.clientOrderId, o.price])).toEqual([
      ['x1', '20000'],
      [undefined, '20001'],
      [undefined, '20001'],
    ]);
    shapes.push(shapeOf(await v.client.signed('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', orderId: a } })));
    shapes.push(shapeOf(await v.client.signed('POST', '/sapi/v1/batchCancel', { body: `{"symbol":"BTCUSDT","orderIds":[${b},${c}]}` })));
    expect(ex.openOrders().spot.map((o) => [o.orderId, o.status])).toEqual([a, b, c].map((id) => [id, 'PENDING_CANCEL']));
    shapes.push(shapeOf(await v.client.signed('POST', '/fapi/v1/order', { body: { ...fut('BUY', 'OPEN', '1'), type: 'LIMIT', price: '20000' } })));
    const f = ex.orderLog()[3]!;
    expect([f.market, f.symbol, f.open]).toEqual(['futures', C, 'OPEN']);
    shapes.push(shapeOf(await v.client.signed('POST', '/fapi/v1/cancel', { body: { contractName: C, orderId: f.orderId } })));
    expect(ex.openOrders().futures.map((o) => [o.orderId, o.status])).toEqual([[f.orderId, 'PENDING_CANCEL']]);
    for (const s of shapes) expect(s).toBeGreaterThanOrEqual(0);
    const writes = ex.arrivals().filter((x) => x.fault === 'error-after-act');
    expect(writes.map((x) => x.endpoint)).toEqual(['spot.order', 'spot.batchOrders', 'spot.cancel', 'spot.batchCancel', 'futures.order', 'futures.cancel']);
    expect(writes.map((x) => [x.status, x.code])).toEqual(shapes.map((s) => [AFTER_ACT[s]!.status, AFTER_ACT[s]!.code]));

    // Reads, order/test and rejected writes are answered as usual.
    expect((await v.client.signed('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' })).status).toBe(200);
    expect((await v.client.signed('POST', '/sapi/v1/order/test', { body: limit('BUY', '20000', '0.01') })).body).toBe('{}');
    const rejected = await v.client.signed('POST', '/sapi/v1/order', { body: limit('UP', '20000', '0.01') });
    expect([rejected.status, rejected.json.code]).toEqual([400, -1117]);
    expect(ex.orderLog()).toHaveLength(4);
  });

  it('over many draws all three shapes appear, and every order was placed', async () => {
    v = await startVenue({ rateLimits: false, seed: 5, faults: { errorAfterActRate: 1 } });
    const seen = new Map<number, number>();
    for (let i = 0; i < 60; i++) {
      const s = shapeOf(await v.client.signed('POST', '/sapi/v1/order', { body: limit('BUY', String(20000 + i), '0.01') }));
      expect(s).toBeGreaterThanOrEqual(0);
      seen.set(s, (seen.get(s) ?? 0) + 1);
    }
    expect([...seen.keys()].sort()).toEqual([0, 1, 2]);
    for (const n of seen.values()) expect(n).toBeGreaterThan(5);
    expect(v.server.exchange.orderLog()).toHaveLength(60);
    expect(v.server.exchange.openOrders().spot).toHaveLength(60);
  });

  it('a rate below 1 hits some writes; turning it on changes no other draw of the seed', async () => {
    const script = async (rate: number) => {
      const venue = await startVenue({ rateLimits: false, seed: 9, faults: { errorAfterActRate: rate, error5xxRate: 0.2, resetRate: 0.1 }, latencyMs: { min: 0, max: 0 } });
      try {
        const out: string[] = [];
        for (let i = 0; i < 40; i++) {
          const r = await venue.client.signed('POST', '/sapi/v1/order', { body: limit('BUY', String(20000 + i), '0.01') }).catch(() => undefined);
          out.push(r === undefined ? 'reset' : r.status === 503 ? '503' : 'acted');
        }
        return { out, log: venue.server.exchange.orderLog().map((o) => o.orderId), faults: venue.server.exchange.arrivals().map((x) => x.fault ?? '-') };
      } finally {
        await venue.server.close();
      }
    };
    const off = await script(0);
    const on = await script(0.5);
    // The same requests were reset or refused, and the same orders placed with the same ids.
    expect(on.out).toEqual(off.out);
    expect(on.log).toEqual(off.log);
    expect(off.faults.filter((f) => f === 'error-after-act')).toEqual([]);
    const hit = on.faults.filter((f) => f === 'error-after-act').length;
    expect(hit).toBeGreaterThan(5);
    expect(hit).toBeLessThan(off.log.length);
    expect(on.faults.map((f) => (f === 'error-after-act' ? '-' : f))).toEqual(off.faults);
  });
});

describe('fault: error5xx', () => {
  it('answers 503 {code:-1016} (service unavailable) and does nothing', async () => {
    v = await startVenue({ rateLimits: false, profile: 'strict', faults: { error5xxRate: 1 } });
    const r = await v.client.signed('POST', '/sapi/v1/order', { body: limit('BUY', '20000', '0.01') });
    expect([r.status, r.headers['content-type'], r.body]).toEqual([503, 'application/json', '{"code":-1016,"msg":"Service unavailable, please try again later."}']);
    expect(v.server.exchange.orderLog()).toEqual([]);
    expect(v.server.exchange.arrivals()[0]).toMatchObject({ endpoint: 'spot.order', status: 503, code: -1016, fault: 'error5xx' });
  });
});

describe('self-trades: listed twice, once from each side, both isSelf', () => {
  for (const profile of ['strict', 'lenient'] as const) {
    it(`${profile}: spot and futures`, async () => {
      v = await startVenue({ rateLimits: false, profile });
      const ex = v.server.exchange;
      pinSpot('29000', '31000');
      await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '30000', '0.1') });
      await v.client.ok('POST', '/sapi/v1/order', { body: limit('SELL', '30000', '0.1') });
      const [buy, sell] = ex.orderLog().map((o) => o.orderId);
      const spot = await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' });
      // The buyer rested (maker, fee 0.1 * 0.001 BTC); the seller took (fee 3000 * 0.002 USDT).
      expect(spot.map((t: any) => [t.id, t.bidId, t.askId, t.isBuyer, t.isMaker, t.isSelf, t.feeCoin, String(t.fee), String(t.qty)])).toEqual([
        [spot[0].id, buy, sell, true, true, true, 'BTC', '0.0001', '0.1'],
        [spot[0].id, buy, sell, false, false, true, 'USDT', '6', '0.1'],
      ]);
      expect(spot[0].id).toMatch(/^\d{18,19}$/);

      pinFut('29000', '31000');
      await v.client.ok('POST', '/fapi/v1/order', { body: { ...fut('BUY', 'OPEN', '2'), type: 'LIMIT', price: '30000' } });
      await v.client.ok('POST', '/fapi/v1/order', { body: { ...fut('SELL', 'OPEN', '2'), type: 'LIMIT', price: '30000' } });
      const [fbuy, fsell] = ex.orderLog().slice(2).map((o) => o.orderId);
      const futures = await v.client.ok('GET', '/fapi/v1/myTrades', { query: `contractName=${C}` });
      // Notional 2 * 0.001 * 30000 = 60: maker fee 0.06, taker fee 0.12.
      expect(futures.map((t: any) => [t.tradeId, t.bidId, t.askId, t.isBuyer, t.isMaker, t.isSelf, t.side, String(t.fee)])).toEqual([
        [futures[0].tradeId, fbuy, fsell, false, false, true, 'SELL', '0.12'],
        [futures[0].tradeId, fbuy, fsell, true, true, true, 'BUY', '0.06'],
      ]);
      // Hedge model: the two legs are a long and a short side by side.
      expect(ex.futuresState().positions.map((p) => [p.side, p.lots])).toEqual([
        ['SELL', 2],
        ['BUY', 2],
      ]);
    });
  }
});

describe('futures position models', () => {
  const account = async () => (await v.client.ok('GET', '/fapi/v1/account')).account[0];
  const positions = async () => ((await account()).positionVos[0]?.positions ?? []).map((p: any) => [p.side, p.volume, p.avgPrice]);

  it('net (1): one position per contract; an OPEN against it reduces first (PnL realised), the rest opens the other way', async () => {
    v = await startVenue({ rateLimits: false, profile: 'strict', futuresPositionModel: 1 });
    pinFut('29999', '30000');
    await v.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'OPEN', '10') });
    expect(await positions()).toEqual([['BUY', '10', '30000']]);
    pinFut('31000', '31002');
    expect((await v.client.ok('POST', '/fapi/v1/order', { body: fut('SELL', 'OPEN', '15') })).status).toBe('FILLED');
    // 10 closed at 31000: PnL (31000 - 30000) * 10 * 0.001 = 10; 5 short opened at 31000.
    expect(await positions()).toEqual([['SELL', '5', '31000']]);
    const state = v.server.exchange.futuresState();
    expect([state.realized, state.locked, state.positions.map((p) => p.margin)]).toEqual(['10', '0', ['15.5']]);
    // 100000 - fees (0.6 + 0.93) - margin 15.5 + PnL 10.
    expect((await account()).accountNormal).toBe('99992.97');

    // CLOSE reduces the opposite position only, and no more than it holds.
    for (const body of [fut('SELL', 'CLOSE', '1'), fut('BUY', 'CLOSE', '6')]) {
      const r = await v.client.signed('POST', '/fapi/v1/order', { body });
      expect([r.status, r.json.code]).toEqual([400, 10015]);
    }
    expect((await v.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'CLOSE', '5') })).status).toBe('FILLED');
    expect(await positions()).toEqual([]);
    expect(v.server.exchange.orderLog().map((o) => `${o.side} ${o.open} ${o.volume}`)).toEqual(['BUY OPEN 10', 'SELL OPEN 15', 'BUY CLOSE 5']);
  });

  it('net (1): an OPEN that takes lots a resting CLOSE reserved cancels that CLOSE', async () => {
    v = await startVenue({ rateLimits: false, futuresPositionModel: 1 });
    pinFut('29999', '30000');
    await v.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'OPEN', '10') });
    const close = await v.client.ok('POST', '/fapi/v1/order', { body: { ...fut('SELL', 'CLOSE', '10'), type: 'LIMIT', price: '40000' } });
    expect((await account()).positionVos[0].positions[0]).toMatchObject({ volume: '10', closeVolume: '0', pendingCloseVolume: '10' });
    await v.client.ok('POST', '/fapi/v1/order', { body: fut('SELL', 'OPEN', '4') });
    expect((await v.client.ok('GET', '/fapi/v1/order', { query: `contractName=${C}&orderId=${close.orderId}` })).status).toBe('CANCELED');
    expect(await v.client.ok('GET', '/fapi/v1/openOrders', { query: `contractName=${C}` })).toEqual([]);
    expect((await account()).positionVos[0].positions[0]).toMatchObject({ side: 'BUY', volume: '6', closeVolume: '6', pendingCloseVolume: '0' });
    expect((await v.client.signed('POST', '/fapi/v1/order', { body: fut('SELL', 'CLOSE', '7') })).json.code).toBe(10015);
    await v.client.ok('POST', '/fapi/v1/order', { body: fut('SELL', 'CLOSE', '6') });
    expect(await positions()).toEqual([]);
  });

  it('hedge (2, the default): long and short side by side; a CLOSE reduces its own side only', async () => {
    v = await startVenue({ rateLimits: false, profile: 'strict', futuresPositionModel: 2 });
    pinFut('29999', '30000');
    await v.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'OPEN', '10') });
    await v.client.ok('POST', '/fapi/v1/order', { body: fut('SELL', 'OPEN', '4') });
    const acct = await account();
    expect(acct.positionVos).toHaveLength(1);
    expect(acct.positionVos[0].positions.map((p: any) => [p.side, p.volume, p.avgPrice, p.positionType])).toEqual([
      ['BUY', '10', '30000', 1],
      ['SELL', '4', '29999', 1],
    ]);
    expect((await v.client.signed('POST', '/fapi/v1/order', { body: fut('BUY', 'CLOSE', '5') })).json.code).toBe(10015);
    await v.client.ok('POST', '/fapi/v1/order', { body: fut('BUY', 'CLOSE', '4') });
    expect(await positions()).toEqual([['BUY', '10', '30000']]);
    expect(v.server.exchange.futuresState().realized).toBe('-0.004');
  });
});
