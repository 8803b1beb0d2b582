// A 418 that does not say when the ban ends: sluice picks the pause, and a ban met again by the
// first request after it lengthens the next one (the notes: bans grow for repeat offenders).
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { BannedError } from '../../../src/core/errors.js';
import type { Transport } from '../../../src/core/ports.js';
import { createExchangeClient } from '../../../src/app/client.js';
import { endpointLimits } from '../../../src/exchange/endpoints.js';
import { VirtualPacer } from '../../../src/limiter/index.js';

const T0 = 1_700_000_000_000;
const MIN = 60_000;

function rig() {
  const clock = new ManualClock(T0);
  const venue = { banned: true, sent: 0 };
  const transport: Transport = {
    send: async () => {
      venue.sent++;
      return venue.banned ? { status: 418, headers: {}, body: '{"code":-1003,"msg":"Way too many requests; IP banned."}' } : { status: 200, headers: {}, body: '{}' };
    },
  };
  const client = createExchangeClient({ transport: () => transport, clock, pacer: new VirtualPacer({ limits: endpointLimits(), clock }) });
  /** One ping once the pause is over: how long the pause it meets lasts, from now (0 for an answer). */
  const probe = async () => {
    clock.moveTo(Math.max(clock.now(), client.pacer.pausedUntil()));
    const err = await client.executor.call('spot.ping', {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (err === undefined) return 0;
    expect(err).toBeInstanceOf(BannedError);
    expect((err as BannedError).stated).toBe(false);
    expect(client.pacer.pausedUntil()).toBe((err as BannedError).untilMs);
    return ((err as BannedError).untilMs - clock.now()) / MIN;
  };
  return { clock, venue, client, probe };
}

describe('a ban whose end the venue does not say', () => {
  it('pauses 2 minutes, doubling each time the first request after the pause is banned again, up to an hour; an answer starts over', async () => {
    const { venue, probe } = rig();
    const pauses: number[] = [];
    for (let i = 0; i < 8; i++) pauses.push(await probe());
    expect(pauses).toEqual([2, 4, 8, 16, 32, 60, 60, 60]);
    expect(venue.sent).toBe(8);
    venue.banned = false;
    expect(await probe()).toBe(0);
    venue.banned = true;
    expect(await probe()).toBe(2);
  });

  it('requests in flight when it began, banned too, do not lengthen it', async () => {
    const { client, clock } = rig();
    const answers = await Promise.allSettled([0, 1, 2].map(() => client.executor.call('spot.ping', {})));
    const ends = answers.map((a) => (a.status === 'rejected' ? (a.reason as BannedError).untilMs : undefined));
    expect(ends).toEqual([T0 + 2 * MIN, T0 + 2 * MIN, T0 + 2 * MIN]);
    expect(client.pacer.pausedUntil()).toBe(T0 + 2 * MIN);
    expect(clock.now()).toBe(T0);
  });

  it('a stated end is kept as the venue says it', async () => {
    const clock = new ManualClock(T0);
    const transport: Transport = { send: async () => ({ status: 418, headers: { 'retry-after': '30' }, body: '{"code":-1003}' }) };
    const client = createExchangeClient({ transport: () => transport, clock, pacer: new VirtualPacer({ limits: endpointLimits(), clock }) });
    for (let i = 0; i < 3; i++) {
      clock.moveTo(Math.max(clock.now(), client.pacer.pausedUntil()));
      const err = (await client.executor.call('spot.ping', {}).catch((e: unknown) => e)) as BannedError;
      expect([err.stated, err.untilMs - clock.now()]).toEqual([true, 30_000]);
    }
  });
});
