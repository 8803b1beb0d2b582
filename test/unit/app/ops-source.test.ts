// The dashboard's data source over the real composition root (backtest profile: the in-process
// simulator, a memory journal, a manual clock).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { Fill } from '../../../src/core/types.js';
import { createDaemonOpsSource, RECENT_FILLS, VenueWatch } from '../../../src/app/ops-source.js';
import { drive, engineApp, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

const fill = (n: number, time: number): Fill => ({
  market: 'spot',
  symbol: 'BTCUSDT',
  tradeId: `t${n}`,
  venueOrderId: '1' as VenueOrderId,
  side: 'BUY',
  price: d('100'),
  volume: d('0.01'),
  fee: d('0'),
  feeAsset: 'USDT',
  isMaker: true,
  time,
});

describe('the dashboard\'s recent fills', () => {
  it('at the first look are the journal\'s latest, newest first, read without streaming the journal; later ones arrive as the engine reports them', async () => {
    running = await engineApp('mode: paper\n', []);
    const { app, config } = running;
    // 3,000 fills journaled in time order, then a late one of an old trade (a catch-up).
    for (let i = 0; i < 3000; i++) app.journal.recordFill(fill(i, 1_000_000 + i));
    app.journal.recordFill(fill(9999, 5));
    const streamed = vi.spyOn(app.journal, 'eachFill');
    const ops = createDaemonOpsSource({ config, app: () => app, now: () => 0, watch: new VenueWatch() });

    const first = ops.status().fills;
    expect(streamed).not.toHaveBeenCalled();
    expect(first).toHaveLength(RECENT_FILLS);
    expect(first[0]).toMatchObject({ tradeId: 't2999', time: 1_002_999 });
    expect(first.at(-1)).toMatchObject({ tradeId: `t${3000 - RECENT_FILLS}` });
    expect(first.map((f) => f.time)).toEqual([...first.map((f) => f.time)].sort((a, b) => b - a));

    app.engine.events.emit('fill', fill(3000, 2_000_000));
    expect(ops.status().fills[0]).toMatchObject({ tradeId: 't3000' });
    expect(ops.status().fills).toHaveLength(RECENT_FILLS);
  });
});
