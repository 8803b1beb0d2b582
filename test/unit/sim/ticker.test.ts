// The simulator's 24 h ticker: its rise is the last price over the day's open, less one,
// rounded half-even at 6 places.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import { DEFAULT_SYMBOLS, SimExchange } from '../../../src/sim/index.js';

const T0 = Date.UTC(2026, 0, 1, 12);

/** The ticker of a day that opened at `open` (the market's start) and last traded at `last`. */
async function tickerAfter(open: string, last: string): Promise<Record<string, unknown>> {
  const clock = new ManualClock(T0);
  const btc = DEFAULT_SYMBOLS.find((s) => s.symbol === 'BTCUSDT')!;
  const sim = new SimExchange({ seed: 1, clock, symbols: [{ ...btc, market: { ...btc.market, startPrice: d(open) } }] });
  // An empty book: the trade below prints at its own price.
  sim.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [], asks: [] });
  clock.moveTo(T0 + 120_000);
  sim.applyMarketEvent({ type: 'trade', symbol: 'BTCUSDT', price: last, qty: '0.01', side: 'SELL' });
  const res = await sim.handle({ method: 'GET', path: '/sapi/v1/ticker', query: 'symbol=BTCUSDT', headers: {}, body: '' });
  return JSON.parse((res as { body: string }).body) as Record<string, unknown>;
}

describe('simulator ticker', () => {
  it('rises by last / open - 1, half-even at 6 places', async () => {
    const up = await tickerAfter('30000', '30150.5');
    expect(String(up.last)).toBe('30150.5');
    expect(String(up.rose)).toBe('0.005017'); // 0.0050166...
    expect(String((await tickerAfter('30000', '29850.5')).rose)).toBe('-0.004983'); // -0.0049833...
    // Exactly half a millionth: to the even digit, down here and up there.
    expect(String((await tickerAfter('20000', '20000.01')).rose)).toBe('0');
    expect(String((await tickerAfter('20000', '20000.03')).rose)).toBe('0.000002');
  });
});
