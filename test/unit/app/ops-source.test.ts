// The dashboard's data source over the real composition root (backtest profile: the in-process
// simulator, a memory journal, a manual clock).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDaemonOpsSource, RECENT_FILLS, VenueWatch } from '../../../src/app/ops-source.js';
import { fill } from '../../contract/journal.contract.js';
import { drive, engineApp, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

const fillAt = (n: number, time: number) => fill(`t${n}`, { time });

describe('the dashboard\'s recent fills', () => {
  it('at the first look are the journal\'s latest, newest first, read without streaming the journal; later ones arrive as the engine reports them', async () => {
    running = await engineApp('mode: paper\n', []);
    const { app, config } = running;
    // 3,000 fills journaled in time order, then a late one of an old trade (a catch-up).
    for (let i = 0; i < 3000; i++) app.journal.recordFill(fillAt(i, 1_000_000 + i));
    app.journal.recordFill(fillAt(9999, 5));
    const streamed = vi.spyOn(app.journal, 'eachFill');
    const ops = createDaemonOpsSource({ config, app: () => app, now: () => 0, watch: new VenueWatch() });

    const first = ops.status().fills;
    expect(streamed).not.toHaveBeenCalled();
    expect(first).toHaveLength(RECENT_FILLS);
    expect(first[0]).toMatchObject({ tradeId: 't2999', time: 1_002_999 });
    expect(first.at(-1)).toMatchObject({ tradeId: `t${3000 - RECENT_FILLS}` });
    expect(first.map((f) => f.time)).toEqual([...first.map((f) => f.time)].sort((a, b) => b - a));

    app.engine.events.emit('fill', fillAt(3000, 2_000_000));
    expect(ops.status().fills[0]).toMatchObject({ tradeId: 't3000' });
    expect(ops.status().fills).toHaveLength(RECENT_FILLS);
  });
});
