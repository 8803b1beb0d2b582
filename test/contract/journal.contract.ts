// What every Journal must do, whatever keeps it. Cases that need a store surviving close()
// run only when the implementation can be reopened (`reopen`); elsewhere they are skipped.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fill as aFill } from '../fixtures/builders.js';
import { d, type Decimal } from '../../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../../src/core/ids.js';
import type { Journal } from '../../src/core/ports.js';
import type { Fill, Market, Order, OrderStatus, PlaceIntent, Position } from '../../src/core/types.js';
import { MemoryJournal } from '../../src/store/memory.js';

export interface JournalUnderTest {
  journal: Journal;
  /** Closes the journal last handed out (by make or reopen) and opens the same store again. */
  reopen?: () => Journal;
  /** Closes whatever is open and removes what the test made. */
  cleanup: () => void;
}

// ---------- builders shared with other journal tests ----------

export function placeIntent(strategyId: string, clientOrderId: string, over: Partial<PlaceIntent> = {}): PlaceIntent {
  return {
    kind: 'place',
    intentId: `${clientOrderId}:place`,
    strategyId,
    market: 'spot',
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'LIMIT',
    volume: d('0.015'),
    price: d('64000.5'),
    clientOrderId: clientOrderId as ClientOrderId,
    ...over,
  };
}

export function pendingOrder(intent: PlaceIntent, at: number): Order {
  const o: Order = {
    clientOrderId: intent.clientOrderId,
    strategyId: intent.strategyId,
    market: intent.market,
    symbol: intent.symbol,
    side: intent.side,
    type: intent.type,
    volume: intent.volume,
    executedVolume: d('0'),
    status: 'pending',
    createdAt: at,
    updatedAt: at,
  };
  if (intent.price !== undefined) o.price = intent.price;
  return o;
}

/** The shared fill builder with values that must survive a round trip: an id beyond 2^53, a fee of 8 decimals. */
export function fill(tradeId: string, over: Partial<Fill> = {}): Fill {
  return aFill('BUY', '0.005', '64000.5', { tradeId, venueOrderId: '9007199254740993123' as VenueOrderId, fee: d('0.00000123'), feeAsset: 'BTC', time: 1_700_000_000_123, ...over });
}

const T0 = 1_700_000_000_000;

function journaled(j: Journal, strategyId: string, coid: string, over: Partial<PlaceIntent> = {}, at = T0): Order {
  const intent = placeIntent(strategyId, coid, over);
  const order = pendingOrder(intent, at);
  j.recordIntent(intent, order);
  return order;
}

// ---------- the suite ----------

