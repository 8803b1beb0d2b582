// The simulator plays back the troubles a tape recorded (SimOptions.incidents): a ban answers
// every request in its window, stating its end only when the recorded one did; each other
// incident meets the first request on its endpoint at or after its time, once; a recorded 504 or
// lost answer on a write comes after the venue acted, a 5xx and a reset before it would.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { TransportFailure, type HttpRequest } from '../../../src/core/ports.js';
import { SimExchange, SimTransport, type RecordedIncident } from '../../../src/sim/index.js';
import { signedRequest } from '../tape/helpers.js';

const T0 = Date.UTC(2026, 0, 1);
const json = { 'content-type': 'application/json' };

const INCIDENTS: RecordedIncident[] = [
  { kind: 'unknown_outcome', at: T0 + 1000, endpoint: 'spot.order', answer: { status: 504, headers: json, body: '{"code":-1007,"msg":"Timeout"}' } },
  { kind: 'error', at: T0 + 2000, endpoint: 'spot.order', answer: { status: 503, headers: json, body: '{"code":-1016,"msg":"Service unavailable"}' } },
  { kind: 'unknown_outcome', at: T0 + 3000, endpoint: 'spot.order', message: 'headers timeout' },
  { kind: 'rate_limit', at: T0 + 1000, endpoint: 'spot.myTrades', answer: { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '3' }, body: '{"code":-1003,"msg":"Too many requests"}' } },
  { kind: 'rate_limit', at: T0 + 1000, endpoint: 'spot.myTrades', answer: { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '1' }, body: '{"code":-1003,"msg":"Too many requests"}' } },
  { kind: 'reset', at: T0 + 1000, endpoint: 'spot.openOrders', message: 'connect ECONNREFUSED' },
  { kind: 'unknown_outcome', at: T0 + 1000, endpoint: 'spot.account', message: 'socket hang up' },
  { kind: 'ban', at: T0 + 10_000, until: T0 + 40_000 },
  { kind: 'ban', at: T0 + 50_000, until: T0 + 60_000, answer: { status: 418, headers: json, body: '{"code":-1003,"msg":"Way too many requests"}' } },
  // Never met: nothing is sent on it.
  { kind: 'unknown_outcome', at: T0, endpoint: 'spot.batchOrders', answer: { status: 504, headers: json, body: '{"code":-1007}' } },
];

function setup() {
  const clock = new ManualClock(T0);
  const sim = new SimExchange({ seed: 1, clock, rateLimits: false, incidents: INCIDENTS });
  const transport = new SimTransport(sim);
  const send = async (req: HttpRequest) => {
    try {
      return await transport.send(req);
    } catch (e) {
      if (e instanceof TransportFailure) return { failure: e.message, maybeDelivered: e.maybeDelivered };
      throw e;
    }
  };
  const get = (path: string, query = 'symbol=BTCUSDT') => send(signedRequest(sim, clock, 'GET', path, { query }));
  let n = 0;
  const order = () => send(signedRequest(sim, clock, 'POST', '/sapi/v1/order', { body: JSON.stringify({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '20000', volume: '0.01', newClientOrderId: `o${++n}` }) }));
  return { clock, sim, get, order };
}

