// X-CH-TS when the estimate of the venue's clock is uncertain: stamped behind by the uncertainty,
// never beyond the middle of the window the venue applies to that request.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { HttpRequest, Transport } from '../../../src/core/ports.js';
import { d } from '../../../src/core/decimal.js';
import { createExchangeClient } from '../../../src/app/client.js';
import { endpointLimits } from '../../../src/exchange/endpoints.js';
import { VirtualPacer } from '../../../src/limiter/index.js';

const T0 = 1_700_000_000_000;

/** A venue whose time answers take `roundTripMs` of the manual clock: the sync's error is half of it. */
function rig(recvWindowMs: number, roundTripMs: number) {
  const clock = new ManualClock(T0);
  const sent: HttpRequest[] = [];
  const transport: Transport = {
    send: async (req) => {
      sent.push(req);
      if (req.path.endsWith('/time')) {
        const at = clock.now() + roundTripMs / 2;
        clock.moveTo(clock.now() + roundTripMs);
        return { status: 200, headers: {}, body: `{"serverTime":${at}}` };
      }
      if (req.path.endsWith('/account')) return { status: 200, headers: {}, body: '{"balances":[]}' };
      return { status: 200, headers: {}, body: '{"orderId":"1","status":"NEW"}' };
    },
  };
  const client = createExchangeClient({ transport: () => transport, clock, recvWindowMs, pacer: new VirtualPacer({ limits: endpointLimits(), clock }), credentials: { apiKey: 'key-0001', apiSecret: 'secret-0001' } });
  return { clock, sent, client };
}

const stampOf = (sent: HttpRequest[], path: string) => sent.filter((r) => r.path === path).at(-1)!.headers['X-CH-TS']!;

describe('the signing time', () => {
  it('is behind by the clock\'s uncertainty, at most half the window the venue applies, and in whole milliseconds', async () => {
    // A 30 s round trip: the venue's time is known to within 15 s.
    const { clock, sent, client } = rig(60_001, 30_000);
    await client.venueClocks.spot.sync();
    expect(client.venueClocks.spot.errorMs()).toBe(15_000);
    const order = { symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT' as const, volume: d('1'), price: d('1') };
    await client.executor.call('spot.order', order);
    // It carries recvWindow 60001: 15 s behind (less than (60001 - 1000) / 2).
    expect(stampOf(sent, '/sapi/v1/order')).toBe(String(clock.now() - 15_000));
    // The account read carries no recvWindow, so the venue's 5000 applies: (5000 - 1000) / 2 behind at most.
    await client.executor.call('spot.account', {});
    expect(stampOf(sent, '/sapi/v1/account')).toBe(String(clock.now() - 2000));

    // An odd window never makes the stamp fractional.
    const odd = rig(5001, 30_000);
    await odd.client.venueClocks.spot.sync();
    await odd.client.executor.call('spot.order', order);
    expect(stampOf(odd.sent, '/sapi/v1/order')).toBe(String(odd.clock.now() - 2000));
  });
});
