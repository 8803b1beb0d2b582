// The reconciler's decisions as properties over random venue reads: where the trade cursor may
// go, which lost answers a venue order or trade can settle, what a page of open orders proves,
// and how an order ends once it left the book.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { d, dec, type Decimal } from '../../../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../../../src/core/ids.js';
import type { Order, PlaceIntent, Side } from '../../../src/core/types.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import type { VenueOrder, VenueTrade } from '../../../src/core/venue.js';
import { compareIds } from '../../../src/core/ids.js';
import { nextCursor } from '../../../src/reconciler/cursor.js';
import { afterFills } from '../../../src/reconciler/fills.js';
import { readOpenOrders } from '../../../src/reconciler/open-orders.js';
import { cancelInProgress, cancelsShown, mergeVenueOrder, settleAbsent, settlePurged } from '../../../src/reconciler/settle.js';
import { decideSymbol } from '../../../src/reconciler/pass.js';
import { couldBe, coverReads, matchUnknown, newCoverage, openCandidate, tradeCandidates, unknownsToGiveUp } from '../../../src/reconciler/unknown.js';

const SLACK = { earlyMs: 2000, lateMs: 2000 };
const vid = (n: number) => String(1_000_000_000_000_000_000n + BigInt(n)) as VenueOrderId;

function order(i: number, over: Partial<Order> = {}): Order {
  return {
    clientOrderId: `slt-${i}` as ClientOrderId,
    strategyId: 't',
    market: 'spot',
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'LIMIT',
    volume: d('0.002'),
    price: d('100'),
    executedVolume: d('0'),
    status: 'open',
    createdAt: 1000,
    updatedAt: 1000,
    ...over,
  };
}

function trade(id: number, over: Partial<VenueTrade> = {}): VenueTrade {
  return { tradeId: String(id), symbol: 'BTCUSDT', bidId: vid(id), askId: vid(10_000 + id), price: d('100'), qty: d('0.001'), time: 2000, isBuyer: true, isMaker: true, fee: d('0'), feeCoin: 'BTC', ...over };
}

function venueOrder(n: number, over: Partial<VenueOrder> = {}): VenueOrder {
  return { orderId: vid(n), symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('100'), origQty: d('0.002'), executedQty: d('0'), status: 'open', venueStatus: 'NEW', time: 2000, ...over };
}

describe('the trade cursor', () => {
  const tradesArb = fc.uniqueArray(
    fc.record({ id: fc.integer({ min: 1, max: 60 }), time: fc.integer({ min: 0, max: 100 }), ours: fc.boolean(), awaited: fc.boolean() }),
    { selector: (t) => t.id, maxLength: 30 },
  );

  it('never moves back, and never past a trade that is young, or nobody\'s yet but may become ours', () => {
    fc.assert(
      fc.property(tradesArb, fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }), fc.integer({ min: 0, max: 120 }), (raw, current, visibleBefore) => {
        const trades = raw.map((r) => trade(r.id, { time: r.time }));
        const meta = new Map(raw.map((r) => [String(r.id), r]));
        const cur = current === undefined ? undefined : String(current);
        const next = nextCursor({ trades, current: cur, ours: (t) => meta.get(t.tradeId)!.ours, awaited: (t) => meta.get(t.tradeId)!.awaited, visibleBefore });
        if (next === undefined) return;
        if (cur !== undefined) expect(compareIds(next, cur)).toBeGreaterThan(0);
        for (const r of raw) {
          if (compareIds(String(r.id), next) > 0 || (cur !== undefined && compareIds(String(r.id), cur) <= 0)) continue;
          // Everything the cursor passes is old enough and settled.
          expect(r.time).toBeLessThan(visibleBefore);
          expect(r.ours || !r.awaited).toBe(true);
        }
      }),
    );
  });

  it('moves to the last trade when every trade read is old and ours', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 999 }), { minLength: 1, maxLength: 20 }), (ids) => {
        const next = nextCursor({ trades: ids.map((i) => trade(i, { time: 5 })), current: undefined, ours: () => true, awaited: () => false, visibleBefore: 10 });
        expect(next).toBe(String(Math.max(...ids)));
      }),
    );
  });
});