describe('recorded incidents in the simulator', () => {
  it('meets the first request on the endpoint at or after each one’s time, once each, in order', async () => {
    const { clock, sim, get, order } = setup();
    expect(await order()).toMatchObject({ status: 200 });
    expect(await get('/sapi/v1/myTrades')).toMatchObject({ status: 200 });
    await clock.moveTo(T0 + 1000);
    // The 504 after acting: the order is on the book though the answer says nothing of it.
    expect(await order()).toMatchObject({ status: 504, body: '{"code":-1007,"msg":"Timeout"}' });
    expect(sim.orderLog().map((o) => o.clientOrderId)).toEqual(['o1', 'o2']);
    expect(await order()).toMatchObject({ status: 200 });
    // Two recorded 429s, two requests, each with its own Retry-After; then the endpoint answers.
    expect(await get('/sapi/v1/myTrades')).toMatchObject({ status: 429, headers: { 'retry-after': '3' } });
    expect(await get('/sapi/v1/myTrades')).toMatchObject({ status: 429, headers: { 'retry-after': '1' } });
    expect(await get('/sapi/v1/myTrades')).toMatchObject({ status: 200 });
    // A reset the recording's transport knew never left; a read lost after arriving may have.
    expect(await get('/sapi/v1/openOrders')).toEqual({ failure: 'connect ECONNREFUSED (as the tape recorded it)', maybeDelivered: false });
    expect(await get('/sapi/v1/account', '')).toEqual({ failure: 'socket hang up (as the tape recorded it)', maybeDelivered: true });
    expect(await get('/sapi/v1/openOrders')).toMatchObject({ status: 200 });
    await clock.moveTo(T0 + 5000);
    // A 5xx does not act; a lost answer on a write comes after acting. Both were due by now.
    expect(await order()).toMatchObject({ status: 503 });
    expect(await order()).toEqual({ failure: 'headers timeout (as the tape recorded it)', maybeDelivered: true });
    expect(await order()).toMatchObject({ status: 200 });
    expect(sim.orderLog().map((o) => o.clientOrderId)).toEqual(['o1', 'o2', 'o3', 'o5', 'o6']);
    expect(sim.arrivals().filter((a) => a.incident).map((a) => [a.at - T0, a.endpoint, a.incident, a.status, a.code ?? null, a.fault ?? null])).toEqual([
      [1000, 'spot.order', 'unknown_outcome', 504, -1007, null],
      [1000, 'spot.myTrades', 'rate_limit', 429, -1003, null],
      [1000, 'spot.myTrades', 'rate_limit', 429, -1003, null],
      [1000, 'spot.openOrders', 'reset', 0, null, 'reset'],
      [1000, 'spot.account', 'unknown_outcome', 0, null, 'lost-response'],
      [5000, 'spot.order', 'error', 503, -1016, null],
      [5000, 'spot.order', 'unknown_outcome', 0, null, 'lost-response'],
    ]);
  });

  it('bans every request in a ban’s window: stating its end when the recording did, as recorded when not', async () => {
    const { clock, sim, get } = setup();
    await clock.moveTo(T0 + 9999);
    expect(await get('/sapi/v1/depth')).toMatchObject({ status: 200 });
    await clock.moveTo(T0 + 10_000);
    // Its end to the millisecond (banUntil), as the recording read it: no Retry-After, whose whole
    // seconds the client would take as a later end.
    const first = (await get('/sapi/v1/depth')) as { status: number; headers: Record<string, string>; body: string };
    expect([first.status, first.headers['retry-after'], JSON.parse(first.body).banUntil]).toEqual([418, undefined, T0 + 40_000]);
    await clock.moveTo(T0 + 39_999);
    const late = (await get('/sapi/v1/ticker')) as { status: number; headers: Record<string, string>; body: string };
    expect([late.status, late.headers['retry-after']]).toEqual([418, undefined]);
    expect(JSON.parse(late.body)).toMatchObject({ code: -1003, banUntil: T0 + 40_000 });
    await clock.moveTo(T0 + 40_000);
    expect(await get('/sapi/v1/ticker')).toMatchObject({ status: 200 });
    await clock.moveTo(T0 + 55_000);
    const unstated = await get('/sapi/v1/ticker');
    expect(unstated).toEqual({ status: 418, headers: json, body: '{"code":-1003,"msg":"Way too many requests"}' });
    await clock.moveTo(T0 + 60_000);
    expect(await get('/sapi/v1/ticker')).toMatchObject({ status: 200 });
    expect(sim.troubles.incidents()).toEqual({
      given: { ban: 2, rate_limit: 2, error: 1, unknown_outcome: 4, reset: 1 },
      played: { ban: 2, rate_limit: 0, error: 0, unknown_outcome: 0, reset: 0 },
    });
  });
});
