// How a reconcile pass tells the engine of orders that filled and their fills: every fill of a
// commit booked (onBooked) before any is told, each told (onFill) with its order as journaled
// after the commit, and only then the order changes they explain (onOrder). A strategy that
// hears 'filled', or reads between two tellings, finds its fills in its positions.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { Order, PlaceIntent } from '../../../src/core/types.js';
import type { VenueTrade } from '../../../src/core/venue.js';
import { PositionBook } from '../../../src/positions/book.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { scriptedReader, scriptedReconciler } from '../../fixtures/scripted-reconciler.js';

const T0 = 1_700_000_000_000;
const venueId = (n: number) => `90000000000000000${n}` as VenueOrderId;

describe('a pass that finds three resting buys gone and their trades', () => {
  it('books all three fills, then tells each with its order filled, then the orders', async () => {
    const clock = new ManualClock(T0);
    const journal = new MemoryJournal();
    const trades: VenueTrade[] = [];
    for (const n of [1, 2, 3]) {
      const intent: PlaceIntent = { kind: 'place', intentId: `slt-${n}:place`, strategyId: 't', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.5'), price: d('100'), clientOrderId: `slt-${n}` as never };
      const placed: Order = { ...intent, executedVolume: d('0'), status: 'pending', createdAt: T0 - 120_000, updatedAt: T0 - 120_000 };
      journal.recordIntent(intent, placed);
      journal.updateOrder({ ...placed, venueOrderId: venueId(n), status: 'open', updatedAt: T0 - 110_000 }, 'acknowledged');
      trades.push({ tradeId: String(n), symbol: 'BTCUSDT', bidId: venueId(n), askId: '700000000000000001' as VenueOrderId, price: d('100'), qty: d('0.5'), time: T0 - 90_000 + n, isBuyer: true, isMaker: true, fee: d('0'), feeCoin: 'USDT' });
    }
    journal.setCursor('trades:spot:BTCUSDT', '0');
    const reader = scriptedReader({ trades: async () => ({ items: trades, skipped: [], full: false }) });
    const positions = new PositionBook();
    const told: string[] = [];
    const reconciler = await scriptedReconciler({
      reader,
      journal,
      clock,
      positions,
      onOrder: async (o) => void told.push(`order ${o.clientOrderId} ${o.status}`),
      onBooked: (f) => void told.push(`booked ${f.tradeId} position ${positions.position('spot', 'BTCUSDT').quantity}`),
      onFill: async (f, o) => void told.push(`fill ${f.tradeId} ${o?.clientOrderId} ${o?.status} ${o?.executedVolume}`),
    });
    await reconciler.pass([{ market: 'spot', symbol: 'BTCUSDT' }]);
    expect(told).toEqual([
      // Each in the account's positions when booked: the strategy's book follows in step.
      'booked 1 position 0.5',
      'booked 2 position 1',
      'booked 3 position 1.5',
      'fill 1 slt-1 filled 0.5',
      'fill 2 slt-2 filled 0.5',
      'fill 3 slt-3 filled 0.5',
      'order slt-1 filled',
      'order slt-2 filled',
      'order slt-3 filled',
    ]);
  });
});
