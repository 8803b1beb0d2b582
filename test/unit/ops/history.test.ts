import { describe, expect, it } from 'vitest';
import { OpsRecorder } from '../../../src/ops/index.js';

describe('OpsRecorder', () => {
  it('gives everything kept first, then only what came after a cursor', () => {
    const r = new OpsRecorder(100);
    r.record({ at: 1000, prices: { 'spot:BTCUSDT': '30000' }, equity: '1000', realized: '0' });
    r.record({ at: 2000, prices: { 'spot:BTCUSDT': '30001.5', 'spot:ETHUSDT': '2000' }, equity: '1000.5', realized: '0.25' });
    const all = r.history();
    expect(all).toEqual({
      cursor: 2,
      full: true,
      prices: { 'spot:BTCUSDT': [{ at: 1000, value: '30000' }, { at: 2000, value: '30001.5' }], 'spot:ETHUSDT': [{ at: 2000, value: '2000' }] },
      equity: [{ at: 1000, value: '1000' }, { at: 2000, value: '1000.5' }],
      realized: [{ at: 1000, value: '0' }, { at: 2000, value: '0.25' }],
    });
    r.record({ at: 3000, prices: { 'spot:ETHUSDT': '2001' } });
    expect(r.history(all.cursor)).toEqual({ cursor: 3, full: false, prices: { 'spot:ETHUSDT': [{ at: 3000, value: '2001' }] }, equity: [], realized: [] });
    expect(r.history(3)).toEqual({ cursor: 3, full: false, prices: {}, equity: [], realized: [] });
  });

  it('keeps at most maxPoints per series (trimmed in chunks); a cursor from before the trim gets everything again', () => {
    const r = new OpsRecorder(20);
    // Up to 20 + 2 (a tenth) points stay; the next sample trims the series back to 20.
    for (let i = 1; i <= 22; i++) r.record({ at: i, prices: {}, equity: String(i) });
    expect(r.history().equity).toHaveLength(22);
    r.record({ at: 23, prices: {}, equity: '23' });
    const kept = r.history();
    expect(kept.equity.map((p) => p.value)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 4)));
    expect(r.history(2)).toMatchObject({ full: true, cursor: 23 });
    expect(r.history(3)).toMatchObject({ full: false, equity: kept.equity });
    // A cursor from another recorder (a restarted daemon) is past the end: start over.
    expect(r.history(99)).toMatchObject({ full: true });
  });

  it('tells listeners after each sample until they stop; a throwing listener does not stop the others', () => {
    const r = new OpsRecorder();
    const heard: string[] = [];
    r.onSample(() => {
      throw new Error('a page went away');
    });
    const stop = r.onSample(() => heard.push('a'));
    r.record({ at: 1, prices: {} });
    stop();
    r.record({ at: 2, prices: {} });
    expect(heard).toEqual(['a']);
  });
});
