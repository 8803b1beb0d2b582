// A pass whose open-orders read fails still reads the symbol's trades and books them: a venue
// whose openOrders endpoint is failing (or answers something unreadable) must not hold every
// fill back. The failed read proves nothing gone, and the pass is not complete.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { OpenOrdersPage } from '../../../src/core/ports.js';
import type { Order, PlaceIntent } from '../../../src/core/types.js';
import type { VenueTrade } from '../../../src/core/venue.js';
import { PositionBook } from '../../../src/positions/book.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { MemoryLog } from '../../fixtures/engine-parts.js';
import { scriptedReader, scriptedReconciler } from '../../fixtures/scripted-reconciler.js';

const T0 = 1_700_000_000_000;
const venueId = (n: number) => `90000000000000000${n}` as VenueOrderId;

describe('a pass whose open-orders read fails', () => {
  it('books the trades it reads, settles nothing by absence, and is not complete', async () => {
    const clock = new ManualClock(T0);
    const journal = new MemoryJournal();
    const orders: Order[] = [];
    for (const n of [1, 2]) {
      const intent: PlaceIntent = { kind: 'place', intentId: `slt-${n}:place`, strategyId: 't', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.5'), price: d('100'), clientOrderId: `slt-${n}` as never };
      const placed: Order = { ...intent, executedVolume: d('0'), status: 'pending', createdAt: T0 - 120_000, updatedAt: T0 - 120_000 };
      journal.recordIntent(intent, placed);
      const open: Order = { ...placed, venueOrderId: venueId(n), status: 'open', updatedAt: T0 - 110_000 };
      journal.updateOrder(open, 'acknowledged');
      orders.push(open);
    }
    // slt-1 traded 0.2 of its 0.5; slt-2 rests untouched.
    const trades: VenueTrade[] = [{ tradeId: '1', symbol: 'BTCUSDT', bidId: venueId(1), askId: '700000000000000001' as VenueOrderId, price: d('100'), qty: d('0.2'), time: T0 - 90_000, isBuyer: true, isMaker: true, fee: d('0.01'), feeCoin: 'USDT' }];
    journal.setCursor('trades:spot:BTCUSDT', '0');
    let openOrdersFail = true;
    const asked: string[] = [];
    const reader = scriptedReader({
      openOrders: async (): Promise<OpenOrdersPage> => {
        if (openOrdersFail) throw new Error('HTTP 502 from GET /sapi/v1/openOrders');
        return { items: [{ orderId: venueId(2), symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('100'), origQty: d('0.5'), executedQty: d('0'), status: 'open', venueStatus: 'NEW', clientOrderId: 'slt-2', time: T0 - 115_000 }], skipped: [], complete: true };
      },
      trades: async () => ({ items: trades, skipped: [], full: false }),
      // Asked only of an order gone from a complete page with its volume not all traded.
      order: async (_symbol: string, id: VenueOrderId) => {
        asked.push(id);
        return { orderId: id, symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('100'), origQty: d('0.5'), executedQty: d('0.2'), status: 'canceled', venueStatus: 'CANCELED', clientOrderId: 'slt-1', time: T0 - 115_000 };
      },
    });
    const positions = new PositionBook();
    const log = new MemoryLog();
    const fills: string[] = [];
    const reconciler = await scriptedReconciler({ reader, journal, clock, positions, log, onFill: async (f, o) => void fills.push(`${f.tradeId} ${o?.clientOrderId} ${f.volume} fee ${f.fee}`) });

    const first = await reconciler.pass([{ market: 'spot', symbol: 'BTCUSDT' }]);
    expect(first.complete).toBe(false);
    expect(fills).toEqual(['1 slt-1 0.2 fee 0.01']);
    expect(positions.position('spot', 'BTCUSDT').quantity).toBe('0.2');
    expect(journal.cursor('trades:spot:BTCUSDT')).not.toBe('0');
    // Neither order is judged by a page that was never read: both still rest.
    expect(journal.order('slt-1')).toMatchObject({ status: 'partially_filled', executedVolume: '0.2' });
    expect(journal.order('slt-2')).toMatchObject({ status: 'open', executedVolume: '0' });
    expect(asked).toEqual([]);
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(['open orders read failed; reading trades all the same; will retry']);
    expect(JSON.stringify(log.lines)).toContain('HTTP 502');

    // The next pass reads the open orders: slt-1 is gone from them (asked: canceled), slt-2 rests.
    openOrdersFail = false;
    await clock.advance(60_000);
    await reconciler.pass([{ market: 'spot', symbol: 'BTCUSDT' }]);
    expect(fills).toHaveLength(1);
    expect(journal.order('slt-2')?.status).toBe('open');
    expect(asked).toEqual([venueId(1)]);
    expect(journal.order('slt-1')).toMatchObject({ status: 'canceled', executedVolume: '0.2' });
  });
});
