// A busy pass journaled in parts (reconciler/commit.ts), on the SQLite journal: the event loop
// runs between parts, the trade cursor moves only with the last, a failed part loses nothing the
// next pass cannot read again, and what another writer did to an order between parts stands.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { systemClock } from '../../../src/core/clock.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import { fillKey, type Fill, type Order } from '../../../src/core/types.js';
import type { VenueOrder, VenueTrade } from '../../../src/core/venue.js';
import { commitPass, FILLS_PER_COMMIT, type Committed } from '../../../src/reconciler/commit.js';
import { newCoverage } from '../../../src/reconciler/unknown.js';
import { FillTotals } from '../../../src/reconciler/fill-totals.js';
import { decideSymbol } from '../../../src/reconciler/pass.js';
import { SqliteJournal } from '../../../src/store/sqlite.js';
import { pendingOrder, placeIntent } from '../../contract/journal.contract.js';

const NOW = 1_700_000_100_000;
const CURSOR_KEY = 'trades:spot:BTCUSDT';
/** Two and a half commits' worth. */
const MANY = FILLS_PER_COMMIT * 2.5;
const vid = (n: number) => String(9_007_199_254_740_000n + BigInt(n)) as VenueOrderId;

let dir: string;
const open: SqliteJournal[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-commit-'));
});