describe('lost answers matched to the venue', () => {
  const sideArb = fc.constantFrom<Side>('BUY', 'SELL');
  const ordersArb = fc.array(fc.record({ side: sideArb, price: fc.integer({ min: 98, max: 102 }), volume: fc.integer({ min: 1, max: 3 }), createdAt: fc.integer({ min: 0, max: 5000 }) }), { maxLength: 6 });

  it('every match could be that order, and no venue order or order is taken twice; what a pending order could be is left to it', () => {
    fc.assert(
      fc.property(ordersArb, ordersArb, ordersArb, (unknownSpecs, venueSpecs, pendingSpecs) => {
        const unknowns = unknownSpecs.map((s, i) => order(i, { status: 'unknown', side: s.side, price: d(String(s.price)), volume: d(`0.00${s.volume}`), createdAt: s.createdAt }));
        const pending = pendingSpecs.map((s, i) => order(100 + i, { status: 'pending', side: s.side, price: d(String(s.price)), volume: d(`0.00${s.volume}`), createdAt: s.createdAt }));
        const candidates = venueSpecs.map((s, i) => openCandidate(venueOrder(i, { side: s.side, price: d(String(s.price)), origQty: d(`0.00${s.volume}`), time: s.createdAt + 10 })));
        const matches = matchUnknown(unknowns, candidates, pending, SLACK);
        expect(new Set(matches.map((m) => m.order.clientOrderId)).size).toBe(matches.length);
        expect(new Set(matches.map((m) => m.candidate.venueOrderId)).size).toBe(matches.length);
        for (const m of matches) {
          expect(couldBe(m.order, m.candidate, SLACK)).toBe(true);
          expect(pending.some((p) => couldBe(p, m.candidate, SLACK))).toBe(false);
        }
        // Nothing an unknown could be is left unmatched while that unknown is unmatched.
        const free = candidates.filter((c) => !matches.some((m) => m.candidate === c) && !pending.some((p) => couldBe(p, c, SLACK)));
        for (const u of unknowns.filter((x) => !matches.some((m) => m.order === x))) expect(free.some((c) => couldBe(u, c, SLACK))).toBe(false);
      }),
    );
  });

  it('a limit order rests at its own price: a maker trade at another price is never its own; taker trades are at its price or better', () => {
    const buy = order(1, { status: 'unknown', price: d('100'), volume: d('0.002') });
    const [maker] = tradeCandidates([trade(1, { price: d('99.99'), isMaker: true })]);
    const [taker] = tradeCandidates([trade(2, { price: d('99.99'), isMaker: false })]);
    const [worse] = tradeCandidates([trade(3, { price: d('100.01'), isMaker: false })]);
    expect(couldBe(buy, maker!, SLACK)).toBe(false);
    expect(couldBe(buy, taker!, SLACK)).toBe(true);
    expect(couldBe(buy, worse!, SLACK)).toBe(false);
    // Two unknowns a cent apart, each with its maker trade: each gets its own.
    const a = order(1, { status: 'unknown', price: d('100'), volume: d('0.001') });
    const b = order(2, { status: 'unknown', price: d('100.01'), volume: d('0.001'), createdAt: 1001 });
    const cs = tradeCandidates([trade(7, { price: d('100.01'), time: 3000 }), trade(8, { price: d('100'), time: 3001 })]);
    const m = matchUnknown([a, b], cs, [], SLACK).map((x) => [x.order.clientOrderId, x.candidate.venueOrderId]);
    expect(m).toEqual([
      ['slt-1', vid(8)],
      ['slt-2', vid(7)],
    ]);
  });

  it('a venue order older than the order by more than the early slack, or taken later than it became unknown by more than the late slack, is never it', () => {
    const u = order(1, { status: 'unknown', createdAt: 100_000, updatedAt: 100_500 });
    const slack = { earlyMs: 200, lateMs: 5200 };
    expect(couldBe(u, openCandidate(venueOrder(1, { time: 100_000 - 201 })), slack)).toBe(false);
    expect(couldBe(u, openCandidate(venueOrder(1, { time: 100_000 - 199 })), slack)).toBe(true);
    expect(couldBe(u, openCandidate(venueOrder(1, { time: 100_500 + 5200 })), slack)).toBe(true);
    expect(couldBe(u, openCandidate(venueOrder(1, { time: 100_500 + 5201 })), slack)).toBe(false);
    // A taker trade marks when the order arrived; a maker trade only that it had arrived before.
    const [taker] = tradeCandidates([trade(1, { price: d('99'), isMaker: false, time: 100_500 + 5201 })]);
    const [maker] = tradeCandidates([trade(2, { price: d('100'), isMaker: true, time: 900_000 })]);
    expect(couldBe(u, taker!, slack)).toBe(false);
    expect(couldBe(u, maker!, slack)).toBe(true);
    // An order still awaiting its answer may have waited in the queue (engine.maxQueueMs) before
    // its request was signed: no venue time after its intake rules it out.
    const pending = order(2, { status: 'pending', createdAt: 100_000, updatedAt: 100_000 });
    expect(couldBe(pending, openCandidate(venueOrder(1, { time: 100_000 + 60_000 })), slack)).toBe(true);
  });

  it('is given up only once a complete open-orders read after the timeout has had a trades read to the end graceMs later', () => {
    const u = order(1, { status: 'unknown', updatedAt: 1000 });
    const after = (reads: { openAt: number | undefined; caughtUpAt: number | undefined }[]) => {
      const c = newCoverage();
      for (const r of reads) coverReads(c, r, 4000);
      return c;
    };
    // An order filled just before the open-orders read may show in the trades only 4 s later.
    expect(unknownsToGiveUp([u], after([{ openAt: 31_000, caughtUpAt: 31_000 }]), 31_000, 30_000)).toEqual([]);
    expect(unknownsToGiveUp([u], after([{ openAt: 31_000, caughtUpAt: 31_000 }, { openAt: undefined, caughtUpAt: 34_999 }]), 35_000, 30_000)).toEqual([]);
    expect(unknownsToGiveUp([u], after([{ openAt: 31_000, caughtUpAt: 31_000 }, { openAt: undefined, caughtUpAt: 35_000 }]), 35_000, 30_000)).toEqual([u]);
    // The newest read so covered counts; one before the timeout proves nothing.
    expect(after([{ openAt: 30_999, caughtUpAt: 31_000 }, { openAt: 33_000, caughtUpAt: 37_000 }, { openAt: 36_000, caughtUpAt: 38_000 }]).settledOpenAt).toBe(33_000);
    expect(unknownsToGiveUp([u], after([{ openAt: 30_999, caughtUpAt: 31_000 }, { openAt: undefined, caughtUpAt: 40_000 }]), 40_000, 30_000)).toEqual([]);
    expect(unknownsToGiveUp([u], after([{ openAt: 31_000, caughtUpAt: 40_000 }]), 30_999, 30_000)).toEqual([]);
  });
});

