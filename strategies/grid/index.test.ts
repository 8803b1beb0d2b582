import { describe, expect, it } from 'vitest';
import { d, type PlaceIntent } from 'sluice/strategy';
import { harness } from 'sluice/testing';
import grid from './index.js';

const places = (intents: readonly { kind: string }[]) => (intents.filter((i) => i.kind === 'place') as PlaceIntent[]).map((i) => `${i.side} ${i.volume}@${i.price}`);

describe('grid strategy', () => {
  it('quotes levels around the mid, rounded to the price precision', async () => {
    const { host, view } = harness(grid, { levels: 2, spacingPct: '0.1', orderVolume: '0.001' });
    view.prices.set('BTCUSDT', d('30000.55'));
    const out = await host.tick();
    expect(places(out.intents)).toEqual(['BUY 0.001@29970.54', 'SELL 0.001@30030.56', 'BUY 0.001@29940.54', 'SELL 0.001@30060.56']);
  });

  it('does not quote a side that would breach the inventory limit', async () => {
    const { host, view } = harness(grid, { levels: 3, orderVolume: '0.01', maxInventory: '0.02' });
    view.prices.set('BTCUSDT', d('100'));
    view.positions.set('BTCUSDT', d('0.01'));
    const out = await host.tick();
    // Long 0.01: one more bid reaches the 0.02 limit; asks can go to -0.02 (three levels reach -0.02).
    expect(places(out.intents).filter((p) => p.startsWith('BUY'))).toHaveLength(1);
    expect(places(out.intents).filter((p) => p.startsWith('SELL'))).toHaveLength(3);
  });

  it('keeps its quotes until the mid moves more than requotePct, then cancels and requotes', async () => {
    const { host, view } = harness(grid, { levels: 1, requotePct: '0.5' });
    view.prices.set('BTCUSDT', d('100'));
    const first = await host.tick();
    view.orders = first.intents.map((i) => ({ ...(i as PlaceIntent), executedVolume: d('0'), status: 'open' as const, createdAt: 0, updatedAt: 0 }));
    view.prices.set('BTCUSDT', d('100.4'));
    expect((await host.tick()).intents).toEqual([]);
    view.prices.set('BTCUSDT', d('101'));
    const moved = await host.tick();
    expect(moved.intents.filter((i) => i.kind === 'cancel')).toHaveLength(2);
    expect(places(moved.intents)).toEqual(['BUY 0.001@100.89', 'SELL 0.001@101.11']);
  });

  it('requotes at a move of exactly requotePct, and not a hair below it', async () => {
    const { host, view } = harness(grid, { levels: 1, requotePct: '0.5' });
    view.prices.set('BTCUSDT', d('30000'));
    const first = await host.tick();
    view.orders = first.intents.map((i) => ({ ...(i as PlaceIntent), executedVolume: d('0'), status: 'open' as const, createdAt: 0, updatedAt: 0 }));
    view.prices.set('BTCUSDT', d('29850.01')); // 0.49997% down
    expect((await host.tick()).intents).toEqual([]);
    view.prices.set('BTCUSDT', d('30150')); // 0.5% up, exactly
    expect((await host.tick()).intents.filter((i) => i.kind === 'cancel')).toHaveLength(2);
  });

  it('waits for a price and rejects money written as a bare number', async () => {
    const { host } = harness(grid);
    expect((await host.tick()).intents).toEqual([]);
    expect(() => harness(grid, { orderVolume: 0.001 })).toThrow(/expected string/);
  });
});
