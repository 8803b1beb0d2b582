import { describe, expect, it } from 'vitest';
import { d, type Candle, type Order, type PlaceIntent } from 'sluice/strategy';
import { harness } from 'sluice/testing';
import signalMm from './index.js';

const candle = (minute: number, close: string): Candle => ({ openTime: minute * 60_000, open: d(close), high: d(close), low: d(close), close: d(close), vol: d('1'), closed: true });
const places = (intents: readonly { kind: string }[]) => (intents.filter((i) => i.kind === 'place') as PlaceIntent[]).map((i) => `${i.side} ${i.volume}@${i.price}`);
const resting = (i: PlaceIntent): Order => ({ ...i, executedVolume: d('0'), status: 'open', createdAt: 0, updatedAt: 0 });

function setup(closes: string[], params: object = {}) {
  const h = harness(signalMm, { fast: 2, slow: 3, spreadPct: '0.1', skewPct: '0.05', refreshMs: 1000, ...params });
  h.view.candles.set('BTCUSDT:1min', closes.map((c, i) => candle(i, c)));
  h.view.depths.set('BTCUSDT', { time: 0, bids: [[d('99.99'), d('1')]], asks: [[d('100.01'), d('1')]] });
  return h;
}

describe('signal-mm strategy', () => {
  it('quotes around the mid with no trend, shifted up in an uptrend and down in a downtrend', async () => {
    const flat = setup(['100', '100', '100', '100']);
    expect(places((await flat.host.start()).intents)).toEqual(['BUY 0.001@99.95', 'SELL 0.001@100.05']);
    const up = setup(['100', '101', '102', '103']);
    // Center 100 * 1.0005 = 100.05: bid 100.05 - 0.050025, ask 100.05 + 0.050025, rounded away from crossing.
    expect(places((await up.host.start()).intents)).toEqual(['BUY 0.001@99.99', 'SELL 0.001@100.11']);
    const down = setup(['103', '102', '101', '100']);
    expect(places((await down.host.start()).intents)).toEqual(['BUY 0.001@99.9', 'SELL 0.001@100']);
  });

  it('keeps quotes near their target on the timer, replaces one that drifted, and stops quoting the side that would pass the inventory limit', async () => {
    const { host, view, advance, fireTimers } = setup(['100', '100', '100', '100'], { maxInventory: '0.001' });
    const first = (await host.start()).intents as PlaceIntent[];
    view.orders = first.map(resting);
    advance(1000);
    expect((await fireTimers()).intents).toEqual([]); // nothing moved
    view.depths.set('BTCUSDT', { time: 0, bids: [[d('100.99'), d('1')]], asks: [[d('101.01'), d('1')]] });
    advance(1000);
    const moved = await fireTimers();
    expect(moved.intents.filter((i) => i.kind === 'cancel').map((i) => i.clientOrderId)).toEqual(first.map((i) => i.clientOrderId));
    expect(places(moved.intents)).toEqual(['BUY 0.001@100.94', 'SELL 0.001@101.06']);
    // Before the venue answers the cancels, the old quotes still read open beside the new ones:
    // the next refresh leaves both alone (no second cancel, no duplicate quote).
    const replacements = (moved.intents.filter((i) => i.kind === 'place') as PlaceIntent[]).map(resting);
    view.orders = [...first.map(resting), ...replacements];
    advance(1000);
    expect((await fireTimers()).intents).toEqual([]);
    // Long its limit: only the ask stays.
    view.orders = replacements;
    view.ownPositions.set('BTCUSDT', { market: 'spot', symbol: 'BTCUSDT', quantity: d('0.001'), avgEntryPrice: d('100.94'), realizedPnl: d('0'), fees: d('0') });
    advance(1000);
    const long = await fireTimers();
    expect(long.intents.map((i) => `${i.kind} ${i.clientOrderId}`)).toEqual([`cancel ${view.orders[0]!.clientOrderId}`]);
  });

  it('requotes at once after a fill, counts fills across restarts, and cancels its quotes at stop', async () => {
    const { host, view } = setup(['100', '100', '100', '100']);
    const first = (await host.start()).intents as PlaceIntent[];
    const bid = resting(first[0]!);
    view.orders = [resting(first[1]!)];
    const after = await host.orderUpdate({ ...bid, status: 'filled', executedVolume: d('0.001') });
    expect(places(after.intents)).toEqual(['BUY 0.001@99.95']);
    expect(host.save()).toBe('{"fills":1}');
    const stopped = await host.stop();
    expect(stopped.intents.map((i) => i.kind)).toEqual(['cancel']);

    const restarted = setup(['100', '100', '100', '100']);
    await restarted.host.load({ fills: 1 });
    expect(restarted.host.save()).toBe('{"fills":1}');
  });

  it('refuses a fast average that is not faster than the slow one', () => {
    expect(() => harness(signalMm, { fast: 5, slow: 5 })).toThrow(/fast must be below slow/);
  });
});

