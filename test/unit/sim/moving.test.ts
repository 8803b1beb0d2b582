// SimOptions.moving: a backtest moves only the markets its strategies trade, since no strategy
// can see the others; the still ones keep their opening book and price.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { SimExchange } from '../../../src/sim/index.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const book = (sim: SimExchange, symbol: string) => JSON.stringify(sim.top(symbol));

/** Each symbol's top of book at start, and whether it changed after an hour of steps. */
async function moved(moving?: readonly string[]): Promise<Record<string, boolean>> {
  const clock = new ManualClock(T0);
  const sim = new SimExchange({ seed: 7, clock, ...(moving ? { moving } : {}) });
  const symbols = ['BTCUSDT', 'ETHUSDT', 'E-BTC-USDT', 'E-ETH-USDT'];
  const before = Object.fromEntries(symbols.map((s) => [s, book(sim, s)]));
  for (const s of symbols) expect(sim.top(s).bid, `${s} opens with a book`).toBeDefined();
  await clock.advance(3_600_000);
  return Object.fromEntries(symbols.map((s) => [s, book(sim, s) !== before[s]]));
}

describe('simulator: the markets that move', () => {
  it('every listed market moves by default', async () => {
    expect(await moved()).toEqual({ BTCUSDT: true, ETHUSDT: true, 'E-BTC-USDT': true, 'E-ETH-USDT': true });
  });

  it('only the named ones move when some are named; the rest keep their opening book', async () => {
    expect(await moved(['ethusdt'])).toEqual({ BTCUSDT: false, ETHUSDT: true, 'E-BTC-USDT': false, 'E-ETH-USDT': false });
  });

  it('a moving contract moves the spot market its price follows', async () => {
    expect(await moved(['E-BTC-USDT'])).toEqual({ BTCUSDT: true, ETHUSDT: false, 'E-BTC-USDT': true, 'E-ETH-USDT': false });
  });
});