export function journalContract(name: string, make: () => JournalUnderTest): void {
  describe(`Journal contract: ${name}`, () => {
    /** Runs `body` on a fresh journal and always cleans up. */
    function withJournal(body: (t: JournalUnderTest) => void): () => void {
      return () => {
        const t = make();
        try {
          body(t);
        } finally {
          t.cleanup();
        }
      };
    }

    it(
      'lists the orders under one venue id in intent order, whichever got the id first',
      withJournal(({ journal }) => {
        const first = journaled(journal, 'a', 'c3');
        const second = journaled(journal, 'a', 'c2');
        journal.updateOrder({ ...second, venueOrderId: '1' as VenueOrderId, status: 'open' });
        journal.updateOrder({ ...first, venueOrderId: '1' as VenueOrderId, status: 'open' });
        expect(journal.ordersByVenueId('1').map((o) => o.clientOrderId)).toEqual(['c3', 'c2']);
      }),
    );

    it('durable(mark) resolves for every mark handed out, the latest naming every write so far', async () => {
      const t = make();
      try {
        const { journal } = t;
        const before = journal.mark();
        const intent = placeIntent('s1', 's1-1');
        journal.recordIntent(intent, pendingOrder(intent, 1000));
        journal.setCursor('k', 'v');
        const after = journal.mark();
        expect(after).toBeGreaterThanOrEqual(before);
        await journal.durable(after);
        await journal.durable(before);
        expect(journal.order('s1-1')?.status).toBe('pending');
      } finally {
        t.cleanup();
      }
    });

    // Cases that need a reopen are registered only for implementations that survive close().
    const probe = make();
    const durable = probe.reopen !== undefined;
    probe.cleanup();
    const itDurable = durable ? it : () => undefined;

    /** Like withJournal, for an implementation that can be reopened. */
    function withDurable(body: (t: JournalUnderTest & { reopen: () => Journal }) => void): () => void {
      return () => {
        const t = make();
        try {
          const { reopen } = t;
          if (!reopen) throw new Error('registered only for durable journals');
          body({ ...t, reopen });
        } finally {
          t.cleanup();
        }
      };
    }

    it(
      'hands out sequences from 0, increasing per strategy, each strategy independent',
      withJournal(({ journal }) => {
        expect([journal.nextSequence('a'), journal.nextSequence('a'), journal.nextSequence('a')]).toEqual([0, 1, 2]);
        expect(journal.nextSequence('b')).toBe(0);
        expect(journal.nextSequence('a')).toBe(3);
        expect(journal.nextSequence('b')).toBe(1);
      }),
    );

    it(
      'records an intent as a pending order whose history is one "intent" event',
      withJournal(({ journal }) => {
        const order = journaled(journal, 'grid', 'slgrid-0');
        expect(journal.order('slgrid-0')).toEqual(order);
        expect(journal.order('slgrid-0')?.status).toBe('pending');
        expect(journal.history('slgrid-0')).toEqual([{ clientOrderId: 'slgrid-0', at: T0, status: 'pending', reason: 'intent' }]);
        expect(journal.history('slgrid-0').map((e) => e.reason)).toEqual(['intent']);
        expect(journal.order('nobody')).toBeUndefined();
        expect(journal.history('nobody')).toEqual([]);
      }),
    );

    it(
      'keeps optional order fields absent or exact: venue ids past 2^53, no price on a market order',
      withJournal(({ journal }) => {
        const intent = placeIntent('mm', 'slmm-0', { type: 'MARKET', price: undefined });
        delete intent.price;
        const order = pendingOrder(intent, T0);
        journal.recordIntent(intent, order);
        expect(journal.order('slmm-0')).toEqual(order);
        expect(journal.order('slmm-0')).not.toHaveProperty('price');
        const acked: Order = { ...order, venueOrderId: '9007199254740993123' as VenueOrderId, status: 'open', updatedAt: T0 + 1 };
        journal.updateOrder(acked);
        expect(journal.order('slmm-0')?.venueOrderId).toBe('9007199254740993123');
      }),
    );

    it(
      'refuses a client order id journaled before, and keeps the first',
      withJournal(({ journal }) => {
        const first = journaled(journal, 'grid', 'slgrid-0');
        expect(() => journaled(journal, 'grid', 'slgrid-0', { volume: d('9') })).toThrow(/slgrid-0.*journaled before/);
        expect(journal.order('slgrid-0')).toEqual(first);
        expect(journal.history('slgrid-0')).toHaveLength(1);
        expect(journal.orders()).toHaveLength(1);
      }),
    );

    it(
      'updates an order: the status changes and the history grows, in order',
      withJournal(({ journal }) => {
        const order = journaled(journal, 'grid', 'slgrid-0');
        const open: Order = { ...order, venueOrderId: '123' as VenueOrderId, status: 'open', updatedAt: T0 + 10 };
        journal.updateOrder(open, 'acknowledged');
        const part: Order = { ...open, status: 'partially_filled', executedVolume: d('0.005'), avgPrice: d('64000.5'), updatedAt: T0 + 20 };
        journal.updateOrder(part);
        expect(journal.order('slgrid-0')).toEqual(part);
        const history = journal.history('slgrid-0');
        expect(history.map((e) => [e.status, e.reason, e.at])).toEqual([
          ['pending', 'intent', T0],
          ['open', 'acknowledged', T0 + 10],
          ['partially_filled', undefined, T0 + 20],
        ]);
      }),
    );

    it(
      'refuses to update an order it never journaled',
      withJournal(({ journal }) => {
        const ghost = pendingOrder(placeIntent('grid', 'slgrid-9'), T0);
        expect(() => journal.updateOrder(ghost, 'x')).toThrow(/slgrid-9/);
        expect(journal.order('slgrid-9')).toBeUndefined();
        expect(journal.history('slgrid-9')).toEqual([]);
      }),
    );

    it(
      'filters orders by openness and strategy, in journaling order',
      withJournal(({ journal }) => {
        const statuses: OrderStatus[] = ['pending', 'open', 'partially_filled', 'filled', 'canceled', 'rejected', 'unknown'];
        statuses.forEach((status, i) => {
          const strategy = i % 2 === 0 ? 'a' : 'b';
          const o = journaled(journal, strategy, `sl${strategy}-${i}`);
          if (status !== 'pending') journal.updateOrder({ ...o, status, updatedAt: T0 + i });
        });
        const ids = (orders: Order[]) => orders.map((o) => o.clientOrderId);
        expect(ids(journal.orders())).toEqual(['sla-0', 'slb-1', 'sla-2', 'slb-3', 'sla-4', 'slb-5', 'sla-6']);
        expect(ids(journal.orders({ openOnly: true }))).toEqual(['sla-0', 'slb-1', 'sla-2', 'sla-6']);
        expect(ids(journal.orders({ strategyId: 'b' }))).toEqual(['slb-1', 'slb-3', 'slb-5']);
        expect(ids(journal.orders({ strategyId: 'a', openOnly: true }))).toEqual(['sla-0', 'sla-2', 'sla-6']);
        expect(ids(journal.orders({ strategyId: 'nobody' }))).toEqual([]);
        // An order that becomes final leaves the open list; one that stays open keeps its place.
        journal.updateOrder({ ...journal.order('sla-0')!, status: 'filled', updatedAt: T0 + 100 });
        journal.updateOrder({ ...journal.order('slb-1')!, status: 'partially_filled', updatedAt: T0 + 100 });
        expect(ids(journal.orders({ openOnly: true }))).toEqual(['slb-1', 'sla-2', 'sla-6']);
        // One that opens again (a lost answer given up, then found on the venue) goes back to its place, with its new state.
        journal.updateOrder({ ...journal.order('sla-4')!, status: 'open', executedVolume: d('0.5'), updatedAt: T0 + 200 });
        expect(ids(journal.orders({ openOnly: true }))).toEqual(['slb-1', 'sla-2', 'sla-4', 'sla-6']);
        expect(journal.orders({ openOnly: true, strategyId: 'a' }).find((o) => o.clientOrderId === 'sla-4')).toMatchObject({ status: 'open', executedVolume: '0.5', updatedAt: T0 + 200 });
        expect(journal.orders({ openOnly: true })).toEqual(journal.orders().filter((o) => !['filled', 'canceled', 'rejected'].includes(o.status)));
      }),
    );

    it(
      'stores a fill once: the same trade id again is refused and changes nothing',
      withJournal(({ journal }) => {
        expect(journal.recordFill(fill('1001'))).toBe(true);
        expect(journal.recordFill(fill('1002', { isMaker: false, side: 'SELL' }))).toBe(true);
        expect(journal.recordFill(fill('1001', { volume: d('7') }))).toBe(false);
        expect(journal.fills()).toEqual([fill('1001'), fill('1002', { isMaker: false, side: 'SELL' })]);
      }),
    );

    it(
      "lists one venue order's fill volumes, of that market and symbol only, the refused repeat not among them",
      withJournal(({ journal }) => {
        journal.recordFill(fill('3001', { venueOrderId: '21' as VenueOrderId, volume: d('0.25') }));
        journal.recordFill(fill('3002', { venueOrderId: '22' as VenueOrderId, volume: d('9') }));
        journal.recordFill(fill('3003', { venueOrderId: '21' as VenueOrderId, volume: d('0.5') }));
        journal.recordFill(fill('3003', { venueOrderId: '21' as VenueOrderId, volume: d('7') }));
        journal.recordFill(fill('3004', { venueOrderId: '21' as VenueOrderId, market: 'futures', symbol: 'E-BTC-USDT', volume: d('3') }));
        expect([...journal.fillVolumes('spot', 'BTCUSDT', '21')].sort()).toEqual(['0.25', '0.5']);
        expect(journal.fillVolumes('futures', 'E-BTC-USDT', '21')).toEqual(['3']);
        expect(journal.fillVolumes('spot', 'ETHUSDT', '21')).toEqual([]);
        expect(journal.fillVolumes('spot', 'BTCUSDT', '99')).toEqual([]);
      }),
    );

    it(
      'keeps both sides of a self-trade (one trade id, the bid and the ask both ours) as two fills',
      withJournal(({ journal }) => {
        const buy = fill('2001', { side: 'BUY', venueOrderId: '11' as VenueOrderId, isMaker: true });
        const sell = fill('2001', { side: 'SELL', venueOrderId: '12' as VenueOrderId, isMaker: false, feeAsset: 'USDT', fee: d('0.32') });
        expect(journal.recordFill(buy)).toBe(true);
        expect(journal.recordFill(sell)).toBe(true);
        expect(journal.recordFill({ ...sell, volume: d('1') })).toBe(false);
        expect(journal.fills()).toEqual([buy, sell]);
      }),
    );

    it(
      'keeps an order\'s creation time and, for futures, how it was sent (open or close, position type)',
      withJournal(({ journal }) => {
        const intent = placeIntent('fut', 'slfut-1', { market: 'futures', symbol: 'E-BTC-USDT', open: 'CLOSE', positionType: 2, volume: d('3') });
        const order: Order = { ...pendingOrder(intent, T0), open: 'CLOSE', positionType: 2 };
        journal.recordIntent(intent, order);
        journal.updateOrder({ ...order, status: 'open', venueOrderId: '77' as VenueOrderId, updatedAt: T0 + 50 });
        expect(journal.order('slfut-1')).toMatchObject({ createdAt: T0, updatedAt: T0 + 50, open: 'CLOSE', positionType: 2, status: 'open' });
      }),
    );

    it(
      'keeps cursors by key and overwrites them',
      withJournal(({ journal }) => {
        expect(journal.cursor('trades:spot:BTCUSDT')).toBeUndefined();
        journal.setCursor('trades:spot:BTCUSDT', '9007199254740993');
        journal.setCursor('trades:futures:E-BTC-USDT', '5');
        journal.setCursor('trades:spot:BTCUSDT', '9007199254740995');
        expect(journal.cursor('trades:spot:BTCUSDT')).toBe('9007199254740995');
        expect(journal.cursor('trades:futures:E-BTC-USDT')).toBe('5');
      }),
    );

    it(
      'streams every order in intent order, and every fill in journal order with the strategy of the latest order the venue knows by its id',
      withJournal(({ journal }) => {
        const a = journaled(journal, 'a', 'c1');
        const b = journaled(journal, 'b', 'c2');
        const c = journaled(journal, 'c', 'c3', { market: 'futures', symbol: 'E-BTC-USDT' });
        journal.updateOrder({ ...a, venueOrderId: '7' as VenueOrderId, status: 'open' });
        // The same venue id on another market (another engine) and, later, on a newer order of ours.
        journal.updateOrder({ ...c, venueOrderId: '7' as VenueOrderId, status: 'open' });
        const later = fill('t1', { venueOrderId: '7' as VenueOrderId, time: T0 + 5 });
        const earlier = fill('t2', { venueOrderId: '7' as VenueOrderId, time: T0 + 1 });
        const futures = fill('t3', { market: 'futures', symbol: 'E-BTC-USDT', venueOrderId: '7' as VenueOrderId });
        const foreign = fill('t4', { venueOrderId: '8' as VenueOrderId });
        for (const f of [later, earlier, futures, foreign]) journal.recordFill(f);
        journal.updateOrder({ ...b, venueOrderId: '7' as VenueOrderId, status: 'open' });

        expect([...journal.eachOrder()].map((o) => o.clientOrderId)).toEqual(['c1', 'c2', 'c3']);
        expect([...journal.eachOrder()]).toEqual(journal.orders());
        const streamed = [...journal.eachFill()];
        expect(streamed.map(({ fill, strategyId }) => ({ fill, strategyId }))).toEqual([
          { fill: later, strategyId: 'b' },
          { fill: earlier, strategyId: 'b' },
          { fill: futures, strategyId: 'c' },
          { fill: foreign, strategyId: undefined },
        ]);
        expect(journal.fills()).toEqual([later, earlier, futures, foreign]);
        // Journal numbers increase; after one, only the later fills; the latest is lastFillId.
        const ids = streamed.map((f) => f.id);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        expect(new Set(ids).size).toBe(4);
        expect(journal.lastFillId()).toBe(ids[3]);
        expect([...journal.eachFill(ids[1])].map((f) => [f.id, f.fill])).toEqual([
          [ids[2], futures],
          [ids[3], foreign],
        ]);
        expect([...journal.eachFill(ids[3])]).toEqual([]);
        expect(journal.recordFill(later)).toBe(false);
        expect(journal.lastFillId()).toBe(ids[3]);
      }),
    );

    it(
      "reads a strategy's latest orders by when they were journaled and the latest fills journaled, oldest first, however many there are",
      withJournal(({ journal }) => {
        // Interleaved strategies; an update moves nothing (intent order, not last change).
        const orders = [1, 2, 3, 4, 5].map((i) => journaled(journal, i % 2 ? 'odd' : 'even', `c${i}`));
        journal.updateOrder({ ...orders[0]!, status: 'canceled', updatedAt: T0 + 9 });
        expect(journal.latestOrders('odd', 2).map((o) => o.clientOrderId)).toEqual(['c3', 'c5']);
        expect(journal.latestOrders('odd', 10).map((o) => [o.clientOrderId, o.status])).toEqual([
          ['c1', 'canceled'],
          ['c3', 'pending'],
          ['c5', 'pending'],
        ]);
        expect(journal.latestOrders('even', 1).map((o) => o.clientOrderId)).toEqual(['c4']);
        expect(journal.latestOrders('nobody', 5)).toEqual([]);
        expect(journal.latestOrders('odd', 0)).toEqual([]);

        // Journal order, not fill time: a late fill of an older trade is still the latest journaled.
        const fills = [fill('t1', { time: T0 + 3 }), fill('t2', { time: T0 + 1 }), fill('t3', { time: T0 + 2 })];
        for (const f of fills) journal.recordFill(f);
        expect(journal.latestFills(2)).toEqual([fills[1], fills[2]]);
        expect(journal.latestFills(10)).toEqual(fills);
        expect(journal.latestFills(0)).toEqual([]);
      }),
    );

    it(
      'keeps the latest ban end, never an earlier one, and 0 when never banned',
      withJournal(({ journal }) => {
        expect(journal.banUntil()).toBe(0);
        journal.setBanUntil(T0 + 60_000);
        journal.setBanUntil(T0 + 1_000);
        expect(journal.banUntil()).toBe(T0 + 60_000);
        journal.setBanUntil(T0 + 120_000);
        expect(journal.banUntil()).toBe(T0 + 120_000);
      }),
    );

    it(
      'round-trips a positions checkpoint exactly, and a new checkpoint replaces the old',
      withJournal(({ journal }) => {
        expect(journal.positions()).toEqual([]);
        const book: Position[] = [
          { market: 'spot', symbol: 'BTCUSDT', quantity: d('0.10000000000000000001'), avgEntryPrice: d('64000.123456789012345678'), realizedPnl: d('-12.5'), fees: d('0.000001') },
          { market: 'futures', symbol: 'E-BTC-USDT', quantity: d('-3'), avgEntryPrice: d('99999999999999999999.99'), realizedPnl: d('0'), fees: d('0') },
        ];
        journal.savePositions(book);
        expect(journal.positions()).toEqual(book);
        expect(journal.positions()[0]?.quantity).toBe('0.10000000000000000001');
        journal.savePositions(book.slice(1));
        expect(journal.positions()).toEqual(book.slice(1));
        journal.savePositions([]);
        expect(journal.positions()).toEqual([]);
      }),
    );

    // ---------- durable implementations only ----------

    itDurable(
      'keeps everything across close and reopen',
      withDurable(({ journal, reopen }) => {
        journal.nextSequence('a');
        journal.nextSequence('a');
        const order = journaled(journal, 'a', 'sla-1');
        const open: Order = { ...order, venueOrderId: '9007199254740993123' as VenueOrderId, status: 'open', updatedAt: T0 + 5 };
        journal.updateOrder(open, 'acknowledged');
        journal.recordFill(fill('77'));
        journal.setCursor('trades:spot:BTCUSDT', '77');
        journal.setBanUntil(T0 + 60_000);
        const book: Position[] = [{ market: 'spot', symbol: 'BTCUSDT', quantity: d('0.10000000000000000001'), avgEntryPrice: d('1'), realizedPnl: d('0'), fees: d('0') }];
        journal.savePositions(book);

        const again = reopen();
        expect(again.nextSequence('a')).toBe(2);
        expect(again.nextSequence('b')).toBe(0);
        expect(again.order('sla-1')).toEqual(open);
        expect(again.orders({ openOnly: true })).toEqual([open]);
        expect(again.history('sla-1').map((e) => e.reason)).toEqual(['intent', 'acknowledged']);
        expect(again.fills()).toEqual([fill('77')]);
        expect(again.recordFill(fill('77'))).toBe(false);
        expect(again.cursor('trades:spot:BTCUSDT')).toBe('77');
        expect(again.banUntil()).toBe(T0 + 60_000);
        expect(again.positions()).toEqual(book);
        expect(() => journaled(again, 'a', 'sla-1')).toThrow(/journaled before/);
      }),
    );

    itDurable(
      'behaves like the reference MemoryJournal over random operations, reopened at random points',
      withDurable(() => {
        fc.assert(
          fc.property(fc.array(operation, { maxLength: 40 }), (ops) => {
            const t = make();
            try {
              let journal = t.journal;
              const model = new MemoryJournal();
              for (const op of ops) {
                if (op.kind === 'reopen') {
                  journal = t.reopen!();
                  continue;
                }
                const expected = attempt(() => apply(model, op));
                const actual = attempt(() => apply(journal, op));
                expect(actual, JSON.stringify(op)).toEqual(expected);
              }
              expect(observe(journal)).toEqual(observe(model));
              journal = t.reopen!();
              expect(observe(journal)).toEqual(observe(model));
            } finally {
              t.cleanup();
            }
          }),
          { numRuns: 50 },
        );
      }),
    );
  });
}

