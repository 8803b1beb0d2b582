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

describe('grid strategy on futures', () => {
  const contract = { symbol: 'E-BTC-USDT', baseAsset: 'BTC', quoteAsset: 'USDT', pricePrecision: 2, quantityPrecision: 0, multiplier: d('0.001') };
  const onFutures = (params: Record<string, unknown>) => {
    const h = harness(grid, params, { market: 'futures', symbols: ['E-BTC-USDT'] });
    h.view.instruments.set('E-BTC-USDT', contract);
    return h;
  };
  const legs = (intents: readonly { kind: string }[]) => (intents.filter((i) => i.kind === 'place') as PlaceIntent[]).map((i) => `${i.side} ${i.volume}@${i.price} ${i.open}`);

  it('quotes asks with no coin balance (a futures account holds none): flat, every level opens', async () => {
    const { host, view } = onFutures({ levels: 2, spacingPct: '1', orderVolume: '1', maxInventory: '10' });
    view.prices.set('E-BTC-USDT', d('100'));
    const out = await host.tick();
    expect(legs(out.intents)).toEqual(['BUY 1@99 OPEN', 'SELL 1@101 OPEN', 'BUY 1@98 OPEN', 'SELL 1@102 OPEN']);
  });

  it('closes the position level by level before it opens the other way', async () => {
    const { host, view } = onFutures({ levels: 3, spacingPct: '1', orderVolume: '1', maxInventory: '10' });
    view.prices.set('E-BTC-USDT', d('100'));
    view.positions.set('E-BTC-USDT', d('2'));
    // Long 2: the first two asks close it, the third opens a short; every bid adds to the long.
    expect(legs((await host.tick()).intents)).toEqual(['BUY 1@99 OPEN', 'SELL 1@101 CLOSE', 'BUY 1@98 OPEN', 'SELL 1@102 CLOSE', 'BUY 1@97 OPEN', 'SELL 1@103 OPEN']);
  });

  it('a remainder smaller than an order is closed alone, so no level opens while a leg stands (a partial fill)', async () => {
    const { host, view } = onFutures({ levels: 2, spacingPct: '1', orderVolume: '2', maxInventory: '10' });
    view.prices.set('E-BTC-USDT', d('100'));
    view.positions.set('E-BTC-USDT', d('3'));
    expect(legs((await host.tick()).intents)).toEqual(['BUY 2@99 OPEN', 'SELL 2@101 CLOSE', 'BUY 2@98 OPEN', 'SELL 1@102 CLOSE']);
  });

  it('a short is closed by its bids the same way', async () => {
    const { host, view } = onFutures({ levels: 2, spacingPct: '1', orderVolume: '1', maxInventory: '10' });
    view.prices.set('E-BTC-USDT', d('100'));
    view.positions.set('E-BTC-USDT', d('-1'));
    expect(legs((await host.tick()).intents)).toEqual(['BUY 1@99 CLOSE', 'SELL 1@101 OPEN', 'BUY 1@98 OPEN', 'SELL 1@102 OPEN']);
  });
});

describe('grid strategy on futures, requoting', () => {
  it('cancels its quotes and quotes anew only once they are gone (a close order frozen by its cancel would be refused)', async () => {
    const { host, view } = harness(grid, { levels: 1, spacingPct: '1', orderVolume: '1', maxInventory: '10', requotePct: '0.5' }, { market: 'futures', symbols: ['E-BTC-USDT'] });
    view.instruments.set('E-BTC-USDT', { symbol: 'E-BTC-USDT', baseAsset: 'BTC', quoteAsset: 'USDT', pricePrecision: 2, quantityPrecision: 0, multiplier: d('0.001') });
    view.prices.set('E-BTC-USDT', d('100'));
    view.positions.set('E-BTC-USDT', d('1'));
    const first = await host.tick();
    view.orders = first.intents.map((i) => ({ ...(i as PlaceIntent), executedVolume: d('0'), status: 'open' as const, createdAt: 0, updatedAt: 0 }));
    view.prices.set('E-BTC-USDT', d('101'));
    const moved = await host.tick();
    expect(moved.intents.map((i) => i.kind)).toEqual(['cancel', 'cancel']);
    view.orders = view.orders.map((o) => ({ ...o, status: 'pending_cancel' as const }));
    expect((await host.tick()).intents).toEqual([]);
    view.orders = [];
    expect(places((await host.tick()).intents)).toEqual(['BUY 1@99.99', 'SELL 1@102.01']);
  });

  it('does not wait for an order whose answer was lost (it settles in up to unknownTimeoutMs)', async () => {
    const { host, view } = harness(grid, { levels: 1, spacingPct: '1', orderVolume: '1', maxInventory: '10', requotePct: '0.5' }, { market: 'futures', symbols: ['E-BTC-USDT'] });
    view.instruments.set('E-BTC-USDT', { symbol: 'E-BTC-USDT', baseAsset: 'BTC', quoteAsset: 'USDT', pricePrecision: 2, quantityPrecision: 0, multiplier: d('0.001') });
    view.prices.set('E-BTC-USDT', d('100'));
    const first = await host.tick();
    view.orders = first.intents.map((i) => ({ ...(i as PlaceIntent), executedVolume: d('0'), status: 'unknown' as const, createdAt: 0, updatedAt: 0 }));
    view.prices.set('E-BTC-USDT', d('101'));
    expect(places((await host.tick()).intents)).toEqual(['BUY 1@99.99', 'SELL 1@102.01']);
  });
});
