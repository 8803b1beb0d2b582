import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RollingWindow } from '../../../src/limiter/window.js';

describe('RollingWindow', () => {
  it('frees a slot exactly when the oldest start leaves the span', () => {
    const w = new RollingWindow(2, 100);
    w.record(0);
    w.record(10);
    expect(w.nextFreeAt(20)).toBe(100);
    expect(w.countAt(99)).toBe(2);
    expect(w.countAt(100)).toBe(1);
    expect(w.nextFreeAt(100)).toBe(100);
  });

  it('starting every job at nextFreeAt never puts more than the limit in any span', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 500 }), fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 80 }), (limit, span, gaps) => {
        const w = new RollingWindow(limit, span);
        const starts: number[] = [];
        let t = 0;
        for (const g of gaps) {
          t += g;
          const at = w.nextFreeAt(t);
          expect(at).toBeGreaterThanOrEqual(t);
          // Earliest: one ms before, the window would be over the limit (unless it is `t` itself).
          if (at > t) expect(starts.filter((s) => s > at - 1 - span).length).toBeGreaterThanOrEqual(limit);
          w.record(at);
          starts.push(at);
          t = at;
        }
        for (const s of starts) expect(starts.filter((x) => x >= s && x < s + span).length).toBeLessThanOrEqual(limit);
      }),
    );
  });
});