// ---------- model-based test ----------

const STRATEGIES = ['a', 'b'] as const;
const CLIENT_IDS = ['c0', 'c1', 'c2', 'c3'] as const;
const TRADE_IDS = ['1', '2', '3', '9007199254740993'] as const;
const CURSOR_KEYS = ['k0', 'k1'] as const;
const VENUE_IDS = ['1', '9007199254740993123'] as const;
const STATUSES: readonly OrderStatus[] = ['pending', 'open', 'partially_filled', 'filled', 'canceled', 'rejected', 'unknown'];
const DECIMALS = ['0', '1', '0.10000000000000000001', '-3.5', '123456789012345678901234567890.000000001'] as const;

type Op =
  | { kind: 'seq'; strategy: string }
  | { kind: 'intent'; strategy: string; id: string; volume: string; at: number }
  | { kind: 'update'; id: string; status: OrderStatus; executed: string; venueId: string | null; at: number; reason: string | null }
  | { kind: 'fill'; tradeId: string; volume: string }
  | { kind: 'cursor'; key: string; value: string }
  | { kind: 'ban'; until: number }
  | { kind: 'positions'; rows: { symbol: string; quantity: string }[] }
  | { kind: 'lookup'; venueId: string }
  | { kind: 'reopen' };

const time = fc.integer({ min: T0, max: T0 + 1_000_000 });
const decimal = fc.constantFrom(...DECIMALS);
const operation: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('seq' as const), strategy: fc.constantFrom(...STRATEGIES) }),
  fc.record({ kind: fc.constant('intent' as const), strategy: fc.constantFrom(...STRATEGIES), id: fc.constantFrom(...CLIENT_IDS), volume: decimal, at: time }),
  fc.record({
    kind: fc.constant('update' as const),
    id: fc.constantFrom(...CLIENT_IDS, 'ghost'),
    status: fc.constantFrom(...STATUSES),
    executed: decimal,
    venueId: fc.option(fc.constantFrom(...VENUE_IDS), { nil: null }),
    at: time,
    reason: fc.option(fc.constantFrom('acknowledged', 'reconciled', ''), { nil: null }),
  }),
  fc.record({ kind: fc.constant('fill' as const), tradeId: fc.constantFrom(...TRADE_IDS), volume: decimal }),
  fc.record({ kind: fc.constant('cursor' as const), key: fc.constantFrom(...CURSOR_KEYS), value: fc.constantFrom('1', '2', '9007199254740993') }),
  fc.record({ kind: fc.constant('ban' as const), until: fc.oneof(fc.constant(0), time) }),
  fc.record({
    kind: fc.constant('positions' as const),
    rows: fc.array(fc.record({ symbol: fc.constantFrom('BTCUSDT', 'ETHUSDT'), quantity: decimal }), { maxLength: 3 }),
  }),
  // A read between writes: a journal that keeps what it read must keep it up to date.
  fc.record({ kind: fc.constant('lookup' as const), venueId: fc.constantFrom(...VENUE_IDS) }),
  fc.constant({ kind: 'reopen' as const }),
);

