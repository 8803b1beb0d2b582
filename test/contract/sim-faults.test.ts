// Conformance: every fault with its rate, made certain with rate 1 (or driven by the seed):
// latency, 5xx, resets, lost responses after the venue acted, 504s, late fills, clock skew;
// and the in-process transport's view of the same faults.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { TransportFailure } from '../../src/core/ports.js';
import { SimExchange, SimTransport } from '../../src/sim/index.js';
import { hmacHex, NoAnswer, startVenue, T0, type Venue } from './sim-client.js';

let v: Venue;
afterEach(async () => {
  await v?.server.close();
});

const buy = (price: string, volume = '0.01') => ({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price, volume });

/** A manual clock that says when someone starts sleeping on it, so tests wait on events, not time. */
class WatchedClock extends ManualClock {
  private waiters: Array<() => void> = [];
  override sleep(ms: number): Promise<void> {
    const p = super.sleep(ms);
    for (const w of this.waiters.splice(0)) w();
    return p;
  }
  nextSleep(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }
}

describe('faults', () => {
  it('5xx: answered 503 {code:-1016} (service unavailable) without acting', async () => {
    v = await startVenue({ rateLimits: false, faults: { error5xxRate: 1 } });
    const r = await v.client.signed('POST', '/sapi/v1/order', { body: buy('20000') });
    expect([r.status, r.json]).toEqual([503, { code: -1016, msg: 'Service unavailable, please try again later.' }]);
    expect((await v.client.get('/sapi/v1/ping')).status).toBe(503);
    expect(v.server.exchange.orderLog()).toEqual([]);
    expect(v.server.exchange.arrivals().map((a) => a.fault)).toEqual(['error5xx', 'error5xx']);
  });

  it('connection reset: no answer, and the venue did not act', async () => {
    v = await startVenue({ rateLimits: false, faults: { resetRate: 1 } });
    await expect(v.client.signed('POST', '/sapi/v1/order', { body: buy('20000') })).rejects.toBeInstanceOf(NoAnswer);
    expect(v.server.exchange.orderLog()).toEqual([]);
    expect(v.server.exchange.arrivals()[0]).toMatchObject({ endpoint: 'spot.order', status: 0, fault: 'reset' });
  });

  it('lost response: the order exists, the client never hears; reads are answered', async () => {
    v = await startVenue({ rateLimits: false, faults: { lostResponseRate: 1 } });
    await expect(v.client.signed('POST', '/sapi/v1/order', { body: { ...buy('20000'), newClientOrderId: 'lost-1' } })).rejects.toBeInstanceOf(NoAnswer);
    const log = v.server.exchange.orderLog();
    expect(log.map((o) => o.clientOrderId)).toEqual(['lost-1']);
    const open = await v.client.ok('GET', '/sapi/v1/openOrders', { query: 'symbol=BTCUSDT' });
    expect(open.map((o: any) => [o.orderId, o.clientOrderId])).toEqual([[log[0]!.orderId, 'lost-1']]);
    // Cancels are writes too: acted on, answer lost.
    await expect(v.client.signed('POST', '/sapi/v1/cancel', { body: { symbol: 'BTCUSDT', newClientOrderId: 'lost-1' } })).rejects.toBeInstanceOf(NoAnswer);
    expect((await v.client.ok('GET', '/sapi/v1/order', { query: 'symbol=BTCUSDT&newClientOrderId=lost-1' })).status).toBe('PENDING_CANCEL');
    // A rejected write is answered: nothing was accepted, nothing to lose.
    expect((await v.client.signed('POST', '/sapi/v1/order', { body: { ...buy('20000'), side: 'UP' } })).json.code).toBe(-1117);
  });

  it('504 after acting: the order exists and the answer says the outcome is unknown', async () => {
    v = await startVenue({ rateLimits: false, faults: { timeoutRate: 1 } });
    const r = await v.client.signed('POST', '/sapi/v1/batchOrders', { body: { symbol: 'BTCUSDT', orders: [{ price: '20000', volume: '0.01', side: 'BUY', batchType: 'LIMIT' }] } });
    expect([r.status, r.json.code]).toEqual([504, -1007]);
    expect(v.server.exchange.orderLog()).toHaveLength(1);
  });

  it('late fills: the order fills now, myTrades shows the fill only lateFillDelayMs later', async () => {
    v = await startVenue({ rateLimits: false, faults: { lateFillRate: 1, lateFillDelayMs: 3000 } });
    v.server.exchange.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [['29990', '1']], asks: [['30010', '1']] });
    const o = await v.client.ok('POST', '/sapi/v1/order', { body: buy('30010', '0.1') });
    expect(o.status).toBe('FILLED');
    expect(await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' })).toEqual([]);
    await v.clock.advance(2999);
    expect(await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' })).toEqual([]);
    await v.clock.advance(1);
    const trades = await v.client.ok('GET', '/sapi/v1/myTrades', { query: 'symbol=BTCUSDT' });
    expect(trades.map((t: any) => [t.orderId, t.price, t.qty, t.time])).toEqual([[o.orderId, '30010', '0.1', T0]]);
  });

  it('clock skew: serverTime and the timing rule use the skewed venue clock', async () => {
    v = await startVenue({ rateLimits: false, faults: { clockSkewMs: -3000 } });
    expect((await v.client.get('/sapi/v1/time')).json.serverTime).toBe(T0 - 3000);
    // Our clock is 3 s ahead of the venue: beyond the 1 s lead allowed.
    expect((await v.client.signed('GET', '/sapi/v1/account')).json.code).toBe(-1021);
    expect((await v.client.signed('GET', '/sapi/v1/account', { ts: T0 - 3000 })).status).toBe(200);
    v.server.exchange.setFaults({ clockSkewMs: 4000 });
    expect((await v.client.signed('GET', '/sapi/v1/account')).status).toBe(200);
    v.server.exchange.setFaults({ clockSkewMs: 5001 });
    expect((await v.client.signed('GET', '/sapi/v1/account')).json.code).toBe(-1021);
  });

  it('latency: each way, on the injected clock', async () => {
    const clock = new WatchedClock(T0);
    v = await startVenue({ rateLimits: false, clock, latencyMs: { min: 100, max: 100 } });
    let done = false;
    const sleeping = clock.nextSleep();
    const pending = v.client.get('/sapi/v1/time').then((r) => {
      done = true;
      return r;
    });
    await sleeping;
    expect(v.server.exchange.arrivals()).toHaveLength(0);
    await clock.advance(99);
    expect(v.server.exchange.arrivals()).toHaveLength(0);
    const back = clock.nextSleep();
    await clock.advance(1);
    // Arrived (processed at T0+100), now travelling back.
    await back;
    expect(v.server.exchange.arrivals()).toHaveLength(1);
    expect(done).toBe(false);
    await clock.advance(100);
    const r = await pending;
    expect(r.json.serverTime).toBe(T0 + 100);
  });

  it('fault draws come from the seed: the same seed gives the same outcomes', async () => {
    const outcomes = async (seed: number) => {
      const ex = new SimExchange({ seed, clock: new ManualClock(T0), rateLimits: false, faults: { error5xxRate: 0.3, resetRate: 0.2 } });
      const t = new SimTransport(ex);
      const out: string[] = [];
      for (let i = 0; i < 40; i++) {
        try {
          out.push(String((await t.send({ method: 'GET', path: '/sapi/v1/ping', query: '', body: '', headers: {} })).status));
        } catch {
          out.push('reset');
        }
      }
      return out;
    };
    const a = await outcomes(11);
    expect(await outcomes(11)).toEqual(a);
    expect(new Set(a)).toEqual(new Set(['200', '503', 'reset']));
    expect(await outcomes(12)).not.toEqual(a);
  });
});

