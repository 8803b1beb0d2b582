import { describe, expect, it } from 'vitest';
import { d, type PlaceIntent } from 'sluice/strategy';
import { harness } from 'sluice/testing';
import twap from './index.js';

describe('twap strategy', () => {
  it('sends total/slices per tick as marketable limits, then stops', async () => {
    const { host, view } = harness(twap, { side: 'BUY', total: '0.03', slices: 3, slippagePct: '0.5' });
    view.prices.set('BTCUSDT', d('20000'));
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      for (const intent of (await host.tick()).intents as PlaceIntent[]) sent.push(`${intent.side} ${intent.type} ${intent.volume}@${intent.price}`);
    }
    expect(sent).toEqual(['BUY LIMIT 0.01@20100', 'BUY LIMIT 0.01@20100', 'BUY LIMIT 0.01@20100']);
  });

  it('repeats as a DCA and sells below the last price', async () => {
    const { host, view } = harness(twap, { side: 'SELL', total: '0.02', slices: 2, repeat: true, slippagePct: '1' });
    view.prices.set('BTCUSDT', d('100'));
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) counts.push((await host.tick()).intents.length);
    expect(counts).toEqual([1, 1, 1, 1, 1]);
    const [intent] = (await host.tick()).intents as PlaceIntent[];
    expect(intent).toMatchObject({ side: 'SELL', price: '99', volume: '0.01' });
  });

  it('warns instead of sending a zero slice', async () => {
    const { host, view, logs } = harness(twap, { total: '0.00001', slices: 10 });
    view.prices.set('BTCUSDT', d('100'));
    expect((await host.tick()).intents).toEqual([]);
    expect(logs.map((l) => l.msg)).toContain('slice rounds to zero: raise total or lower slices');
  });
});