describe('a page of open orders', () => {
  it('proves an order gone only when complete; absent, unseen and listed orders partition ours; executed volume never goes back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ listed: fc.boolean(), executed: fc.integer({ min: 0, max: 2 }), listedExecuted: fc.integer({ min: 0, max: 2 }) }), { maxLength: 12 }),
        fc.boolean(),
        (specs, complete) => {
          const ours = specs.map((s, i) => order(i, { venueOrderId: vid(i), executedVolume: d(`0.00${s.executed}`) }));
          const items = specs.flatMap((s, i) => (s.listed ? [venueOrder(i, { executedQty: d(`0.00${s.listedExecuted}`) })] : []));
          const byId = new Map(ours.map((o) => [o.venueOrderId as string, o]));
          const r = readOpenOrders({ ours, page: { items, skipped: [], complete }, askedAt: 5000, cancelling: () => false, byVenueId: (id) => byId.get(id), byClientId: () => undefined, now: 5 });
          const listed = new Set(items.map((v) => v.orderId as string));
          expect(r.absent.length + r.unseen.length).toBe(ours.filter((o) => !listed.has(o.venueOrderId!)).length);
          if (!complete) expect(r.absent).toEqual([]);
          else expect(r.unseen).toEqual([]);
          for (const c of r.changes) expect(dec.gte(c.order.executedVolume, byId.get(c.order.venueOrderId!)!.executedVolume)).toBe(true);
          expect(r.unclaimed).toEqual([]);
        },
      ),
    );
  });

  it('an item that could not be read is not absence: the order it names stays', () => {
    const o = order(1, { venueOrderId: vid(1) });
    const r = readOpenOrders({ ours: [o], page: { items: [], skipped: [{ path: 'body[0]', problem: 'odd', key: vid(1) }], complete: true }, askedAt: 5000, cancelling: () => false, byVenueId: () => o, byClientId: () => undefined, now: 5 });
    expect(r.absent).toEqual([]);
  });

  it('an order changed at or after the page was asked for is not judged by it: acknowledged meanwhile, the venue may have taken it after the page', () => {
    // ours is read after the venue's answers: the page (asked at 5000) saw none of these.
    const before = order(1, { venueOrderId: vid(1), updatedAt: 4999 });
    const same = order(2, { venueOrderId: vid(2), updatedAt: 5000 });
    const after = order(3, { venueOrderId: vid(3), updatedAt: 5200 });
    for (const complete of [true, false]) {
      const r = readOpenOrders({ ours: [before, same, after], page: { items: [], skipped: [], complete }, askedAt: 5000, cancelling: () => false, byVenueId: () => undefined, byClientId: () => undefined, now: 5300 });
      expect(complete ? r.absent : r.unseen).toEqual([before]);
      expect(complete ? r.unseen : r.absent).toEqual([]);
    }
  });
});

