// An account's queue position at its price, kept across a tape's books (src/sim/queue.ts): the
// other traders' size that was ahead of its order stays ahead, shrinking by trades and by a
// level the snapshot shows smaller (cancels from the back), never growing. Before, each book put
// the order ahead of all size shown at its price, so passive fills came sooner than live.
import { describe, expect, it } from 'vitest';
import type { RecordedMarketEvent } from '../../../src/sim/types.js';
import { InstrumentMarket } from '../../../src/sim/market.js';
import type { MarketFill } from '../../../src/sim/types.js';
import { stream } from '../../../src/sim/random.js';

const SHAPE = { volatilityTicks: 1, halfSpreadTicks: 1, levelStepTicks: 1, levels: 1, levelLots: { min: 1, max: 1 }, tradeLots: { min: 1, max: 1 }, tradeRate: 0 };

/** A market of one price decimal and whole lots whose account fills are kept. */
function market() {
  const fills: MarketFill[] = [];
  let trade = 0;
  const m = new InstrumentMarket('BTCUSDT', 1, 0, SHAPE, 1000, stream(1, 'm'), { next: () => String(++trade), skip: () => trade++ }, (f) => fills.push(f));
  let at = 0;
  const bid = (id: string, lots: number, priceTicks = 1000) => m.execute({ id, owner: 'acct', side: 'BUY', limitTicks: priceTicks, lots }, ++at, true);
  const book = (bids: Array<[string, string]>): void => m.applyEvent({ type: 'book', symbol: 'BTCUSDT', bids, asks: [['101', '5']] } satisfies RecordedMarketEvent, ++at);
  const sell = (price: string, qty: string): void => m.applyEvent({ type: 'trade', symbol: 'BTCUSDT', price, qty, side: 'SELL' }, ++at);
  /** The bid side as [owner, lots] at 100, in queue order. */
  const queue = () => m.book.bids.filter((o) => o.priceTicks === 1000).map((o) => [o.owner === 'acct' ? o.id : 'others', o.lots]);
  const filled = () => fills.map((f) => [f.maker.id, f.lots]);
  return { m, bid, book, sell, queue, filled };
}

describe('queue position across a tape’s books', () => {
  it('keeps the size that was ahead of the order ahead of it at the next book', () => {
    const q = market();
    q.book([['100', '5']]);
    q.bid('b1', 2);
    q.book([['100', '5']]);
    expect(q.queue()).toEqual([['others', 5], ['b1', 2]]);
    // A sell of 3 at 100 takes other traders' size ahead, not the order.
    q.sell('100', '3');
    expect(q.filled()).toEqual([]);
    expect(q.queue()).toEqual([['others', 2], ['b1', 2]]);
  });

  it('shrinks by trades at the price, never grows when size joins, and falls with a level shown smaller', () => {
    const q = market();
    q.book([['100', '5']]);
    q.bid('b1', 2);
    q.sell('100', '3');
    // 2 left ahead; the level shows 8: 6 joined behind.
    q.book([['100', '8']]);
    expect(q.queue()).toEqual([['others', 2], ['b1', 2], ['others', 6]]);
    // The level shows 1: cancels came from the back, and only 1 is left to be ahead.
    q.book([['100', '1']]);
    expect(q.queue()).toEqual([['others', 1], ['b1', 2]]);
    q.sell('100', '2');
    expect(q.filled()).toEqual([['b1', 1]]);
    expect(q.queue()).toEqual([['b1', 1]]);
    // Nothing is ahead now: what a later book shows at 100 is behind.
    q.book([['100', '4']]);
    expect(q.queue()).toEqual([['b1', 1], ['others', 4]]);
  });

  it('a level gone leaves nothing ahead; a trade through the price takes what is ahead first', () => {
    const q = market();
    q.book([['100', '5'], ['99', '9']]);
    q.bid('b1', 2);
    q.book([['100', '5'], ['99', '9']]);
    // 5 ahead at 100, then the order: a sell of 6 through 100 leaves 1 of it.
    q.sell('99', '6');
    expect(q.filled()).toEqual([['b1', 1]]);
    const r = market();
    r.book([['100', '5']]);
    r.bid('b1', 2);
    r.book([['99', '9']]);
    r.book([['100', '3'], ['99', '9']]);
    expect(r.queue()).toEqual([['b1', 2], ['others', 3]]);
  });

  it('two orders at one price each keep what was ahead of them', () => {
    const q = market();
    q.book([['100', '2']]);
    q.bid('b1', 1);
    q.book([['100', '5']]);
    q.bid('b2', 1);
    // Ahead of b1: 2; of b2: 5 (2, b1, 3).
    q.book([['100', '6']]);
    expect(q.queue()).toEqual([['others', 2], ['b1', 1], ['others', 3], ['b2', 1], ['others', 1]]);
    q.book([['100', '3']]);
    expect(q.queue()).toEqual([['others', 2], ['b1', 1], ['others', 1], ['b2', 1]]);
    q.sell('100', '4');
    expect(q.filled()).toEqual([['b1', 1]]);
    q.sell('100', '1');
    expect(q.filled()).toEqual([['b1', 1], ['b2', 1]]);
  });
});
