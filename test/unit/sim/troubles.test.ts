// The simulator's timed troubles (sim.scenario): a 429 storm, a 418 ban and a venue clock jump,
// each on for its window only. The clock jump is met by the real client: its first signed call
// is refused -1021, it re-measures the venue clock once and the retry passes.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { endpointLimits } from '../../../src/exchange/endpoints.js';
import { VirtualPacer } from '../../../src/limiter/index.js';
import { createExchangeClient } from '../../../src/app/client.js';
import { SimExchange, SimTransport } from '../../../src/sim/index.js';

const T0 = Date.UTC(2026, 0, 1);

function setup() {
  const clock = new ManualClock(T0);
  const sim = new SimExchange({
    seed: 1,
    clock,
    troubles: [
      { kind: 'clock_jump', from: T0 + 10_000, until: T0 + 70_000, skewMs: -3000 },
      { kind: 'rate_limit_storm', from: T0 + 100_000, until: T0 + 110_000 },
      { kind: 'ban', from: T0 + 200_000, until: T0 + 260_000 },
    ],
  });
  const transport = new SimTransport(sim);
  const client = createExchangeClient({
    transport: () => transport,
    clock,
    pacer: new VirtualPacer({ limits: endpointLimits(), clock }),
    credentials: { apiKey: sim.apiKey, apiSecret: sim.apiSecret },
  });
  const ping = () => sim.handle({ method: 'GET', path: '/sapi/v1/ping', query: '', headers: {}, body: '' });
  return { clock, sim, client, ping };
}

describe('simulator troubles', () => {
  it('a storm answers 429 with Retry-After and a ban 418, only inside their windows', async () => {
    const { clock, ping } = setup();
    await clock.moveTo(T0 + 99_999);
    expect(await ping()).toMatchObject({ status: 200 });
    await clock.moveTo(T0 + 102_500);
    expect(await ping()).toMatchObject({ status: 429, headers: { 'retry-after': '8' } });
    await clock.moveTo(T0 + 110_000);
    expect(await ping()).toMatchObject({ status: 200 });
    await clock.moveTo(T0 + 200_000);
    expect(await ping()).toMatchObject({ status: 418 });
    await clock.moveTo(T0 + 260_000);
    expect(await ping()).toMatchObject({ status: 200 });
  });

  it('a clock jump shifts serverTime; the client meets one -1021, re-syncs, and its retry passes', async () => {
    const { clock, sim, client } = setup();
    await client.venueClocks.spot.sync();
    expect(client.venueClocks.spot.offsetMs()).toBe(0);

    await clock.moveTo(T0 + 10_000);
    const time = await client.executor.call('spot.time', {});
    expect(time.serverTime).toBe(T0 + 10_000 - 3000);

    const before = sim.arrivals().length;
    const account = await client.executor.call('spot.account', {});
    expect(account.items.length).toBeGreaterThan(0);
    const seen = sim.arrivals().slice(before).map((a) => `${a.endpoint} ${a.code ?? a.status}`);
    expect(seen).toEqual(['spot.account -1021', 'spot.time 200', 'spot.time 200', 'spot.time 200', 'spot.account 200']);
    expect(client.venueClocks.spot.offsetMs()).toBe(-3000);

    // The jump ends: the venue's clock is 3 s ahead of the client's estimate, within recvWindow.
    await clock.moveTo(T0 + 70_000);
    const later = sim.arrivals().length;
    await client.executor.call('spot.account', {});
    expect(sim.arrivals().slice(later).map((a) => `${a.endpoint} ${a.status}`)).toEqual(['spot.account 200']);
  });
});