function apply(j: Journal, op: Exclude<Op, { kind: 'reopen' }>): unknown {
  switch (op.kind) {
    case 'seq':
      return j.nextSequence(op.strategy);
    case 'intent': {
      const intent = placeIntent(op.strategy, op.id, { volume: op.volume as Decimal });
      return j.recordIntent(intent, pendingOrder(intent, op.at));
    }
    case 'update': {
      const current = j.order(op.id) ?? pendingOrder(placeIntent('x', op.id), op.at);
      const next: Order = { ...current, status: op.status, executedVolume: op.executed as Decimal, updatedAt: op.at };
      if (op.venueId !== null) next.venueOrderId = op.venueId as VenueOrderId;
      return j.updateOrder(next, op.reason ?? undefined);
    }
    case 'fill': {
      // A trade id belongs to one market and symbol, as on the venue.
      const market: Market = Number(op.tradeId) % 2 === 0 ? 'futures' : 'spot';
      return j.recordFill(fill(op.tradeId, { market, symbol: `SYM${op.tradeId}`, volume: op.volume as Decimal }));
    }
    case 'lookup':
      return j.ordersByVenueId(op.venueId);
    case 'cursor':
      return j.setCursor(op.key, op.value);
    case 'ban':
      return j.setBanUntil(op.until);
    case 'positions':
      return j.savePositions(
        op.rows.map((r): Position => ({ market: 'spot', symbol: r.symbol, quantity: r.quantity as Decimal, avgEntryPrice: r.quantity as Decimal, realizedPnl: d('0'), fees: d('0') })),
      );
  }
}

function attempt(fn: () => unknown): { value: unknown } | { threw: true } {
  try {
    return { value: fn() };
  } catch {
    return { threw: true };
  }
}

/** Everything a caller can see. */
function observe(j: Journal) {
  return {
    orders: j.orders(),
    open: j.orders({ openOnly: true }),
    byStrategy: STRATEGIES.map((s) => j.orders({ strategyId: s })),
    openByStrategy: STRATEGIES.map((s) => j.orders({ strategyId: s, openOnly: true })),
    each: CLIENT_IDS.map((id) => j.order(id)),
    history: CLIENT_IDS.map((id) => j.history(id)),
    fills: j.fills(),
    eachOrder: [...j.eachOrder()],
    eachFill: [...j.eachFill()],
    cursors: CURSOR_KEYS.map((k) => j.cursor(k)),
    ban: j.banUntil(),
    positions: j.positions(),
    byVenueId: VENUE_IDS.map((id) => j.ordersByVenueId(id)),
    fillVolumes: (['spot', 'futures'] as const).flatMap((m) => TRADE_IDS.map((t) => [...j.fillVolumes(m, `SYM${t}`, '9007199254740993123')].sort())),
  };
}
