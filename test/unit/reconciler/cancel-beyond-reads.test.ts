// A cancel the venue took (or answered "already ended") for an order that filled instead: the
// order leaves the book, and its fill lies beyond what one pass's trade reads reach (page budget,
// pages of 100). It must not be journaled cancelled meanwhile: its strategy would hear
// "cancelled, nothing executed" and could place it again (a futures CLOSE's replacement waits
// for exactly that).
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { Order, PlaceIntent } from '../../../src/core/types.js';
import type { VenueTrade } from '../../../src/core/venue.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { scriptedReader, scriptedReconciler } from '../../fixtures/scripted-reconciler.js';

const T0 = 1_700_000_000_000;
const OURS = '900000000000000001' as VenueOrderId;
const PAGE = 100; // a venue that cuts every page at 100

/** Our fill, when there is one, shows in the trade reads from pass `shownFrom` on (1: at once). */
async function rig(tradesBefore: number, filled = true, shownFrom = 1) {
  let passes = 0;
  const clock = new ManualClock(T0);
  const journal = new MemoryJournal();
  const intent: PlaceIntent = { kind: 'place', intentId: 'slt-1:place', strategyId: 't', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('1'), price: d('100'), clientOrderId: 'slt-1' as never };
  const placed: Order = { ...intent, executedVolume: d('0'), status: 'pending', createdAt: T0 - 120_000, updatedAt: T0 - 120_000 };
  journal.recordIntent(intent, placed);
  journal.updateOrder({ ...placed, venueOrderId: OURS, status: 'open', updatedAt: T0 - 110_000 }, 'acknowledged');
  journal.updateOrder({ ...placed, venueOrderId: OURS, status: 'pending_cancel', updatedAt: T0 - 100_000 }, 'cancel accepted');
  journal.setCursor('trades:spot:BTCUSDT', '1');
  // Someone else's trades (an order sluice never placed) since the cursor, then our fill.
  const trades: VenueTrade[] = [];
  for (let i = 1; i <= tradesBefore + 1; i++) {
    const ours = filled && i === tradesBefore + 1;
    trades.push({ tradeId: String(i), symbol: 'BTCUSDT', bidId: (ours ? OURS : '800000000000000001') as VenueOrderId, askId: '700000000000000001' as VenueOrderId, price: d('100'), qty: ours ? d('1') : d('0.001'), time: T0 - 90_000 + i, isBuyer: true, isMaker: true, fee: d('0'), feeCoin: 'USDT' });
  }
  const reader = scriptedReader({
    trades: async (_symbol: string, fromId?: string) => {
      const shown = trades.filter((t) => passes >= shownFrom || t.bidId !== OURS);
      const from = fromId === undefined ? shown.length - PAGE : shown.findIndex((t) => t.tradeId === fromId);
      const items = shown.slice(from, from + PAGE);
      return { items, skipped: [], full: items.length >= PAGE };
    },
  });
  const told: string[] = [];
  const reconciler = await scriptedReconciler({ reader, journal, clock, config: 'mode: paper\nreconcile: { foreignOrders: adopt, drift: { graceMs: 3000 } }\n', onOrder: async (o) => void told.push(`${o.status} ${o.executedVolume}`) });
  const pass = async () => {
    passes++;
    await reconciler.pass([{ market: 'spot', symbol: 'BTCUSDT' }]);
    clock.moveTo(clock.now() + 2000);
    return journal.order('slt-1')!.status;
  };
  return { pass, told, journal };
}

describe('a pending cancel that left the book', () => {
  it('waits while the trade reads stop at their page budget, and is filled once they reach its fill: never told cancelled', async () => {
    const { pass, told, journal } = await rig(699);
    expect(await pass()).toBe('pending_cancel');
    expect(await pass()).toBe('filled');
    expect(told).toEqual(['filled 1']);
    expect(journal.history('slt-1').map((e) => e.status)).not.toContain('canceled');
  });

  it('a fill the venue shows late (a cancel answered "already ended") still turns it filled, never cancelled first', async () => {
    const { pass, told } = await rig(0, true, 2);
    expect([await pass(), await pass()]).toEqual(['pending_cancel', 'filled']);
    expect(told).toEqual(['filled 1']);
  });

  it('is cancelled once trades read to the end drift.graceMs after it was first gone show no fill of it (a late fill may show till then)', async () => {
    // Passes 2 s apart, graceMs 3 s: gone from the first pass's page; the third pass's trades cover it.
    const { pass, told } = await rig(699, false);
    expect([await pass(), await pass(), await pass()]).toEqual(['pending_cancel', 'pending_cancel', 'canceled']);
    expect(told).toEqual(['canceled 0']);
    const quick = await rig(150, false);
    expect([await quick.pass(), await quick.pass(), await quick.pass()]).toEqual(['pending_cancel', 'pending_cancel', 'canceled']);
  });
});