afterEach(() => {
  for (const j of open.splice(0)) j.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A journal whose `failAt`-th recordFill throws (0: never). */
class FailingJournal extends SqliteJournal {
  failAt = 0;
  private fillsRecorded = 0;
  override recordFill(fill: Fill): boolean {
    if (++this.fillsRecorded === this.failAt) throw new Error('disk full');
    return super.recordFill(fill);
  }
}

function journal(): FailingJournal {
  const j = new FailingJournal(join(dir, 'journal.db'), { now: () => NOW });
  open.push(j);
  return j;
}

/** Order `n`, open on the venue under vid(n), of `volume`. */
function openOrder(j: SqliteJournal, n: number, volume: string, over: Partial<Order> = {}): Order {
  const intent = placeIntent('t', `slt-${n}`, { volume: d(volume), price: d('100') });
  j.recordIntent(intent, pendingOrder(intent, NOW - 60_000));
  const o: Order = { ...pendingOrder(intent, NOW - 60_000), venueOrderId: vid(n), status: 'open', updatedAt: NOW - 50_000, ...over };
  j.updateOrder(o, 'acknowledged');
  return o;
}

/** `count` trades of 0.001 against order `n`, trade ids from `firstId`. */
function trades(n: number, count: number, firstId = 1): VenueTrade[] {
  return Array.from({ length: count }, (_, i) => ({
    tradeId: String(firstId + i),
    symbol: 'BTCUSDT',
    bidId: vid(n),
    askId: vid(100_000 + i),
    price: d('100'),
    qty: d('0.001'),
    time: NOW - 30_000,
    isBuyer: true,
    isMaker: true,
    fee: d('0'),
    feeCoin: 'BTC',
  }));
}

const listed = (o: Order): VenueOrder => ({ orderId: o.venueOrderId!, symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('100'), origQty: o.volume, executedQty: o.executedVolume, status: 'open', venueStatus: 'NEW', time: NOW - 60_000 });

/** One pass's decision over `read`, with a complete open-orders page of `page`, asked for 10 s ago. */
function decide(j: SqliteJournal, read: VenueTrade[], page: Order[]) {
  return decideSymbol({
    market: 'spot',
    symbol: 'BTCUSDT',
    now: NOW,
    ours: j.orders({ openOnly: true }),
    page: { items: page.map(listed), skipped: [], complete: true },
    pageAskedAt: NOW - 10_000,
    trades: read,
    byVenueId: (id) => j.ordersByVenueId(id)[0],
    byClientId: (id) => j.order(id),
    offsetMs: 0,
    slack: { earlyMs: 2000, lateMs: 2000 },
    coverage: { caughtUpAt: Number.NEGATIVE_INFINITY, settledOpenAt: Number.NEGATIVE_INFINITY },
    foreignOrders: 'adopt',
    unknownTimeoutMs: 60_000,
    strategyIds: ['t'],
    cancelAskedAt: () => undefined,
    nameOf: () => undefined,
    named: new Map(),
    waitForNames: false,
    namesPerPass: 10,
    shownBefore: NOW - 1000,
    cancelling: () => false,
  });
}

/** Coverage past every read: an order gone from the book has shown all its fills. */
function shownAll() {
  const c = newCoverage();
  c.settledOpenAt = Number.POSITIVE_INFINITY;
  return c;
}

/** Runs a pass's commits as the poller does, the position book standing for `applied`. */
async function commit(j: SqliteJournal, read: VenueTrade[], page: Order[], opts: { applied?: Set<string>; breathe?: () => Promise<void>; told?: (part: Committed) => void } = {}) {
  const applied = opts.applied ?? new Set<string>();
  const parts: Committed[] = [];
  const toQuery = await commitPass(
    { market: 'spot', symbol: 'BTCUSDT', trades: read, decision: decide(j, read, page), now: NOW, cursor: read.at(-1)?.tradeId, coverage: shownAll() },
    { journal: j, applied: (f) => applied.has(fillKey(f)), fillTotals: new FillTotals(j), breathe: opts.breathe ?? (() => systemClock.breathe()) },
    async (part) => {
      for (const { fill } of part.fills) applied.add(fillKey(fill));
      parts.push(part);
      opts.told?.(part);
    },
  );
  return { parts, toQuery };
}

describe('a pass journaled in parts', () => {
  it('commits two and a half commits\' worth of fills in three parts, the event loop running between them and the cursor moving with the last', async () => {
    const j = journal();
    const a = openOrder(j, 1, '1');
    const read = trades(1, MANY);
    let timerRan = false;
    setImmediate(() => (timerRan = true));
    const seen: { cursor: string | undefined; fills: number; timerRan: boolean }[] = [];
    const { parts } = await commit(j, read, [a], { told: () => seen.push({ cursor: j.cursor(CURSOR_KEY), fills: j.fills().length, timerRan }) });

    const n = FILLS_PER_COMMIT;
    expect(parts.map((p) => p.fills.length)).toEqual([n, n, n / 2]);
    expect(seen).toEqual([
      { cursor: undefined, fills: n, timerRan: false },
      { cursor: undefined, fills: 2 * n, timerRan: true },
      { cursor: String(MANY), fills: MANY, timerRan: true },
    ]);
    // Each part tells the order's version after its own fills (0.001 each).
    const volume = (fills: number) => String(fills / 1000);
    expect(parts.map((p) => p.changed.map((o) => [o.status, o.executedVolume]))).toEqual([[['partially_filled', volume(n)]], [['partially_filled', volume(2 * n)]], [['partially_filled', volume(MANY)]]]);
    expect(j.order(a.clientOrderId)).toMatchObject({ status: 'partially_filled', executedVolume: volume(MANY) });
  });

  it('a part that fails keeps the parts before it; the next pass reads on from the old cursor and counts every fill once', async () => {
    const j = journal();
    const a = openOrder(j, 1, '1');
    const read = trades(1, MANY);
    const applied = new Set<string>();
    const n = FILLS_PER_COMMIT;
    j.failAt = n * 1.5;
    await expect(commit(j, read, [a], { applied })).rejects.toThrow('disk full');
    expect(j.fills()).toHaveLength(n);
    expect(j.cursor(CURSOR_KEY)).toBeUndefined();
    expect(j.order(a.clientOrderId)).toMatchObject({ status: 'partially_filled', executedVolume: String(n / 1000) });

    j.failAt = 0;
    const { parts } = await commit(j, read, [j.order(a.clientOrderId)!], { applied });
    expect(parts.map((p) => p.fills.length)).toEqual([n, n / 2]);
    expect(new Set(j.fills().map((f) => f.tradeId)).size).toBe(MANY);
    expect(j.fills()).toHaveLength(MANY);
    expect(j.cursor(CURSOR_KEY)).toBe(String(MANY));
    expect(j.order(a.clientOrderId)).toMatchObject({ status: 'partially_filled', executedVolume: String(MANY / 1000) });
  });

  it('trades read again after the position book forgot their keys are journaled and told once: the book\'s bound costs a journal insert, not a fill', async () => {
    const j = journal();
    const a = openOrder(j, 1, '1');
    const read = trades(1, MANY);
    const first = await commit(j, read, [a]);
    expect(first.parts.flatMap((p) => p.fills)).toHaveLength(MANY);
    // A fresh set: the book remembers none of these keys (APPLIED_KEPT pushed them out).
    const again = await commit(j, read, [j.order(a.clientOrderId)!], { applied: new Set() });
    expect(again.parts.flatMap((p) => p.fills)).toEqual([]);
    expect(j.fills()).toHaveLength(MANY);
    expect(j.order(a.clientOrderId)).toMatchObject({ executedVolume: String(MANY / 1000) });
  });

  it('what another writer did to an order between parts stands: a fill builds on it, and an order it settled is not settled again', async () => {
    const j = journal();
    const a = openOrder(j, 1, '1');
    // b's cancel was accepted; it left the book (absent from the complete page), and before the
    // pass's last part a query answered that it filled after all.
    const b = openOrder(j, 2, '0.5', { status: 'pending_cancel' });
    const read = trades(1, MANY);
    let breaths = 0;
    const pipeline = async () => {
      if (++breaths === 1) {
        j.updateOrder({ ...j.order(a.clientOrderId)!, status: 'pending_cancel', updatedAt: NOW + 5 }, 'cancel accepted');
        j.updateOrder({ ...b, status: 'filled', executedVolume: d('0.5'), updatedAt: NOW + 5 }, 'venue query');
      }
      await systemClock.breathe();
    };
    const { toQuery } = await commit(j, read, [a], { breathe: pipeline });

    expect(breaths).toBe(2);
    expect(j.order(a.clientOrderId)).toMatchObject({ status: 'pending_cancel', executedVolume: String(MANY / 1000) });
    expect(j.order(b.clientOrderId)).toMatchObject({ status: 'filled', executedVolume: '0.5' });
    expect(toQuery).toEqual([]);
  });

  it('a pass of few fills is one commit, as before: the absent order settled in it', async () => {
    const j = journal();
    const a = openOrder(j, 1, '1');
    const b = openOrder(j, 2, '0.5', { status: 'pending_cancel' });
    let breaths = 0;
    const { parts } = await commit(j, trades(1, FILLS_PER_COMMIT - 1), [a], { breathe: async () => void breaths++ });
    expect(breaths).toBe(0);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.changed.map((o) => [o.clientOrderId, o.status])).toEqual([
      [a.clientOrderId, 'partially_filled'],
      [b.clientOrderId, 'canceled'],
    ]);
    expect(j.cursor(CURSOR_KEY)).toBe(String(FILLS_PER_COMMIT - 1));
  });
});
