// Lost answers matched to what the venue shows, as the soak (bench/soak.bench.ts) found they
// went wrong: an intent a killed run journaled but never sent became `unknown` at the restart
// and took a venue order the next run placed seconds later (seed 2, 75 s: 200 of them), and a
// lost answer took another's order while its own fill had yet to show (late fills). A venue
// order taken after an order became unknown (beyond the clock slack) is not it, and a candidate
// goes to the unknown journaled latest before it appeared.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../../../src/core/ids.js';
import type { Order } from '../../../src/core/types.js';
import type { VenueTrade } from '../../../src/core/venue.js';
import { matchUnknown, tradeCandidates } from '../../../src/reconciler/unknown.js';

const SLACK = { earlyMs: 1000, lateMs: 1000 };

function unknown(id: string, createdAt: number, unknownAt: number, price: string, side: Order['side'] = 'SELL'): Order {
  return {
    clientOrderId: id as ClientOrderId,
    strategyId: 'soak',
    market: 'spot',
    symbol: 'BTCUSDT',
    side,
    type: 'LIMIT',
    volume: d('0.001'),
    price: d(price),
    executedVolume: d('0'),
    status: 'unknown',
    createdAt,
    updatedAt: unknownAt,
  };
}

describe('lost answers matched to the venue', () => {
  it('does not give an order placed after a request ended to that request', () => {
    // Intent journaled at t=1000 by a daemon killed at about t=3000; the restart at t=6000 marks it unknown.
    const interrupted = unknown('slsoak-interrupted', 1000, 6000, '29995.02');
    // The new run sends an order at t=20000 whose answer is lost at t=20300.
    const lost = unknown('slsoak-lost', 20_000, 20_300, '29994.14');
    // The venue placed the lost one at t=20200; it took liquidity at 29995.25 (its limit or better).
    const trade: VenueTrade = {
      tradeId: '165964666528140210',
      symbol: 'BTCUSDT',
      bidId: '141000000000000001' as VenueOrderId,
      askId: '150695552651384533' as VenueOrderId,
      price: d('29995.25'),
      qty: d('0.001'),
      time: 20_200,
      isBuyer: false,
      isMaker: false,
      fee: d('0.06'),
      feeCoin: 'USDT',
    };
    const matches = matchUnknown([interrupted, lost], tradeCandidates([trade]), [], SLACK);
    const got = matches.map((m) => `${m.order.clientOrderId} -> ${m.candidate.venueOrderId}`);
    expect(got, 'the venue order placed at t=20200 went to an intent whose sender died at t=3000').toEqual(['slsoak-lost -> 150695552651384533']);
  });

  it('does not bind a lost answer to another order while its own fill may still show (late fills)', () => {
    // Two BUYs whose answers were lost. A rested and was filled as maker at its price at t=1150,
    // but the venue shows that fill late (it may, up to reconcile.drift.graceMs); B took
    // liquidity at t=1250 and its fill shows at once. (Seed 7 of the soak: one lost fill and
    // four drift alarms this way, the first at 0.000999 BTC: a maker buy of 0.001 less its fee.)
    const a = unknown('slsoak-a', 1000, 1100, '29993.87', 'BUY');
    const b = unknown('slsoak-b', 1200, 1300, '29990.00', 'BUY');
    const fill = (tradeId: string, bidId: string, price: string, time: number, isMaker: boolean): VenueTrade => ({
      tradeId,
      symbol: 'BTCUSDT',
      bidId: bidId as VenueOrderId,
      askId: '141000000000000002' as VenueOrderId,
      price: d(price),
      qty: d('0.001'),
      time,
      isBuyer: true,
      isMaker,
      fee: d('0.000001'),
      feeCoin: 'BTC',
    });
    const ofB = fill('165964666063533599', '150695552440355001', '29985.10', 1250, false);
    const ofA = fill('165964666063534376', '150695552440355576', '29993.87', 1150, true);
    // A pass before A's fill shows, then one after it.
    const first = matchUnknown([a, b], tradeCandidates([ofB]), [], SLACK);
    const left = [a, b].filter((o) => !first.some((m) => m.order === o));
    const second = matchUnknown(left, tradeCandidates([ofA]), [], SLACK);
    const got = [...first, ...second].map((m) => `${m.order.clientOrderId} -> ${m.candidate.venueOrderId}`).sort();
    // Each trade must end with an order that can own it; here B is left with nothing (it will be
    // given up as never placed) and A's own fill with no order (a trade that counts nowhere).
    expect(got).toEqual(['slsoak-a -> 150695552440355576', 'slsoak-b -> 150695552440355001']);
  });

  it('gives each venue order an owner when one fits several: a maker trade fits only its own price, a taker trade every limit beyond it', () => {
    // The soak (seed 20251313): M rested at 29985.89 and was filled there as maker; T, a
    // marketable buy with a limit far through the book, took at 29980. M fits both trades, T only
    // the taker one. Serving M first (it is older) with the taker trade left M's own trade to nobody.
    const m = unknown('slsoak-m', 1000, 1100, '29985.89', 'BUY');
    const t = unknown('slsoak-t', 1200, 1300, '30100.00', 'BUY');
    const buy = (tradeId: string, bidId: string, price: string, time: number, isMaker: boolean): VenueTrade => ({
      tradeId,
      symbol: 'BTCUSDT',
      bidId: bidId as VenueOrderId,
      askId: '141000000000000009' as VenueOrderId,
      price: d(price),
      qty: d('0.001'),
      time,
      isBuyer: true,
      isMaker,
      fee: d('0.000001'),
      feeCoin: 'BTC',
    });
    const taker = buy('900', '150695552839300001', '29980.00', 1250, false);
    const maker = buy('901', '150695552839300002', '29985.89', 1400, true);
    const got = matchUnknown([m, t], tradeCandidates([taker, maker]), [], SLACK).map((x) => `${x.order.clientOrderId} -> ${x.candidate.venueOrderId}`);
    expect(got).toEqual(['slsoak-m -> 150695552839300002', 'slsoak-t -> 150695552839300001']);
  });
});
