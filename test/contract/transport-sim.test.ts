// SimTransport, the in-process simulator: the shared contract, then what only a transport with
// no sockets does (answers on the venue's clock, the simulator's own failure messages).
import { describe, expect, it } from 'vitest';
import { flushMicrotasks, ManualClock } from '../../src/core/clock.js';
import { TransportFailure, type HttpResponse } from '../../src/core/ports.js';
import { parseJsonLossless } from '../../src/exchange/json.js';
import { SimTransport } from '../../src/sim/index.js';
import { get, newVenue, orderBody, placeOrder, signed, T0, transportContract } from './transport.contract.js';

transportContract('SimTransport in-process', async () => {
  const venue = newVenue();
  return { transport: new SimTransport(venue), venue, clock: venue.clock, cleanup: async () => undefined };
});

transportContract('SimTransport in-process, trusted', async () => {
  const venue = newVenue();
  return { transport: new SimTransport(venue, 'in-process', { trusted: true }), venue, clock: venue.clock, cleanup: async () => undefined };
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

  it('trusted: a signed endpoint takes a request without a signature on its key and timestamp; a wire transport is refused it', async () => {
    const venue = newVenue();
    const h = { venue, clock: venue.clock };
    const { 'X-CH-SIGN': _, ...unsignedHeaders } = placeOrder(h, 'c-unsigned').headers;
    const unsigned = { ...placeOrder(h, 'c-unsigned'), headers: unsignedHeaders };
    const refused = await new SimTransport(venue).send(unsigned);
    expect([refused.status, JSON.parse(refused.body).code]).toEqual([401, -1024]);
    const trusted = new SimTransport(venue, 'in-process', { trusted: true });
    expect(trusted.trusted).toBe(true);
    const placed = await trusted.send(unsigned);
    expect(placed.status).toBe(200);
    expect(venue.orderLog().map((o) => o.clientOrderId)).toEqual(['c-unsigned']);
    // The key and the timestamp still count: an unknown key, or a stale timestamp, is refused as on the wire.
    const stranger = await trusted.send({ ...unsigned, headers: { ...unsignedHeaders, 'X-CH-APIKEY': 'nobody' } });
    expect(JSON.parse(stranger.body).code).toBe(-2015);
    const stale = await trusted.send({ ...unsigned, headers: { ...unsignedHeaders, 'X-CH-TS': String(T0 - 60_000) } });
    expect(JSON.parse(stale.body).code).toBe(-1021);
  });

  it('trusted: answers carry their JSON as the client reads it, and the same text when asked', async () => {
    const venue = newVenue();
    const twin = newVenue();
    const h = { venue, clock: venue.clock };
    const res = await new SimTransport(venue, 'in-process', { trusted: true }).send(signed(h, 'GET', '/sapi/v1/account'));
    const wire = await new SimTransport(twin).send(signed({ venue: twin, clock: twin.clock }, 'GET', '/sapi/v1/account'));
    expect(res.json).toEqual(parseJsonLossless(wire.body));
    expect(res.body).toBe(wire.body);
    expect(wire.json).toBeUndefined();
  });

  it('tells the venue where requests come from (the remote it rate-limits unsigned calls by)', async () => {
    const venue = newVenue();
    await new SimTransport(venue).send(get('/sapi/v1/time'));
    await new SimTransport(venue, 'backtest-7').send(get('/sapi/v1/time'));
    expect(venue.arrivals().map((a) => a.remote)).toEqual(['in-process', 'backtest-7']);
  });
});
