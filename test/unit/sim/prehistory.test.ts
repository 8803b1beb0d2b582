// Paper mode's simulator has a past, as a live venue has: klines and public trades from before
// the start, so a strategy's klines warm-up is met at once (issue 18: it waited N minutes in
// paper mode while plan, on the same config, quoted at once).
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { parseConfig } from '../../../src/config/index.js';
import { paper } from '../../../src/app/profiles.js';
import { SimExchange } from '../../../src/sim/index.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const klines = async (sim: SimExchange, interval: string) => {
  const res = await sim.handle({ method: 'GET', path: '/sapi/v1/klines', query: `symbol=BTCUSDT&interval=${interval}&limit=300`, headers: {}, body: '' });
  return JSON.parse((res as { body: string }).body) as Array<{ idx: number }>;
};

describe('simulator prehistory', () => {
  it('the paper profile starts with three hours of market: 1-minute candles for most of them, public trades before now', async () => {
    const { config } = await parseConfig('mode: paper', { env: {} });
    const clock = new ManualClock(T0);
    const profile = paper(config, clock);
    if (profile.venue.kind !== 'sim') throw new Error('paper trades the simulator');
    const minutes = await klines(profile.venue.sim, '1min');
    expect(minutes.length).toBeGreaterThan(120);
    expect(minutes.length).toBeLessThanOrEqual(181);
    expect(Math.min(...minutes.map((k) => k.idx))).toBeGreaterThanOrEqual(T0 - 3 * 3_600_000);
    expect((await klines(profile.venue.sim, '15min')).length).toBeGreaterThanOrEqual(12);
  });

  it('a simulator without it starts with no past (backtests and tests stay as they were): at most the candle of now', async () => {
    const sim = new SimExchange({ seed: 1, clock: new ManualClock(T0) });
    expect((await klines(sim, '1min')).map((k) => k.idx)).toEqual([T0]);
  });
});