describe('a page older than what we know', () => {
  it('does not undo what changed at or after it was asked for: an accepted cancel stays pending_cancel, a fill stays filled; older knowledge is updated', () => {
    const cancelling = order(1, { venueOrderId: vid(1), status: 'pending_cancel', updatedAt: 5500 });
    const filled = order(2, { venueOrderId: vid(2), status: 'filled', executedVolume: d('0.001'), updatedAt: 5000 });
    const stale = order(3, { venueOrderId: vid(3), status: 'unknown', updatedAt: 4999 });
    const byId = new Map([cancelling, filled, stale].map((o) => [o.venueOrderId as string, o]));
    const items = [venueOrder(1), venueOrder(2), venueOrder(3)];
    const r = readOpenOrders({ ours: [cancelling, stale], page: { items, skipped: [], complete: true }, askedAt: 5000, cancelling: () => false, byVenueId: (id) => byId.get(id), byClientId: () => undefined, now: 5600 });
    expect(r.changes.map((c) => [c.order.clientOrderId, c.order.status, c.reason])).toEqual([[stale.clientOrderId, 'open', 'found open on the venue']]);
    expect(r.unclaimed).toEqual([]);
    expect(r.absent).toEqual([]);
  });

  it('an accepted cancel listed open stays pending_cancel while the venue may still be cancelling it (asynchronously); after drift.graceMs the cancel did not take', () => {
    const recent = order(1, { venueOrderId: vid(1), status: 'pending_cancel', updatedAt: 4000 });
    const old = order(2, { venueOrderId: vid(2), status: 'pending_cancel', updatedAt: 1000 });
    const byId = new Map([recent, old].map((o) => [o.venueOrderId as string, o]));
    const items = [venueOrder(1, { executedQty: d('0.0004') }), venueOrder(2)];
    const r = readOpenOrders({ ours: [recent, old], page: { items, skipped: [], complete: true }, askedAt: 5000, cancelling: (o) => o === recent, byVenueId: (id) => byId.get(id), byClientId: () => undefined, now: 6000 });
    expect(r.changes.map((c) => [c.order.clientOrderId, c.order.status, c.order.executedVolume])).toEqual([
      [recent.clientOrderId, 'pending_cancel', '0.0004'],
      [old.clientOrderId, 'open', '0'],
    ]);
  });
});

