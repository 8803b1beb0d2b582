// A tape's book among the account's resting orders: quotes that cross them trade on arrival, and
// levels that come out of order are sorted, whichever way the market puts them on the book (a
// merge when they come best first and cross nothing, one at a time otherwise).
import { describe, expect, it } from 'vitest';
import type { RecordedMarketEvent } from '../../../src/sim/types.js';
import { InstrumentMarket } from '../../../src/sim/market.js';
import type { MarketFill } from '../../../src/sim/types.js';
import { stream } from '../../../src/sim/random.js';

const SHAPE = { volatilityTicks: 1, halfSpreadTicks: 1, levelStepTicks: 1, levels: 1, levelLots: { min: 1, max: 1 }, tradeLots: { min: 1, max: 1 }, tradeRate: 0 };

/** A market of one price decimal and whole lots whose account fills are kept, with the account's resting orders. */
function market(resting: Array<{ id: string; side: 'BUY' | 'SELL'; priceTicks: number; lots: number }>) {
  const fills: MarketFill[] = [];
  let trade = 0;
  const m = new InstrumentMarket('BTCUSDT', 1, 0, SHAPE, 1000, stream(1, 'm'), { next: () => String(++trade), skip: () => trade++ }, (f) => fills.push(f));
  for (const o of resting) m.execute({ id: o.id, owner: 'acct', side: o.side, limitTicks: o.priceTicks, lots: o.lots }, 0, true);
  return { m, fills };
}

const book = (bids: Array<[string, string]>, asks: Array<[string, string]>): RecordedMarketEvent => ({ type: 'book', symbol: 'BTCUSDT', bids, asks });

describe("a tape's book", () => {
  it('joins the resting orders in price-time order: theirs first at a price they share', () => {
    const { m, fills } = market([
      { id: 'b1', side: 'BUY', priceTicks: 995, lots: 2 },
      { id: 's1', side: 'SELL', priceTicks: 1010, lots: 3 },
    ]);
    m.applyEvent(book([['100', '5'], ['99.5', '1'], ['99', '4']], [['100.5', '1'], ['101', '2'], ['102', '6']]), 1);
    expect(fills).toEqual([]);
    expect(m.book.bids.map((o) => [o.owner, o.priceTicks, o.lots])).toEqual([['~others', 1000, 5], ['acct', 995, 2], ['~others', 995, 1], ['~others', 990, 4]]);
    expect(m.book.asks.map((o) => [o.owner, o.priceTicks, o.lots])).toEqual([['~others', 1005, 1], ['acct', 1010, 3], ['~others', 1010, 2], ['~others', 1020, 6]]);
  });

  it('trades the resting orders its quotes cross, on arrival, at their prices', () => {
    const { m, fills } = market([{ id: 'b1', side: 'BUY', priceTicks: 1005, lots: 2 }]);
    m.applyEvent(book([['100', '5']], [['100.2', '1'], ['100.4', '3'], ['101', '4']]), 1);
    expect(fills.map((f) => [f.maker.id, f.priceTicks, f.lots, f.takerSide])).toEqual([['b1', 1005, 1, 'SELL'], ['b1', 1005, 1, 'SELL']]);
    expect(m.book.levels('BUY', 10)).toEqual([[1000, 5]]);
    expect(m.book.levels('SELL', 10)).toEqual([[1004, 2], [1010, 4]]);
  });

  it('sorts levels that come out of order', () => {
    const { m } = market([{ id: 's1', side: 'SELL', priceTicks: 1010, lots: 3 }]);
    m.applyEvent(book([['99', '4'], ['100', '5']], [['101', '2'], ['100.5', '1']]), 1);
    expect(m.book.levels('BUY', 10)).toEqual([[1000, 5], [990, 4]]);
    expect(m.book.asks.map((o) => [o.owner, o.priceTicks, o.lots])).toEqual([['~others', 1005, 1], ['acct', 1010, 3], ['~others', 1010, 2]]);
  });
});
