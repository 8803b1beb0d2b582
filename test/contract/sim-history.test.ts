// The simulator's bounded memory (SimOptions.keepMs, sim/history.ts): final orders and account
// trades older than keepMs are forgotten, so a paper daemon left running does not grow without
// end; resting orders stay whatever their age. Over real HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import { startVenue, type Venue } from './sim-client.js';

let v: Venue;
afterEach(async () => {
  await v?.server.close();
});

const HOUR = 3_600_000;
const limit = (side: string, price: string, volume: string, extra: object = {}) => ({ symbol: 'BTCUSDT', side, type: 'LIMIT', price, volume, ...extra });
const query = (q: string) => v.client.signed('GET', '/sapi/v1/order', { query: `symbol=BTCUSDT&${q}` });

describe('a venue that keeps an hour (keepMs)', () => {
  it('forgets final orders and trades older than keepMs; an old resting order stays open and cancellable', async () => {
    v = await startVenue({ rateLimits: false, keepMs: HOUR });
    v.server.exchange.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [['29990', '1']], asks: [['30010', '0.5']] });
    const filled = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '30015', '0.5', { newClientOrderId: 'old-fill' }) });
    expect(filled.status).toBe('FILLED');
    const resting = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '29000', '0.1', { newClientOrderId: 'old-rest' }) });
    expect(await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' })).toHaveLength(1);

    // Half an hour on: nothing is forgotten yet.
    await v.clock.advance(HOUR / 2);
    expect((await query('clientOrderId=old-fill')).json).toMatchObject({ orderId: filled.orderId, status: 'FILLED' });

    // An hour and two minutes after they were made: the filled order and its trade are gone.
    await v.clock.advance(HOUR / 2 + 120_000);
    const fresh = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '29001', '0.1', { newClientOrderId: 'new' }) });
    for (const q of [`orderId=${filled.orderId}`, 'clientOrderId=old-fill']) expect([(await query(q)).status, (await query(q)).json.code]).toEqual([400, -2013]);
    expect(await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' })).toEqual([]);
    expect(v.server.exchange.allTrades()).toEqual([]);
    expect(v.server.exchange.orderLog().map((o) => o.orderId)).toEqual([fresh.orderId]);

    expect((await query('clientOrderId=old-rest')).json).toMatchObject({ orderId: resting.orderId, status: 'NEW' });
    const open = await v.client.ok('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' });
    expect(open.map((o: any) => o.orderId).sort()).toEqual([resting.orderId, fresh.orderId].sort());
    expect((await v.client.ok('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', orderId: resting.orderId } })).status).toMatch(/CANCELED|PENDING_CANCEL/);
  });

  it('keeps everything without keepMs (tests and backtests judge the whole run)', async () => {
    v = await startVenue({ rateLimits: false });
    v.server.exchange.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [['29990', '1']], asks: [['30010', '0.5']] });
    const filled = await v.client.ok('POST', '/sapi/v1/order', { body: limit('BUY', '30015', '0.5') });
    await v.clock.advance(3 * HOUR);
    expect((await query(`orderId=${filled.orderId}`)).json).toMatchObject({ status: 'FILLED' });
    expect(await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' })).toHaveLength(1);
  });
});
