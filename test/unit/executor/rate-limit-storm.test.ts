// A 429 storm (the venue refusing every request for a while): after each pause one request goes
// (a probe), the pause doubles while probes meet 429s, and the queue goes only once one is
// answered. Letting the whole queue go at each pause's end met the storm with a burst each time,
// and the venue banned the key (the notes: a 418 for continuing after 429s).
import { describe, expect, it } from 'vitest';
import { flushMicrotasks, ManualClock } from '../../../src/core/clock.js';
import type { HttpResponse, Transport } from '../../../src/core/ports.js';
import { createExchangeClient } from '../../../src/app/client.js';
import { endpointLimits } from '../../../src/exchange/endpoints.js';
import { VirtualPacer } from '../../../src/limiter/index.js';

const T0 = 1_700_000_000_000;

const TOO_MANY = { status: 429, headers: {}, body: '{"code":-1003,"msg":"Too many requests"}' };
const OK = { status: 200, headers: {}, body: '{}' };

/**
 * Six pings into a storm answered 429 until 10 s (`answer` may answer a request otherwise), on a
 * manual clock stepped until all are done; every call succeeds in the end. Returns when each
 * request was sent (ms from the start).
 */
async function sixIntoAStorm(answer?: (i: number, clock: ManualClock) => Promise<HttpResponse | undefined>): Promise<number[]> {
  const clock = new ManualClock(T0);
  const sent: number[] = [];
  let n = 0;
  const transport: Transport = {
    send: async () => {
      sent.push(clock.now() - T0);
      return (await answer?.(n++, clock)) ?? (clock.now() < T0 + 10_000 ? TOO_MANY : OK);
    },
  };
  const client = createExchangeClient({ transport: () => transport, clock, pacer: new VirtualPacer({ limits: endpointLimits(), clock }), retry: { retries: 6, baseDelayMs: 0, maxDelayMs: 0 } });
  let done = 0;
  const calls = Array.from({ length: 6 }, () => client.executor.call('spot.ping', {}).finally(() => done++));
  for (;;) {
    await flushMicrotasks();
    if (done === calls.length || !(await clock.step())) break;
  }
  expect((await Promise.allSettled(calls)).map((a) => a.status)).toEqual(calls.map(() => 'fulfilled'));
  await client.close();
  return sent;
}

describe('a 429 storm', () => {
  it('meets one request per pause, the pauses doubling, and the queue once the venue answers again', async () => {
    const sent = await sixIntoAStorm();
    const at = (ms: number) => sent.filter((t) => t === ms).length;
    // The six at once met the storm together (one pause of 2 s, not lengthened by each other);
    // then one probe after each pause, 2 s, 4 s, 8 s; the one after the storm was answered, and
    // the other five went with it.
    expect([...new Set(sent)]).toEqual([0, 2000, 6000, 14_000]);
    expect([at(0), at(2000), at(6000), at(14_000)]).toEqual([6, 1, 1, 6]);
  });

  it('an answer to a request sent before the pause began opens nothing, nor resets the doubling', async () => {
    // The second request left with the first and is answered 5 ms later, after the first's 429.
    const sent = await sixIntoAStorm(async (i, clock) => {
      if (i !== 1) return undefined;
      await clock.sleep(5);
      return OK;
    });
    // Six at once; then one probe after each pause (2 s, 4 s, 8 s), as if the late 200 had not come.
    expect([...new Set(sent)]).toEqual([0, 2000, 6000, 14_000]);
    expect(sent.filter((t) => t === 2000 || t === 6000)).toHaveLength(2);
  });
});
