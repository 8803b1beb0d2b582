// Each strategy's own books at start: the journal's checkpoint of them (taken with the positions'
// checkpoint, same commit, same fill number), then only the fills after it; one that cannot be
// used is set aside with a warning and every fill is replayed. Their latest fills come from the
// journal, the latest 1000, whichever way the books were built. Through the real composition
// root (backtest profile, memory journal, manual clock).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { Fill, Order } from '../../../src/core/types.js';
import { StrategyLedger } from '../../../src/engine/ledger.js';
import { LEDGER_CHECKPOINT } from '../../../src/engine/ledger-checkpoint.js';
import { POSITIONS_CHECKPOINT } from '../../../src/engine/positions-checkpoint.js';
import type { Journal } from '../../../src/core/ports.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { fill, pendingOrder, placeIntent } from '../../contract/journal.contract.js';
import { drive, engineApp, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

const WARNING = "the strategies' own checkpoint cannot be used: their positions are rebuilt from every fill";

/** An order of `strategyId` the venue knows as `venueId`. */
function order(j: Journal, strategyId: string, coid: string, venueId: string): void {
  const intent = placeIntent(strategyId, coid, { volume: d('100'), price: d('100') });
  j.recordIntent(intent, pendingOrder(intent, 0));
  const o: Order = { ...pendingOrder(intent, 0), venueOrderId: venueId as VenueOrderId, status: 'open', updatedAt: 1 };
  j.updateOrder(o, 'acknowledged');
}

const FILLS: Fill[] = [
  fill('t1', { venueOrderId: '1' as VenueOrderId, side: 'BUY', volume: d('0.3'), price: d('100'), fee: d('0.01'), feeAsset: 'USDT' }),
  fill('t2', { venueOrderId: '2' as VenueOrderId, side: 'SELL', volume: d('0.1'), price: d('130'), fee: d('0.02'), feeAsset: 'USDT' }),
  fill('t3', { venueOrderId: '1' as VenueOrderId, side: 'SELL', volume: d('0.2'), price: d('120'), fee: d('0.03'), feeAsset: 'USDT' }),
  fill('t4', { venueOrderId: '2' as VenueOrderId, side: 'BUY', volume: d('0.4'), price: d('90'), fee: d('0.0001'), feeAsset: 'BTC' }),
];

/** A journal with two strategies' orders and fills t1, t2 checkpointed (by a reconcile pass), then t3 and t4; `cursor` replaces the books' checkpoint. */
async function started(opts: { cursor?: string; pruned?: boolean }) {
  running = await engineApp('mode: paper\n', []);
  const { app, clock } = running;
  order(app.journal, 'alpha', 'a-1', '1');
  order(app.journal, 'beta', 'b-1', '2');
  for (const f of FILLS.slice(0, 2)) app.journal.recordFill(f);
  await drive(clock, app.engine.load({ strategiesOwn: true }));
  await drive(clock, app.engine.reconcile());
  expect(JSON.parse(app.journal.cursor(LEDGER_CHECKPOINT)!)).toMatchObject({ version: 1, throughFill: 2, strategies: [{ strategyId: 'alpha' }, { strategyId: 'beta' }] });
  if (opts.cursor !== undefined) app.journal.setCursor(LEDGER_CHECKPOINT, opts.cursor);
  if (opts.pruned) app.journal.setCursor('journal:pruned', JSON.stringify({ at: 5, before: 4, throughFill: 2 }));
  for (const f of FILLS.slice(2)) app.journal.recordFill(f);
  // A new start on the same journal.
  await drive(clock, app.stop());
  running = await engineApp('mode: paper\n', [], { restartOf: running });
  const read = vi.spyOn(running.app.journal, 'eachFill');
  await drive(running.clock, running.app.engine.load({ strategiesOwn: true }));
  return { app: running.app, logs: running.logs, read };
}

/** Each strategy's own line, rebuilt from every fill by a ledger that reads them all. */
function everyFill(j: Journal, strategyId: string) {
  return new StrategyLedger(j, () => undefined).position(strategyId, 'spot', 'BTCUSDT');
}

describe("strategies' own books at start", () => {
  it('are the checkpoint plus the fills journaled after it, the same as every fill replayed', async () => {
    const { app, logs, read } = await started({});
    expect(read.mock.calls).toEqual([[2]]);
    expect(logs.withMsg(WARNING)).toEqual([]);
    const own = (app.engine as unknown as { ledger: StrategyLedger }).ledger;
    for (const id of ['alpha', 'beta']) expect(own.position(id, 'spot', 'BTCUSDT')).toEqual(everyFill(app.journal, id));
    expect(own.position('alpha', 'spot', 'BTCUSDT')).toMatchObject({ quantity: '0.1', realizedPnl: '4', fees: '0.04' });
    expect(own.position('beta', 'spot', 'BTCUSDT')).toMatchObject({ quantity: '0.3', realizedPnl: '4' });
    expect(own.fills('alpha').map((f) => f.tradeId)).toEqual(['t1', 't3']);
    // The next pass checkpoints the books again, with the positions' fill number.
    await drive(running!.clock, app.engine.reconcile());
    expect(JSON.parse(app.journal.cursor(LEDGER_CHECKPOINT)!).throughFill).toBe(4);
    expect(JSON.parse(app.journal.cursor(POSITIONS_CHECKPOINT)!).throughFill).toBe(4);
  });

  it.each([
    ['unreadable', '{"version":1,"throughFill":2,"strategies":'],
    ['covering fills the journal does not hold', JSON.stringify({ version: 1, throughFill: 9, strategies: [] })],
    ['of another version (a changed layout)', JSON.stringify({ version: 2, throughFill: 2, strategies: [] })],
    ['not taken with the positions checkpoint', JSON.stringify({ version: 1, throughFill: 1, strategies: [] })],
    ['with a malformed line', JSON.stringify({ version: 1, throughFill: 2, strategies: [{ strategyId: 'alpha', book: { positions: [{ market: 'spot', symbol: 'BTCUSDT', quantity: 'lots', avgEntryPrice: '1', realizedPnl: '0', fees: '0' }] } }] })],
  ])('one %s is set aside with a warning, and every fill is replayed', async (_what, cursor) => {
    const { app, logs, read } = await started({ cursor });
    expect(read.mock.calls).toEqual([[0]]);
    expect(logs.withMsg(WARNING)).toHaveLength(1);
    const own = (app.engine as unknown as { ledger: StrategyLedger }).ledger;
    for (const id of ['alpha', 'beta']) expect(own.position(id, 'spot', 'BTCUSDT')).toEqual(everyFill(app.journal, id));
    // The account's positions still come from their own checkpoint.
    expect(app.engine.positions.snapshot()[0]).toMatchObject({ quantity: '0.4' });
  });
});

describe('a checkpoint set aside on a pruned journal', () => {
  it('is warned about with what the rebuild lacks: the fills pruned', async () => {
    const { logs } = await started({ cursor: '{', pruned: true });
    const [line] = logs.withMsg(WARNING);
    expect(line?.pruned).toMatch(/^the journal was pruned \(.*"throughFill":2.*\): the fills pruned are not in the rebuild, so these positions lack them; compare with the venue \(sluice status\)/);
  });
});

describe("a strategy's latest fills", () => {
  it('are its latest 1000 in the journal, oldest first, however its books were built, and follow the fills told after', () => {
    const j = new MemoryJournal();
    order(j, 'alpha', 'a-1', '1');
    order(j, 'beta', 'b-1', '2');
    const f = (n: number, venue: string): Fill => fill(`t${n}`, { venueOrderId: venue as VenueOrderId, volume: d('0.001'), price: d('100'), fee: d('0'), feeAsset: 'USDT' });
    const all: Fill[] = [];
    for (let n = 0; n < 2600; n++) all.push(f(n, n % 3 === 0 ? '2' : '1'));
    for (const x of all) j.recordFill(x);
    const alpha = all.filter((x) => x.venueOrderId === '1');
    const replayed = new StrategyLedger(j, () => undefined);
    expect(replayed.fills('alpha')).toEqual(alpha.slice(-1000));
    expect(replayed.fills('beta')).toEqual(all.filter((x) => x.venueOrderId === '2').slice(-1000));
    // A ledger whose books came from elsewhere (restore) lists the same.
    const restored = new StrategyLedger(j, () => undefined);
    restored.restore([]);
    restored.replayed();
    expect(restored.fills('alpha')).toEqual(replayed.fills('alpha'));
    // A fill told after: listed once, the oldest dropped.
    const next = f(9000, '1');
    j.recordFill(next);
    restored.fill('alpha', next);
    restored.fill('alpha', next);
    expect(restored.fills('alpha')).toEqual([...alpha.slice(-999), next]);
  });
});
