// DryRunGateway: keeps what it is handed, answers nothing.
import { describe, expect, it } from 'vitest';
import { flushMicrotasks } from '../../../src/core/clock.js';
import type { Batch, CancelIntent, PlaceIntent } from '../../../src/core/types.js';
import { DryRunGateway } from '../../../src/executor/index.js';
import { cancelOf, placeOf, tracked } from '../../fixtures/engine-parts.js';

describe('DryRunGateway', () => {
  it('records every batch, places and cancels, in the order handed', () => {
    const g = new DryRunGateway();
    const places: Batch<PlaceIntent> = { market: 'spot', symbol: 'BTCUSDT', kind: 'place', items: [placeOf('a'), placeOf('b')] };
    const cancels: Batch<CancelIntent> = { market: 'spot', symbol: 'BTCUSDT', kind: 'cancel', items: [cancelOf('x')] };
    const futures: Batch<PlaceIntent> = { market: 'futures', symbol: 'E-BTC-USDT', kind: 'place', items: [placeOf('f', { market: 'futures', symbol: 'E-BTC-USDT' })] };
    void g.place(places);
    void g.cancel(cancels);
    void g.place(futures);
    expect(g.batches).toEqual([places, cancels, futures]);
    expect(g.batches[0]).toBe(places);
  });

  it('never answers: nothing comes back for a strategy to react to', async () => {
    const g = new DryRunGateway();
    const placed = tracked(g.place({ market: 'spot', symbol: 'BTCUSDT', kind: 'place', items: [placeOf('a')] }));
    const cancelled = tracked(g.cancel({ market: 'spot', symbol: 'BTCUSDT', kind: 'cancel', items: [cancelOf('a')] }));
    await flushMicrotasks(100);
    expect([placed.done, cancelled.done]).toEqual([false, false]);
  });
});
