// A backtest's simulator serves the venue's candles a tape recorded for the time before its own
// market (built from the tape's trades), then its own: a strategy's klines warm-up is met from
// the recorded history, and every candle from the tape's start on is consistent with the fills.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { Decimal } from '../../../src/core/decimal.js';
import type { Kline } from '../../../src/core/market.js';
import { SimExchange } from '../../../src/sim/index.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 20);
const M0 = Date.UTC(2026, 0, 1, 12);
const candle = (openTime: number, close: string): Kline => ({ openTime, open: '100.5' as Decimal, high: '101' as Decimal, low: '99.25' as Decimal, close: close as Decimal, vol: '3.5' as Decimal });

async function klines(sim: SimExchange, query: string) {
  const res = await sim.handle({ method: 'GET', path: '/sapi/v1/klines', query: `symbol=BTCUSDT&${query}`, headers: {}, body: '' });
  return JSON.parse((res as { body: string }).body) as Array<Record<string, unknown>>;
}

function tapeSim(): SimExchange {
  const sim = new SimExchange({ seed: 1, clock: new ManualClock(T0) });
  sim.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [['30000', '1']], asks: [['30002', '1']] });
  sim.applyMarketEvent({ type: 'trade', symbol: 'BTCUSDT', price: '30001', qty: '0.5', side: 'BUY' });
  return sim;
}

describe('recorded klines in the simulator', () => {
  it('answers only its own candles until some are recorded, then the recorded candles from before its first candle, oldest first, then its own; the recorded candle of its own first minute is not served', async () => {
    const sim = tapeSim();
    // Before any is recorded: only its own, as ever.
    expect((await klines(sim, 'interval=1min')).map((k) => k.idx)).toEqual([M0]);
    sim.applyMarketEvent({ type: 'klines', symbol: 'BTCUSDT', interval: '1min', klines: [candle(M0 - 2 * MINUTE, '100.75'), candle(M0 - MINUTE, '100.5'), candle(M0, '100')] });
    // A later answer's candle replaces an earlier one's.
    sim.applyMarketEvent({ type: 'klines', symbol: 'BTCUSDT', interval: '1min', klines: [candle(M0 - MINUTE, '100.25')] });
    const answer = await klines(sim, 'interval=1min&limit=100');
    expect(answer.map((k) => [k.idx, k.close])).toEqual([
      [M0 - 2 * MINUTE, '100.75'],
      [M0 - MINUTE, '100.25'],
      [M0, '30001'],
    ]);
    expect(answer[0]).toEqual({ idx: M0 - 2 * MINUTE, open: '100.5', close: '100.75', high: '101', low: '99.25', vol: '3.5' });
    // The limit keeps the newest; startTime and endTime filter the recorded ones too.
    expect((await klines(sim, 'interval=1min&limit=2')).map((k) => k.idx)).toEqual([M0 - MINUTE, M0]);
    expect((await klines(sim, `interval=1min&startTime=${M0 - MINUTE}&endTime=${M0 - MINUTE}`)).map((k) => k.idx)).toEqual([M0 - MINUTE]);
  });

  it("serves a contract's recorded candles (a futures tape's, the hour as 1h) on the futures klines route, before the contract's own, apart from the spot symbol's", async () => {
    const sim = tapeSim();
    sim.applyMarketEvent({ type: 'book', symbol: 'E-BTC-USDT', bids: [['30000.0', '100']], asks: [['30002.0', '100']] });
    sim.applyMarketEvent({ type: 'trade', symbol: 'E-BTC-USDT', price: '30001.5', qty: '3', side: 'BUY' });
    sim.applyMarketEvent({ type: 'klines', symbol: 'E-BTC-USDT', interval: '1h', klines: [candle(M0 - 120 * MINUTE, '100.75'), candle(M0 - 60 * MINUTE, '100.5')] });
    const futures = async (query: string) => JSON.parse(((await sim.handle({ method: 'GET', path: '/fapi/v1/klines', query: `contractName=E-BTC-USDT&${query}`, headers: {}, body: '' })) as { body: string }).body) as Array<Record<string, unknown>>;
    expect((await futures('interval=1h')).map((k) => [k.idx, k.close])).toEqual([
      [M0 - 120 * MINUTE, '100.75'],
      [M0 - 60 * MINUTE, '100.5'],
      [M0, '30001.5'],
    ]);
    expect((await futures('interval=1min')).map((k) => [k.idx, k.close])).toEqual([[M0, '30001.5']]);
    expect((await klines(sim, 'interval=1h')).map((k) => k.idx)).toEqual([M0]);
  });

  it('keeps each interval apart (60min and 1h are one), and recorded candles move nothing of its market', async () => {
    const sim = tapeSim();
    const m = sim.markets.get('BTCUSDT')!;
    const before = { mid: m.midTicks, last: m.lastTicks, levels: m.book.levels('BUY', 5) };
    sim.applyMarketEvent({ type: 'klines', symbol: 'BTCUSDT', interval: '60min', klines: [candle(M0 - 60 * MINUTE, '100')] });
    expect({ mid: m.midTicks, last: m.lastTicks, levels: m.book.levels('BUY', 5) }).toEqual(before);
    expect((await klines(sim, 'interval=1h')).map((k) => k.idx)).toEqual([M0 - 60 * MINUTE, M0]);
    expect((await klines(sim, 'interval=1min')).map((k) => k.idx)).toEqual([M0]);
  });
});
