import { describe, expect, it } from 'vitest';
import { d, type Decimal } from 'sluice/strategy';
import type { Candle, PlaceIntent } from 'sluice/strategy';
import { harness } from 'sluice/testing';
import maCross from './index.js';

const klines = (closes: number[]): Candle[] =>
  closes.map((c, i) => {
    const close = d(String(c)) as Decimal;
    return { openTime: i * 60_000, open: close, high: close, low: close, close, vol: d('1'), closed: true };
  });

describe('ma-cross strategy', () => {
  it('buys on a golden cross and sells the position on a death cross', async () => {
    const { host, view } = harness(maCross, { fast: 2, slow: 4, buyQuote: '250' });
    const feed = (closes: number[]) => host.marketData({ kind: 'klines', symbol: 'BTCUSDT', interval: '1min', klines: klines(closes) });
    expect((await feed([10, 10, 10, 9])).intents).toEqual([]); // first reading: below, no cross yet
    const buy = (await feed([10, 10, 9, 12])).intents as PlaceIntent[];
    expect(buy).toMatchObject([{ side: 'BUY', type: 'MARKET', volume: '250' }]);
    expect((await feed([10, 9, 12, 13])).intents).toEqual([]); // still above
    // The account holds more (coins from before, another strategy's): it sells its own position only.
    view.positions.set('BTCUSDT', d('1.5208333333'));
    view.ownPositions.set('BTCUSDT', { market: 'spot', symbol: 'BTCUSDT', quantity: d('0.0208333333'), avgEntryPrice: d('12000'), realizedPnl: d('0'), fees: d('0') });
    const sell = (await feed([12, 13, 9, 8])).intents as PlaceIntent[];
    expect(sell).toMatchObject([{ side: 'SELL', type: 'MARKET', volume: '0.02083' }]);
  });

  it('refuses fast >= slow at start-up', () => {
    expect(() => harness(maCross, { fast: 5, slow: 5 })).toThrow(/fast must be shorter than slow/);
  });

  it('subscribes to klines of its interval, enough for the slow average', () => {
    expect(maCross.subscribe!({ interval: '5min', fast: 3, slow: 10, buyQuote: d('1') })).toEqual([{ kind: 'klines', interval: '5min', limit: 11 }]);
  });
});