describe('the in-process transport', () => {
  const signed = (ex: SimExchange, clock: ManualClock, body: string) => {
    const ts = String(clock.now());
    return {
      method: 'POST' as const,
      path: '/sapi/v1/order',
      query: '',
      body,
      headers: { 'X-CH-APIKEY': ex.apiKey, 'X-CH-TS': ts, 'X-CH-SIGN': hmacHex(ex.apiSecret, `${ts}POST/sapi/v1/order${body}`) },
    };
  };

  it('answers like the server (and sets Content-Type as the HTTP transport does)', async () => {
    const clock = new ManualClock(T0);
    const ex = new SimExchange({ clock, profile: 'lenient' });
    const r = await new SimTransport(ex).send(signed(ex, clock, JSON.stringify(buy('20000'))));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).status).toBe('NEW');
  });

  it('turns resets and lost responses into TransportFailure(maybeDelivered=true)', async () => {
    const clock = new ManualClock(T0);
    const ex = new SimExchange({ clock, faults: { resetRate: 1 } });
    const t = new SimTransport(ex);
    const reset = await t.send(signed(ex, clock, JSON.stringify(buy('20000')))).catch((e: unknown) => e);
    expect(reset).toBeInstanceOf(TransportFailure);
    expect((reset as TransportFailure).maybeDelivered).toBe(true);
    expect(ex.orderLog()).toHaveLength(0);
    ex.setFaults({ resetRate: 0, lostResponseRate: 1 });
    const lost = await t.send(signed(ex, clock, JSON.stringify(buy('20000')))).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(TransportFailure);
    expect((lost as TransportFailure).maybeDelivered).toBe(true);
    expect(ex.orderLog()).toHaveLength(1);
  });

  it('waits the latency on the injected clock', async () => {
    const clock = new ManualClock(T0);
    const ex = new SimExchange({ clock, latencyMs: { min: 50, max: 50 } });
    let done = false;
    const p = new SimTransport(ex).send({ method: 'GET', path: '/sapi/v1/time', query: '', body: '', headers: {} }).then((r) => {
      done = true;
      return r;
    });
    await clock.advance(99);
    expect(done).toBe(false);
    await clock.advance(1);
    expect(JSON.parse((await p).body).serverTime).toBe(T0 + 50);
  });
});
