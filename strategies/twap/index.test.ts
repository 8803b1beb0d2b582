import { describe, expect, it } from 'vitest';
import { d, type Order, type PlaceIntent } from 'sluice/strategy';
import { harness } from 'sluice/testing';
import twap from './index.js';

type Harness = ReturnType<typeof harness>;

/** One tick; what it placed joins ctx.orders() as the journal would list it (pending, nothing executed). */
async function tick(h: Harness): Promise<PlaceIntent[]> {
  const placed = (await h.host.tick()).intents as PlaceIntent[];
  for (const i of placed) h.view.history.push(orderOf(i));
  return placed;
}

function orderOf(i: PlaceIntent, over: Partial<Order> = {}): Order {
  return { clientOrderId: i.clientOrderId, strategyId: i.strategyId, market: i.market, symbol: i.symbol, side: i.side, type: i.type, volume: i.volume, price: i.price, executedVolume: d('0'), status: 'pending', createdAt: 0, updatedAt: 0, ...over };
}

describe('twap strategy', () => {
  it('sends total/slices per tick as marketable limits, then stops', async () => {
    const h = harness(twap, { side: 'BUY', total: '0.03', slices: 3, slippagePct: '0.5' });
    h.view.prices.set('BTCUSDT', d('20000'));
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      for (const intent of await tick(h)) sent.push(`${intent.side} ${intent.type} ${intent.volume}@${intent.price}`);
    }
    expect(sent).toEqual(['BUY LIMIT 0.01@20100', 'BUY LIMIT 0.01@20100', 'BUY LIMIT 0.01@20100']);
  });

  it('a new run on the same journal counts the orders it finds there: filled, open, and sent with no answer', async () => {
    const params = { side: 'BUY', total: '0.05', slices: 5, slippagePct: '0.5' };
    const first = harness(twap, params);
    first.view.prices.set('BTCUSDT', d('20000'));
    const [a] = await tick(first);
    const [b] = await tick(first);
    const [c] = await tick(first);
    // The daemon dies: a filled, b resting, c journaled but never answered.
    const second = harness(twap, params);
    second.view.prices.set('BTCUSDT', d('20000'));
    const prev = (i: PlaceIntent, n: number, over: Partial<Order>) => orderOf(i, { clientOrderId: `slprev${n}` as Order['clientOrderId'], ...over });
    second.view.history = [prev(a!, 1, { status: 'filled', executedVolume: d('0.01') }), prev(b!, 2, { status: 'open' }), prev(c!, 3, { status: 'unknown' })];
    const sent: string[] = [];
    for (let i = 0; i < 4; i++) for (const intent of await tick(second)) sent.push(intent.volume);
    expect(sent).toEqual(['0.01', '0.01']);
  });

  it('after slices refused in a row it waits before the next try, 1 s doubling to at most 5 min, logged once a wait', async () => {
    const h = harness(twap, { side: 'BUY', total: '0.03', slices: 3, slippagePct: '0.5' });
    h.view.prices.set('BTCUSDT', d('20000'));
    const now = h.advance(0);
    const refused = (n: number, at: number) => orderOf({ clientOrderId: `r${n}`, strategyId: 'twap', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.01') } as PlaceIntent, { status: 'rejected', updatedAt: at });
    // Three refused in a row, the last just now: 4 s to wait.
    h.view.history = [refused(1, now - 3000), refused(2, now - 2000), refused(3, now)];
    expect(await tick(h)).toEqual([]);
    h.advance(3999);
    expect(await tick(h)).toEqual([]);
    expect(h.logs.filter((l) => l.msg === 'slices refused in a row: waiting before the next try')).toEqual([
      expect.objectContaining({ fields: { symbol: 'BTCUSDT', nextTryAt: new Date(now + 4000).toISOString() } }),
    ]);
    h.advance(1);
    expect((await tick(h)).map((i) => i.volume)).toEqual(['0.01']);
    // Twenty in a row: the wait is capped at 5 minutes.
    h.view.history = Array.from({ length: 20 }, (_, i) => refused(10 + i, h.advance(0)));
    h.advance(299_999);
    expect(await tick(h)).toEqual([]);
    h.advance(1);
    expect(await tick(h)).toHaveLength(1);
  });

  it('a slice that ended part-filled or refused is made up, so what executes comes to total', async () => {
    const h = harness(twap, { side: 'BUY', total: '0.03', slices: 3, slippagePct: '0.5' });
    h.view.prices.set('BTCUSDT', d('20000'));
    h.view.history = [
      orderOf({ clientOrderId: 'x1', strategyId: 'twap', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.01') } as PlaceIntent, { status: 'canceled', executedVolume: d('0.004') }),
      orderOf({ clientOrderId: 'x2', strategyId: 'twap', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.01') } as PlaceIntent, { status: 'rejected' }),
      orderOf({ clientOrderId: 'x3', strategyId: 'twap', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.01') } as PlaceIntent, { status: 'filled', executedVolume: d('0.01') }),
    ];
    const sent: string[] = [];
    for (let i = 0; i < 4; i++) for (const intent of await tick(h)) sent.push(intent.volume);
    // 0.014 executed: 0.01, then the 0.006 left.
    expect(sent).toEqual(['0.01', '0.006']);
  });

  it('keeps a checkpoint of ended orders in its saved state and counts from it when they have left the journal list', async () => {
    const params = { side: 'BUY', total: '0.03', slices: 3, slippagePct: '0.5' };
    const first = harness(twap, params);
    first.view.prices.set('BTCUSDT', d('20000'));
    const [a] = await tick(first);
    first.view.history = [orderOf(a!, { status: 'filled', executedVolume: d('0.01') })];
    await tick(first);
    const saved = first.host.save();
    expect(JSON.parse(saved!)).toEqual({ checkpoints: { BTCUSDT: { through: a!.clientOrderId, done: '0.01' } } });
    // The second run's list holds only the later order (the first rolled out of the latest 1000).
    // (A second harness numbers its orders from 0 again, so the first run's get ids of their own here.)
    const second = harness(twap, params);
    second.view.prices.set('BTCUSDT', d('20000'));
    second.view.history = [orderOf(first.view.history[1] as unknown as PlaceIntent, { clientOrderId: 'slprev2' as Order['clientOrderId'] })];
    await second.host.load({ checkpoints: { BTCUSDT: { through: 'slprev1', done: '0.01' } } });
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) for (const intent of await tick(second)) sent.push(intent.volume);
    expect(sent).toEqual(['0.01']);
  });

  it('repeats as a DCA and sells below the last price', async () => {
    const h = harness(twap, { side: 'SELL', total: '0.02', slices: 2, repeat: true, slippagePct: '1' });
    h.view.prices.set('BTCUSDT', d('100'));
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) counts.push((await tick(h)).length);
    expect(counts).toEqual([1, 1, 1, 1, 1]);
    const [intent] = await tick(h);
    expect(intent).toMatchObject({ side: 'SELL', price: '99', volume: '0.01' });
  });

  it('warns instead of sending a zero slice', async () => {
    const { host, view, logs } = harness(twap, { total: '0.00001', slices: 10 });
    view.prices.set('BTCUSDT', d('100'));
    expect((await host.tick()).intents).toEqual([]);
    expect(logs.map((l) => l.msg)).toContain('slice rounds to zero: raise total or lower slices');
  });
});
