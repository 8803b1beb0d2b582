// SimTransport, the in-process simulator: the shared contract, then what only a transport with
// no sockets does (answers on the venue's clock, the simulator's own failure messages).
import { describe, expect, it } from 'vitest';
import { flushMicrotasks, ManualClock } from '../../src/core/clock.js';
import { TransportFailure, type HttpResponse } from '../../src/core/ports.js';
import { SimTransport } from '../../src/sim/index.js';
import { get, newVenue, orderBody, placeOrder, signed, T0, transportContract } from './transport.contract.js';

transportContract('SimTransport in-process', async () => {
  const venue = newVenue();
  return { transport: new SimTransport(venue), venue, clock: venue.clock, cleanup: async () => undefined };
});

describe('SimTransport specifics', () => {
  it('answers on the venue clock: a 5 ms each-way latency holds the answer until the clock has moved 10 ms', async () => {
    const venue = newVenue();
    const clock = venue.clock as ManualClock;
    venue.setFaults({ latencyMs: { min: 5, max: 5 } });
    const sim = new SimTransport(venue);
    let answer: HttpResponse | undefined;
    const pending = sim.send(get('/sapi/v1/time')).then((r) => (answer = r));
    await clock.advance(9);
    await flushMicrotasks();
    expect(answer).toBeUndefined();
    await clock.advance(1);
    await pending;
    // Stamped when it arrived (after the inbound 5 ms), answered at T0 + 10.
    expect(answer?.body).toBe(`{"timezone":"UTC","serverTime":${T0 + 5}}`);
    expect(clock.now()).toBe(T0 + 10);
  });

  it('says which simulated fault left it without an answer; both may have been delivered', async () => {
    const venue = newVenue();
    const sim = new SimTransport(venue);
    const h = { venue, clock: venue.clock };
    venue.setFaults({ resetRate: 1 });
    await expect(sim.send(placeOrder(h, 'c-reset'))).rejects.toMatchObject({ name: 'TransportFailure', message: 'connection reset by the simulated venue', maybeDelivered: true });
    venue.setFaults({ resetRate: 0, lostResponseRate: 1 });
    await expect(sim.send(placeOrder(h, 'c-lost'))).rejects.toMatchObject({ name: 'TransportFailure', message: 'response lost after the simulated venue acted', maybeDelivered: true });
    expect(venue.arrivals().map((a) => a.fault)).toEqual(['reset', 'lost-response']);
    expect(venue.orderLog().map((o) => o.clientOrderId)).toEqual(['c-lost']);
    await expect(sim.send(placeOrder(h, 'c-next'))).rejects.toBeInstanceOf(TransportFailure);
  });

  it("keeps the caller's content type whatever the letter case of its name", async () => {
    const venue = newVenue();
    const sim = new SimTransport(venue);
    const typed = signed({ venue, clock: venue.clock }, 'POST', '/sapi/v1/order', { body: orderBody('c-text'), headers: { 'Content-Type': 'text/plain' } });
    const res = await sim.send(typed);
    expect([res.status, JSON.parse(res.body).code]).toEqual([400, -1017]);
    expect(venue.orderLog()).toHaveLength(0);
  });

  it('tells the venue where requests come from (the remote it rate-limits unsigned calls by)', async () => {
    const venue = newVenue();
    await new SimTransport(venue).send(get('/sapi/v1/time'));
    await new SimTransport(venue, 'backtest-7').send(get('/sapi/v1/time'));
    expect(venue.arrivals().map((a) => a.remote)).toEqual(['in-process', 'backtest-7']);
  });
});
