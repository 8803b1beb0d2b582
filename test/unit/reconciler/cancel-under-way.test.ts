// A page that still lists an order whose cancel the venue took is judged at the time it was asked
// for, not when the pass decides: the venue cancels asynchronously (the notes), so within
// drift.graceMs of the cancel a listing proves nothing, however long the pass's other reads take.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { OpenOrdersPage } from '../../../src/core/ports.js';
import type { Order, PlaceIntent } from '../../../src/core/types.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { scriptedReader, scriptedReconciler } from '../../fixtures/scripted-reconciler.js';

const T0 = 1_700_000_000_000;
const GRACE_MS = 10_000; // reconcile.drift.graceMs's default
const venueOrderId = '900000000000000001' as VenueOrderId;

describe('an order whose cancel the venue took, still listed open', () => {
  it('stays pending_cancel when the page was asked for within the grace, even if the pass decides after it; then opens again', async () => {
    const clock = new ManualClock(T0 - 60_000);
    const journal = new MemoryJournal();
    const intent: PlaceIntent = { kind: 'place', intentId: 'cu-1:place', strategyId: 't', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.5'), price: d('100'), clientOrderId: 'cu-1' as never };
    const placed: Order = { ...intent, executedVolume: d('0'), status: 'pending', createdAt: T0 - 60_000, updatedAt: T0 - 60_000 };
    journal.recordIntent(intent, placed);
    journal.updateOrder({ ...placed, venueOrderId, status: 'open', updatedAt: T0 - 59_000 }, 'acknowledged');
    journal.updateOrder({ ...journal.order('cu-1')!, status: 'pending_cancel', updatedAt: T0 }, 'cancel accepted');
    journal.setCursor('trades:spot:BTCUSDT', '0');

    let tradesReadMs = 0;
    const reader = scriptedReader({
      openOrders: async (): Promise<OpenOrdersPage> => ({
        items: [{ orderId: venueOrderId, symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('100'), origQty: d('0.5'), executedQty: d('0'), status: 'open', venueStatus: 'NEW', clientOrderId: 'cu-1', time: T0 - 59_000 }],
        skipped: [],
        complete: true,
      }),
      // A slow trades read: the pass decides this long after it asked for the open orders.
      trades: async () => {
        await clock.advance(tradesReadMs);
        return { items: [], skipped: [], full: false };
      },
    });
    const reconciler = await scriptedReconciler({ reader, journal, clock });
    const symbols = [{ market: 'spot' as const, symbol: 'BTCUSDT' }];

    // Asked for 8 s after the cancel was taken, decided 3 s later (past the grace).
    await clock.advance(T0 + 8000 - clock.now());
    tradesReadMs = 3000;
    await reconciler.pass(symbols);
    expect(clock.now()).toBe(T0 + 11_000);
    expect(journal.order('cu-1')!.status).toBe('pending_cancel');

    // The next pass asks past the grace: the cancel did not take, the order rests, cancellable anew.
    tradesReadMs = 0;
    expect(clock.now()).toBeGreaterThan(T0 + GRACE_MS);
    await reconciler.pass(symbols);
    expect(journal.order('cu-1')!.status).toBe('open');
  });
});
