import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RollingWindow } from '../../../src/limiter/window.js';

/** Brute force: starts holding a slot at `t`, i.e. in (t - span, t]. */
const held = (starts: readonly number[], t: number, span: number) => starts.filter((s) => s > t - span && s <= t).length;

const limitArb = fc.integer({ min: 1, max: 10 });
const spanArb = fc.integer({ min: 1, max: 500 });
const gapsArb = fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 80 });

describe('RollingWindow', () => {
  it('frees a slot exactly when the oldest start leaves the span', () => {
    const w = new RollingWindow(2, 100);
    w.record(0);
    w.record(10);
    expect(w.nextFreeAt(20)).toBe(100);
    expect(w.countAt(99)).toBe(2);
    expect(w.countAt(100)).toBe(1);
    expect(w.nextFreeAt(100)).toBe(100);
    expect(w.nextFreeAt(105)).toBe(105);
  });

  it('refuses a limit or span that makes no sense', () => {
    expect(() => new RollingWindow(0, 100)).toThrow(/limit/);
    expect(() => new RollingWindow(2.5, 100)).toThrow(/limit/);
    expect(() => new RollingWindow(1, 0)).toThrow(/spanMs/);
  });

  it('a clock stepped back holds the slot longer, never shorter', () => {
    const w = new RollingWindow(1, 100);
    w.record(50);
    w.record(20); // recorded as 50
    expect(w.countAt(149)).toBe(2);
    expect(w.countAt(150)).toBe(0);
  });

  it('starting every job at nextFreeAt never puts more than the limit in any span, and nextFreeAt is the earliest such time', () => {
    fc.assert(
      fc.property(limitArb, spanArb, gapsArb, (limit, span, gaps) => {
        const w = new RollingWindow(limit, span);
        const starts: number[] = [];
        let t = 0;
        for (const g of gaps) {
          t += g;
          const at = w.nextFreeAt(t);
          expect(at).toBeGreaterThanOrEqual(t);
          // Admits one more at `at`...
          expect(held(starts, at, span)).toBeLessThan(limit);
          // ...and not one millisecond earlier (unless `at` is the time asked about).
          if (at > t) expect(held(starts, at - 1, span)).toBeGreaterThanOrEqual(limit);
          w.record(at);
          starts.push(at);
          t = at;
        }
        // Every window [s, s + span) opening at a start holds at most `limit` starts.
        for (const s of starts) expect(starts.filter((x) => x >= s && x < s + span).length).toBeLessThanOrEqual(limit);
      }),
    );
  });

  it('countAt matches a brute-force count for any recorded sequence, even one over the limit', () => {
    fc.assert(
      fc.property(limitArb, spanArb, gapsArb, fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 20 }), (limit, span, gaps, probes) => {
        const w = new RollingWindow(limit, span);
        const starts: number[] = [];
        let t = 0;
        for (const g of gaps) {
          t += g;
          w.record(t);
          starts.push(t);
        }
        let q = t;
        for (const p of probes) {
          q += p;
          expect(w.countAt(q)).toBe(held(starts, q, span));
          const free = w.nextFreeAt(q);
          expect(held(starts, free, span)).toBeLessThan(limit);
          if (free > q) expect(held(starts, free - 1, span)).toBeGreaterThanOrEqual(limit);
        }
      }),
    );
  });
});
