// A paper daemon's memory journal forgets final orders, their events and fills, two hours after
// they end (after the paper venue has forgotten them): it stays bounded over days, while open
// orders, young ones and fills another kept order shares are kept. Backtests forget nothing.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import type { Fill, Order, OrderStatus } from '../../../src/core/types.js';
import { paper } from '../../../src/app/profiles.js';
import { parseConfig } from '../../../src/config/index.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { cid, placeOf, vid } from '../../fixtures/engine-parts.js';

const MIN = 60_000;
const HOURS_2 = 120 * MIN;

function order(id: string, createdAt: number, status: OrderStatus, updatedAt: number, venueOrderId?: string): { placed: Order; now: Order } {
  const intent = placeOf(id);
  const placed: Order = { ...intent, executedVolume: d('0'), status: 'pending', createdAt, updatedAt: createdAt };
  return { placed, now: { ...placed, status, updatedAt, ...(venueOrderId ? { venueOrderId: vid(venueOrderId) } : {}) } };
}

const fill = (tradeId: string, venueOrderId: string, time: number): Fill => ({ tradeId, market: 'spot', symbol: 'BTCUSDT', venueOrderId: vid(venueOrderId), side: 'BUY', price: d('30000'), volume: d('0.5'), fee: d('0'), feeAsset: 'USDT', time, isMaker: false });

function journalWith(keep: boolean, clock: ManualClock): MemoryJournal {
  const j = new MemoryJournal(keep ? { keep: { ms: HOURS_2, now: () => clock.now() } } : {});
  const orders = [
    order('old-final', 0, 'filled', 10 * MIN, 'v1'),
    order('old-open', 0, 'open', 5 * MIN, 'v2'),
    order('lately-final', 0, 'canceled', 115 * MIN, 'v3'),
    order('old-shared', 0, 'filled', 10 * MIN, 'v4'),
    order('rebound', 1, 'open', 20 * MIN, 'v4'),
  ];
  for (const { placed, now } of orders) {
    j.recordIntent(placeOf(placed.clientOrderId), placed);
    j.updateOrder(now, 'answer');
  }
  j.recordFill(fill('t1', 'v1', 9 * MIN));
  j.recordFill(fill('t2', 'v2', 4 * MIN));
  j.recordFill(fill('t3', 'v3', 100 * MIN));
  j.recordFill(fill('t4', 'v4', 9 * MIN));
  return j;
}

describe('memory journal forgetting (paper)', () => {
  it('forgets final orders that ended two hours ago, with their events and fills, at the next write', () => {
    const clock = new ManualClock(0);
    const j = journalWith(true, clock);
    clock.moveTo(131 * MIN);
    const { placed } = order('new', 131 * MIN, 'pending', 131 * MIN);
    j.recordIntent(placeOf('new'), placed);

    expect(j.order('old-final')).toBeUndefined();
    expect(j.history('old-final')).toEqual([]);
    expect(j.ordersByVenueId('v1')).toEqual([]);
    expect(j.fillVolumes('spot', 'BTCUSDT', 'v1')).toEqual([]);
    expect(j.fills().map((f) => f.tradeId).sort()).toEqual(['t2', 't3', 't4']);
    // Kept: an order still open however old, one that ended lately, and the fills of a venue id
    // another kept order is bound to.
    expect(j.order('old-open')?.status).toBe('open');
    expect(j.orders({ openOnly: true }).map((o) => o.clientOrderId)).toEqual([cid('old-open'), cid('rebound'), cid('new')]);
    expect(j.order('lately-final')?.status).toBe('canceled');
    expect(j.order('old-shared')).toBeUndefined();
    expect(j.ordersByVenueId('v4').map((o) => o.clientOrderId)).toEqual(['rebound']);
    expect(j.fillVolumes('spot', 'BTCUSDT', 'v4')).toEqual([d('0.5')]);
    expect(j.orders().map((o) => o.clientOrderId)).toEqual(['old-open', 'lately-final', 'rebound', 'new']);
  });

  it('forgets each order once it has been final for two hours, and nothing without keep (a backtest\'s report needs every order)', () => {
    const clock = new ManualClock(0);
    const j = journalWith(true, clock);
    clock.moveTo(131 * MIN);
    j.recordIntent(placeOf('a'), order('a', 131 * MIN, 'pending', 131 * MIN).placed);
    expect(j.order('lately-final')).toBeDefined();
    j.updateOrder({ ...j.order('a')!, status: 'canceled', updatedAt: 131 * MIN }, 'done');
    clock.moveTo(236 * MIN);
    j.recordIntent(placeOf('b'), order('b', 236 * MIN, 'pending', 236 * MIN).placed);
    expect(j.order('lately-final')).toBeUndefined();
    expect(j.order('a')).toBeDefined();

    const all = journalWith(false, clock);
    all.recordIntent(placeOf('c'), order('c', 236 * MIN, 'pending', 236 * MIN).placed);
    expect(all.orders()).toHaveLength(6);
    expect(all.fills()).toHaveLength(4);
  });

  it('a paper daemon\'s journal forgets only after its venue has forgotten the same orders and trades', async () => {
    const { config } = await parseConfig('mode: paper\n', { env: {} });
    const profile = paper(config, new ManualClock(Date.UTC(2026, 0, 1)));
    expect(profile.journal).toBe('memory');
    expect(profile.journalKeepMs).toBe(HOURS_2);
    const venue = profile.venue.kind === 'sim' ? profile.venue.sim : undefined;
    expect(venue?.keepMs).toBe(HOURS_2 / 2);
  });
});