describe('how an order ends', () => {
  const volumes = fc.integer({ min: 0, max: 5 });
  it('fills never lower executed volume; one that covers the volume fills the order, even after its cancel settled', () => {
    fc.assert(
      fc.property(volumes, volumes, fc.constantFrom<Order['status']>('open', 'partially_filled', 'pending_cancel', 'canceled', 'unknown'), (had, total, status) => {
        const o = order(1, { volume: d('0.003'), executedVolume: d(`0.00${had}`), status, venueOrderId: vid(1) });
        const next = afterFills(o, d(`0.00${total}`), 9);
        if (total <= had) {
          expect(next).toBeUndefined();
          return;
        }
        expect(next!.executedVolume).toBe(d(`0.00${total}`) as Decimal);
        if (total >= 3) expect(next!.status).toBe('filled');
        else if (status === 'pending_cancel' || status === 'canceled') expect(next!.status).toBe(status);
        else expect(next!.status).toBe('partially_filled');
      }),
    );
  });

  it('off a complete page: filled by its fills; cancelled when its cancel was taken and its fills have all shown, else it waits; otherwise asked', () => {
    expect(settleAbsent(order(1, { volume: d('0.002') }), d('0.002'), 9, false)).toMatchObject({ order: { status: 'filled', executedVolume: '0.002' } });
    expect(settleAbsent(order(1, { status: 'pending_cancel' }), d('0.001'), 9, true)).toMatchObject({ order: { status: 'canceled', executedVolume: '0.001' } });
    expect(settleAbsent(order(1, { status: 'pending_cancel' }), d('0.001'), 9, false)).toBe('wait');
    expect(settleAbsent(order(1), d('0.001'), 9, true)).toBe('query');
    expect(settleAbsent(order(1, { type: 'MARKET', price: undefined }), d('0'), 9, true)).toBe('query');
  });

  it('a cancel is under way for drift.graceMs from when it was taken, however often the order fills meanwhile, and afresh for a new cancel', () => {
    const journal = new MemoryJournal();
    const intent = { kind: 'place', intentId: 'i', strategyId: 't', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.002'), price: d('100'), clientOrderId: 'slt-1' } as PlaceIntent;
    const placed = order(1, { createdAt: 0, updatedAt: 0 });
    journal.recordIntent(intent, placed);
    const at = (o: Order, reason: string) => journal.updateOrder(o, reason);
    at(order(1, { venueOrderId: vid(1), status: 'open', updatedAt: 500 }), 'acknowledged');
    at(order(1, { venueOrderId: vid(1), status: 'pending_cancel', updatedAt: 1000 }), 'cancel accepted');
    const filling = order(1, { venueOrderId: vid(1), status: 'pending_cancel', executedVolume: d('0.001'), updatedAt: 9000 });
    at(filling, 'fill 7');
    expect(cancelInProgress(journal, filling, 11_000, 10_000)).toBe(true);
    // A fill at 9000 does not move when the cancel was taken.
    expect(cancelInProgress(journal, filling, 11_001, 10_000)).toBe(false);
    // It did not take: open again, then cancelled anew at 20000.
    at(order(1, { venueOrderId: vid(1), status: 'partially_filled', executedVolume: d('0.001'), updatedAt: 15_000 }), 'venue open orders');
    const again = order(1, { venueOrderId: vid(1), status: 'pending_cancel', executedVolume: d('0.001'), updatedAt: 20_000 });
    at(again, 'cancel accepted');
    expect(cancelInProgress(journal, again, 30_000, 10_000)).toBe(true);
    expect(cancelInProgress(journal, order(1, { status: 'open' }), 0, 10_000)).toBe(false);
  });

  it('an order whose cancel was taken has shown its fills once a trades read drift.graceMs after the first read it was gone from reached the end; listed again, its wait starts afresh', () => {
    const c = newCoverage();
    const a = order(1, { status: 'pending_cancel' });
    const b = order(2, { status: 'pending_cancel' });
    coverReads(c, { openAt: 1000, caughtUpAt: 1050 }, 500);
    expect([...cancelsShown(c, [a], 1000)]).toEqual([]);
    coverReads(c, { openAt: 1400, caughtUpAt: 1450 }, 500);
    expect([...cancelsShown(c, [a, b], 1400)]).toEqual([]);
    // Trades read to the end at 1550 cover the read sent at 1000 (a gone since), not the one at 1400 (b).
    coverReads(c, { openAt: 1500, caughtUpAt: 1550 }, 500);
    expect([...cancelsShown(c, [a, b], 1500)]).toEqual([a.clientOrderId]);
    // a listed again (its cancel did not take), then gone again at 2000: it waits from 2000.
    coverReads(c, { openAt: 2000, caughtUpAt: 2050 }, 500);
    expect([...cancelsShown(c, [b], 1900)]).toEqual([b.clientOrderId]);
    expect([...cancelsShown(c, [a, b], 2000)]).toEqual([b.clientOrderId]);
    coverReads(c, { openAt: 2600, caughtUpAt: 2650 }, 500);
    expect([...cancelsShown(c, [a], 2600)]).toEqual([a.clientOrderId]);
  });

  it("a query that still says open does not undo a cancel under way; one that did not take, it does; its executed volume is taken", () => {
    const cancelling = order(1, { venueOrderId: vid(1), status: 'pending_cancel' });
    expect(mergeVenueOrder(cancelling, venueOrder(1, { executedQty: d('0.0005'), status: 'partially_filled' }), 9, true)).toMatchObject({ status: 'pending_cancel', executedVolume: '0.0005' });
    expect(mergeVenueOrder(cancelling, venueOrder(1, { executedQty: d('0.0005'), status: 'partially_filled' }), 9, false)).toMatchObject({ status: 'partially_filled', executedVolume: '0.0005' });
    expect(mergeVenueOrder(cancelling, venueOrder(1, { executedQty: d('0.0005'), status: 'canceled' }), 9, true)).toMatchObject({ status: 'canceled', executedVolume: '0.0005' });
    expect(mergeVenueOrder(order(2, { venueOrderId: vid(2) }), venueOrder(2, { executedQty: d('0.0005') }), 9)).toMatchObject({ status: 'partially_filled' });
  });

  it('-2013 ends an order: filled if its fills cover it, else cancelled; never asked again', () => {
    expect(settlePurged(order(1, { volume: d('0.002') }), d('0.002'), 9).order.status).toBe('filled');
    expect(settlePurged(order(1, { volume: d('0.002') }), d('0.001'), 9).order).toMatchObject({ status: 'canceled', executedVolume: '0.001' });
  });
});

describe('one symbol, decided', () => {
  const base = {
    market: 'spot' as const,
    symbol: 'BTCUSDT',
    now: 5000,
    pageAskedAt: 5000,
    offsetMs: 0,
    slack: SLACK,
    coverage: { caughtUpAt: 5000, settledOpenAt: 5000 },
    foreignOrders: 'adopt' as const,
    unknownTimeoutMs: 30_000,
    strategyIds: ['t'],
    cancelAskedAt: () => undefined,
    byClientId: () => undefined,
    nameOf: () => null,
    named: new Map<string, VenueOrderId>(),
    waitForNames: false,
    namesPerPass: 8,
    shownBefore: 0,
    cancelling: () => false,
  };

  it('both sides of a self-trade are claimed, each by its own order', () => {
    const bid = order(1, { venueOrderId: vid(1) });
    const ask = order(2, { venueOrderId: vid(2), side: 'SELL' });
    const byId = new Map([bid, ask].map((o) => [o.venueOrderId as string, o]));
    const t = { bidId: vid(1), askId: vid(2), isSelf: true };
    const r = decideSymbol({ ...base, ours: [bid, ask], page: { items: [], skipped: [], complete: false }, trades: [trade(9, { ...t, isBuyer: true }), trade(9, { ...t, isBuyer: false, isMaker: false })], byVenueId: (id) => byId.get(id) });
    expect(r.foreignTrades).toEqual([]);
    expect([r.claimant(vid(1))?.clientOrderId, r.claimant(vid(2))?.clientOrderId]).toEqual(['slt-1', 'slt-2']);
  });

  it('an open order on the venue that a lost answer explains is that order, not a foreign one; with no such order it is adopted', () => {
    const lost = order(1, { status: 'unknown', createdAt: 1000 });
    const page = { items: [venueOrder(5, { time: 1500 })], skipped: [], complete: true };
    const found = decideSymbol({ ...base, ours: [lost], page, trades: [], byVenueId: () => undefined });
    expect(found.changes.list.map((c) => [c.order.clientOrderId, c.order.venueOrderId, c.order.status])).toEqual([['slt-1', vid(5), 'open']]);
    expect(found.adoptions).toEqual([]);
    const foreign = decideSymbol({ ...base, ours: [], page, trades: [], byVenueId: () => undefined });
    expect(foreign.adoptions.map((a) => [a.order.clientOrderId, a.order.strategyId])).toEqual([[`venue-${vid(5)}`, 'adopted']]);
  });

  it('while an order is still in flight, a venue order it could be is neither adopted nor given to a lost answer', () => {
    const inFlight = order(1, { status: 'pending', createdAt: 1000 });
    const lost = order(2, { status: 'unknown', createdAt: 1000 });
    const r = decideSymbol({ ...base, ours: [inFlight, lost], page: { items: [venueOrder(5, { time: 1500 })], skipped: [], complete: true }, trades: [trade(3, { bidId: vid(5), time: 1600 })], byVenueId: () => undefined });
    expect(r.changes.list).toEqual([]);
    expect(r.adoptions).toEqual([]);
    expect(r.awaited.map((t) => t.tradeId)).toEqual(['3']);
  });

  it('a taker trade two lost answers of different prices could own waits for the grace, so a maker trade that fits only one can claim it', () => {
    // A passive buy at 29990 and a marketable one at 30010: a taker trade at 29990 fits both.
    const passive = order(1, { status: 'unknown', createdAt: 1000, price: d('29990') });
    const marketable = order(2, { status: 'unknown', createdAt: 1000, price: d('30010') });
    const taker = trade(3, { bidId: vid(5), price: d('29990'), isMaker: false, time: 1200 });
    const maker = trade(4, { bidId: vid(6), price: d('29990'), isMaker: true, time: 1100 });
    const none = { items: [], skipped: [], complete: true };
    const early = decideSymbol({ ...base, shownBefore: 1000, ours: [passive, marketable], page: none, trades: [taker], byVenueId: () => undefined });
    expect(early.changes.list).toEqual([]);
    expect(early.awaited.map((t) => t.tradeId)).toEqual(['3']);
    const later = decideSymbol({ ...base, shownBefore: 1000, ours: [passive, marketable], page: none, trades: [taker, maker], byVenueId: () => undefined });
    expect(later.changes.list.map((c) => [c.order.clientOrderId, c.order.venueOrderId])).toEqual([['slt-1', vid(6)], ['slt-2', vid(5)]]);
    // After the grace it is matched alone (and the maker one, should it come, is not lost: see matchUnknown).
    const alone = decideSymbol({ ...base, shownBefore: 2000, ours: [passive, marketable], page: none, trades: [taker], byVenueId: () => undefined });
    expect(alone.changes.list).toHaveLength(1);
  });

  it('a taker trade two lost answers of different prices could own waits while one of them may have a venue order not seen yet', () => {
    // A marketable sell at 29965.35 took at 29972.52; a passive sell at 29972.36, sent later,
    // rested and was filled between two reads, its trade shown late: in neither read for a while.
    const marketable = order(1, { side: 'SELL', status: 'unknown', price: d('29965.35') });
    const passive = order(2, { side: 'SELL', status: 'unknown', price: d('29972.36') });
    const taker = trade(3, { askId: vid(5), isBuyer: false, isMaker: false, price: d('29972.52'), time: 1100 });
    const maker = trade(4, { askId: vid(6), isBuyer: false, isMaker: true, price: d('29972.36'), time: 3500 });
    const none = { items: [], skipped: [], complete: true };
    const decide = (settledOpenAt: number, trades: VenueTrade[]) =>
      decideSymbol({ ...base, shownBefore: 1200, coverage: { caughtUpAt: 5000, settledOpenAt }, ours: [marketable, passive], page: none, trades, byVenueId: () => undefined });
    const bound = (r: ReturnType<typeof decideSymbol>) => r.changes.list.map((c) => [c.order.clientOrderId, c.order.venueOrderId]).sort();
    // Either may have been taken until 1000 + the late slack; no settled read covers that yet.
    const early = decide(2999, [taker]);
    expect(early.changes.list).toEqual([]);
    expect(early.awaited.map((t) => t.tradeId)).toEqual(['3']);
    expect(bound(decide(2999, [taker, maker]))).toEqual([['slt-1', vid(5)], ['slt-2', vid(6)]]);
    // Once a settled read came after that, what shows is all there is: the closest fit takes it.
    expect(bound(decide(3000, [taker]))).toEqual([['slt-2', vid(5)]]);
  });

  describe('where the venue names the client order id of a venue order', () => {
    // Two lost answers that look the same: by looks alone the older takes the older order.
    const older = order(1, { status: 'unknown', createdAt: 1000 });
    const newer = order(2, { status: 'unknown', createdAt: 1100 });
    const page = { items: [venueOrder(5, { time: 1200 }), venueOrder(6, { time: 1300 })], skipped: [], complete: true };
    const bound = (r: ReturnType<typeof decideSymbol>) => r.changes.list.map((c) => [c.order.clientOrderId, c.order.venueOrderId, c.order.status]);

    it('a named order binds exactly, whatever its looks say', () => {
      const names = new Map<string, string>([[vid(5), 'slt-2'], [vid(6), 'slt-1']]);
      const r = decideSymbol({ ...base, ours: [older, newer], page, trades: [], byVenueId: () => undefined, nameOf: (id) => names.get(id), waitForNames: true });
      expect(bound(r)).toEqual([['slt-2', vid(5), 'open'], ['slt-1', vid(6), 'open']]);
      expect(r.toIdentify).toEqual([]);
      const byLooks = decideSymbol({ ...base, ours: [older, newer], page, trades: [], byVenueId: () => undefined });
      expect(bound(byLooks)).toEqual([['slt-1', vid(5), 'open'], ['slt-2', vid(6), 'open']]);
    });

    it('an order not named yet is asked for, and neither matched, adopted nor given up meanwhile', () => {
      const late = { caughtUpAt: 99_000, settledOpenAt: 99_000 };
      const r = decideSymbol({ ...base, now: 99_000, coverage: late, ours: [older], page: { ...page, items: [venueOrder(5, { time: 1200 })] }, trades: [], byVenueId: () => undefined, nameOf: () => undefined, waitForNames: true });
      expect(r.toIdentify).toEqual([vid(5)]);
      expect(r.changes.list).toEqual([]);
      expect(r.adoptions).toEqual([]);
    });

    it('more unasked orders than a pass can ask are matched by looks at once', () => {
      const r = decideSymbol({ ...base, ours: [older, newer], page, trades: [], byVenueId: () => undefined, nameOf: () => undefined, waitForNames: true, namesPerPass: 1 });
      expect(r.toIdentify).toEqual([]);
      expect(bound(r)).toEqual([['slt-1', vid(5), 'open'], ['slt-2', vid(6), 'open']]);
    });

    it('an order named for someone else is foreign even when a lost answer looks like it; the lost answer is given up in time', () => {
      const late = { caughtUpAt: 99_000, settledOpenAt: 99_000 };
      const r = decideSymbol({ ...base, now: 99_000, coverage: late, ours: [older], page: { ...page, items: [venueOrder(5, { time: 1200 })] }, trades: [], byVenueId: () => undefined, nameOf: () => 'web-ui-7', waitForNames: true });
      expect(r.adoptions.map((a) => a.order.venueOrderId)).toEqual([vid(5)]);
      expect(bound(r)).toEqual([['slt-1', undefined, 'rejected']]);
    });

    it('an order named for one already bound by looks to its identical twin goes by looks to the twin\'s lost answer', () => {
      // slt-1 took venue 6 by looks before venue 5 showed; venue 5 is slt-1's, so venue 6 was slt-2's.
      const boundByLooks = order(1, { status: 'open', venueOrderId: vid(6), createdAt: 1000 });
      const r = decideSymbol({ ...base, ours: [boundByLooks, newer], page: { ...page, items: [venueOrder(5, { time: 1200 })] }, trades: [], byVenueId: (id) => (id === vid(6) ? boundByLooks : undefined), byClientId: (id) => (id === 'slt-1' ? boundByLooks : undefined), nameOf: (id) => (id === vid(5) ? 'slt-1' : undefined), waitForNames: true });
      expect(bound(r)).toEqual([['slt-2', vid(5), 'open']]);
      expect(r.adoptions).toEqual([]);
    });

    it('an order named for a venue order that has left both reads since is bound to it, and takes no other order\'s trade by looks', () => {
      // A passive sell at 100 rested, was asked for and named; it then filled between two reads
      // and its trade shows late. A marketable sell at 95 took at 101: by looks the trade is
      // closest to the passive one, whose own trade would then be nobody's. (The taker's venue
      // order was asked for too, and named nothing: the venue no longer knew it.)
      const passive = order(1, { side: 'SELL', status: 'unknown', price: d('100') });
      const marketable = order(2, { side: 'SELL', status: 'unknown', price: d('95') });
      const taker = trade(3, { askId: vid(5), isBuyer: false, isMaker: false, price: d('101'), time: 1100 });
      const none = { items: [], skipped: [], complete: true };
      const decide = (named: Map<string, VenueOrderId>) => decideSymbol({ ...base, shownBefore: 2000, ours: [passive, marketable], page: none, trades: [taker], byVenueId: () => undefined, nameOf: () => null, named, waitForNames: true });
      expect(bound(decide(new Map()))).toEqual([['slt-1', vid(5), 'open']]);
      const r = decide(new Map([['slt-1', vid(7)]]));
      expect(bound(r).sort()).toEqual([['slt-1', vid(7), 'open'], ['slt-2', vid(5), 'open']]);
      expect(r.found.map((o) => o.clientOrderId).sort()).toEqual(['slt-1', 'slt-2']);
      // Both bound: no name needs keeping for them.
      expect([...r.awaitingIds]).toEqual([]);
      // Bound already (to another order, or by this pass's reads): the name binds nothing more.
      const taken = decideSymbol({ ...base, shownBefore: 2000, ours: [passive, marketable], page: none, trades: [taker], byVenueId: (id) => (id === vid(7) ? order(9, { venueOrderId: vid(7) }) : undefined), nameOf: () => null, named: new Map([['slt-1', vid(7)]]), waitForNames: true });
      expect(bound(taken)).toEqual([['slt-1', vid(5), 'open']]);
      // The taker's lost answer still awaits its venue order: a name for it would be kept.
      expect([...taken.awaitingIds]).toEqual(['slt-2']);
    });

    it('an order given up as never placed that the venue names after all is bound again: its fills count', () => {
      const gaveUp = order(1, { status: 'rejected', createdAt: 1000 });
      const t = trade(3, { bidId: vid(5), time: 1250 });
      const r = decideSymbol({ ...base, ours: [], page: { items: [], skipped: [], complete: true }, trades: [t], byVenueId: () => undefined, byClientId: (id) => (id === 'slt-1' ? gaveUp : undefined), nameOf: () => 'slt-1', waitForNames: true });
      expect(bound(r)).toEqual([['slt-1', vid(5), 'open']]);
      expect(r.claimant(vid(5))?.clientOrderId).toBe('slt-1');
      expect(r.foreignTrades).toEqual([]);
    });
  });
});
