// The account's positions at start: the journal's checkpoint, then only the fills journaled
// after it; a checkpoint that cannot be used is set aside and every fill is applied, as without
// one. Through the real composition root (backtest profile, memory journal, manual clock).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { Fill } from '../../../src/core/types.js';
import { POSITIONS_CHECKPOINT, PositionsCheckpoint } from '../../../src/engine/positions-checkpoint.js';
import { PositionBook } from '../../../src/positions/index.js';
import { fill } from '../../contract/journal.contract.js';
import { drive, engineApp, MemoryLog, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

const FILLS: Fill[] = [
  fill('t1', { side: 'BUY', volume: d('0.3'), price: d('100'), fee: d('0.01'), feeAsset: 'USDT' }),
  fill('t2', { side: 'SELL', volume: d('0.1'), price: d('130'), fee: d('0.0001'), feeAsset: 'BTC' }),
  fill('t3', { side: 'SELL', volume: d('0.5'), price: d('90'), fee: d('0.02'), feeAsset: 'USDT' }),
];

function everyFill(): PositionBook {
  const book = new PositionBook();
  for (const f of FILLS) book.apply(f);
  return book;
}

/** An app whose journal holds FILLS, checkpointed after the first two when `checkpoint` is set, or holding `cursor` as its checkpoint. */
async function started(opts: { checkpoint?: boolean; cursor?: string; strategiesOwn?: boolean }) {
  running = await engineApp('mode: paper\n', []);
  const { app, clock, logs } = running;
  const early = new PositionBook();
  for (const f of FILLS.slice(0, 2)) {
    app.journal.recordFill(f);
    early.apply(f);
  }
  if (opts.checkpoint) new PositionsCheckpoint(app.journal, early, new MemoryLog()).save();
  if (opts.cursor !== undefined) app.journal.setCursor(POSITIONS_CHECKPOINT, opts.cursor);
  app.journal.recordFill(FILLS[2]!);
  const applied = vi.spyOn(app.engine.positions, 'apply');
  const read = vi.spyOn(app.journal, 'eachFill');
  await drive(clock, app.engine.load({ strategiesOwn: opts.strategiesOwn }));
  return { app, logs, applied, read };
}

describe('positions at start', () => {
  it.each([false, true])('are the checkpoint plus the fills journaled after it, the same book as every fill applied (strategies\' own read too: %s)', async (strategiesOwn) => {
    const { app, applied, logs, read } = await started({ checkpoint: true, strategiesOwn });
    expect(applied.mock.calls.map(([f]) => f.tradeId)).toEqual(['t3']);
    // One read of the fills: after the checkpoint's (it covers fills 1 and 2), or from the first when the strategies' own need them all.
    expect(read.mock.calls).toEqual([[strategiesOwn ? 0 : 2]]);
    expect(app.engine.positions.entry('spot', 'BTCUSDT')).toEqual(everyFill().entry('spot', 'BTCUSDT'));
    expect(app.engine.positions.entry('spot', 'BTCUSDT')).toMatchObject({ quantity: '-0.3', otherFees: { BTC: '0.0001' } });
    expect(logs.withMsg('the positions checkpoint cannot be used: positions are rebuilt from every fill')).toEqual([]);
  });

  it.each([
    ['unreadable', '{"throughFill":2,"book":'],
    ['covering fills the journal does not hold', JSON.stringify({ throughFill: 9, book: { positions: [] } })],
    ['with a malformed line', JSON.stringify({ throughFill: 2, book: { positions: [{ market: 'spot', symbol: 'BTCUSDT', quantity: 'lots', avgEntryPrice: '1', realizedPnl: '0', fees: '0' }] } })],
  ])('one %s is set aside with a warning, and every fill is applied', async (_what, cursor) => {
    const { app, applied, logs } = await started({ cursor });
    expect(applied.mock.calls.map(([f]) => f.tradeId)).toEqual(['t1', 't2', 't3']);
    expect(app.engine.positions.entry('spot', 'BTCUSDT')).toEqual(everyFill().entry('spot', 'BTCUSDT'));
    expect(logs.withMsg('the positions checkpoint cannot be used: positions are rebuilt from every fill')).toHaveLength(1);
  });

  it('a reconcile pass checkpoints the book with the number of the last fill journaled', async () => {
    const { app, clock } = (running = await engineApp('mode: paper\n', []));
    for (const f of FILLS) app.journal.recordFill(f);
    await drive(clock, app.engine.load());
    await drive(clock, app.engine.reconcile());
    const saved = JSON.parse(app.journal.cursor(POSITIONS_CHECKPOINT)!) as { throughFill: number; book: unknown };
    expect(saved.throughFill).toBe(app.journal.lastFillId());
    expect(saved.book).toEqual(JSON.parse(JSON.stringify(everyFill().checkpoint())));
    expect(app.journal.positions()).toEqual(everyFill().snapshot());
    // No fill since: the next pass writes nothing.
    const writes = vi.spyOn(app.journal, 'setCursor');
    await drive(clock, app.engine.reconcile());
    expect(writes.mock.calls.filter(([key]) => key === POSITIONS_CHECKPOINT)).toEqual([]);
  });
});
