// The trade cursor and a self-trade (one trade id listed twice, once per side), as the soak
// (bench/soak.bench.ts) found it: with the buyer's item ours and the seller's awaited (its
// order's answer lost), the cursor moved to that id on the buyer's item and the next pass read
// past it, so the seller's item was never read again and its fill was lost.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { VenueTrade } from '../../../src/core/venue.js';
import { compareIds } from '../../../src/core/ids.js';
import { nextCursor } from '../../../src/reconciler/cursor.js';

const item = (tradeId: string, isBuyer: boolean, time = 1000): VenueTrade => ({
  tradeId,
  symbol: 'BTCUSDT',
  bidId: '900' as VenueOrderId,
  askId: '901' as VenueOrderId,
  price: d('30000'),
  qty: d('0.001'),
  time,
  isBuyer,
  isMaker: isBuyer,
  isSelf: true,
  fee: d('0.000001'),
  feeCoin: isBuyer ? 'BTC' : 'USDT',
});

describe('the trade cursor and a self-trade whose seller side is awaited', () => {
  it('never moves to (or past) the trade id while one of its sides is awaited', () => {
    // The venue lists the buyer's item first. Order 900 (the bid) is journaled; order 901 (the
    // ask) is an order whose answer was lost: its item may become ours.
    const buyer = item('500', true);
    const seller = item('500', false);
    const later = item('501', true);
    const ours = (t: VenueTrade) => t.isBuyer;
    const awaited = (t: VenueTrade) => !t.isBuyer;

    const first = nextCursor({ trades: [buyer, seller], current: '499', ours, awaited, visibleBefore: 5000 });
    // The seller's item of trade 500 is awaited: the cursor must stay below 500 (at 500 it is
    // still re-read, fromId being inclusive, but the cursor says nothing is left to learn there) ...
    expect.soft(first === undefined || compareIds(first, '500') < 0, `cursor moved to ${first}`).toBe(true);

    // ... otherwise the next pass, reading from 500, moves past it and never reads it again.
    const second = nextCursor({ trades: [buyer, seller, later], current: first ?? '499', ours, awaited, visibleBefore: 5000 });
    expect(second === undefined || compareIds(second, '500') < 0, `cursor moved to ${second}: the awaited seller item of trade 500 is never read again`).toBe(true);
  });
});
