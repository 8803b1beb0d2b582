import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedMap, BoundedSet } from '../../../src/core/bounded.js';

describe('BoundedSet', () => {
  it('forgets the oldest key beyond its size', () => {
    const s = new BoundedSet(2);
    s.add('a');
    s.add('b');
    s.add('c');
    expect([s.has('a'), s.has('b'), s.has('c')]).toEqual([false, true, true]);
  });

  it('keeps what a first-in-first-out set of that size keeps, in that order, whatever is added', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }), (max, adds) => {
        const s = new BoundedSet(max);
        const model: string[] = [];
        for (const n of adds) {
          const k = `k${n}`;
          s.add(k);
          if (!model.includes(k)) model.push(k);
          if (model.length > max) model.shift();
          expect([...s.values()]).toEqual(model);
        }
        for (let n = 0; n <= 20; n++) expect(s.has(`k${n}`)).toBe(model.includes(`k${n}`));
      }),
    );
  });
});

describe('BoundedMap', () => {
  it('forgets the least recently set entry beyond its size: setting a key again makes it the newest', () => {
    const m = new BoundedMap<string>(2);
    m.set('a', '1');
    m.set('b', '2');
    m.set('a', '3');
    m.set('c', '4');
    expect([m.get('a'), m.get('b'), m.get('c'), m.size]).toEqual(['3', undefined, '4', 2]);
    m.clear();
    expect([m.get('a'), m.size]).toEqual([undefined, 0]);
  });

  type Op = { set: number; value: number } | { delete: number } | { clear: true };
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 8, arbitrary: fc.record({ set: fc.integer({ min: 0, max: 12 }), value: fc.integer() }) },
    { weight: 2, arbitrary: fc.record({ delete: fc.integer({ min: 0, max: 12 }) }) },
    { weight: 1, arbitrary: fc.constant({ clear: true as const }) },
  );

  it('answers, and evicts, as a least-recently-set map of that size does, through sets, deletes and clears', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 300 }), (max, ops) => {
        const evicted: string[] = [];
        const m = new BoundedMap<number>(max, (k, v) => evicted.push(`${k}=${v}`));
        const model = new Map<string, number>();
        const modelEvicted: string[] = [];
        for (const o of ops) {
          if ('set' in o) {
            const k = `k${o.set}`;
            m.set(k, o.value);
            model.delete(k);
            model.set(k, o.value);
            if (model.size > max) {
              const [oldest, v] = model.entries().next().value!;
              model.delete(oldest);
              modelEvicted.push(`${oldest}=${v}`);
            }
          } else if ('delete' in o) {
            m.delete(`k${o.delete}`);
            model.delete(`k${o.delete}`);
          } else {
            m.clear();
            model.clear();
          }
          expect(m.size).toBe(model.size);
          for (let n = 0; n <= 12; n++) expect(m.get(`k${n}`)).toBe(model.get(`k${n}`));
        }
        expect(evicted).toEqual(modelEvicted);
      }),
    );
  });

  it('keeps its queue of arrivals near its size however often one key is set again, and still evicts the least recently set', () => {
    const evicted: string[] = [];
    const m = new BoundedMap<number>(10, (k) => evicted.push(k));
    for (let n = 0; n < 10; n++) m.set(`k${n}`, n);
    for (let i = 0; i < 100_000; i++) m.set('k0', i);
    const queued = (m as unknown as { arrivals: { keys: string[] } }).arrivals.keys.length;
    expect(m.size).toBe(10);
    expect(queued).toBeLessThanOrEqual(2 * 10 + 64 + 1);
    for (let n = 0; n < 10; n++) m.set(`new${n}`, n);
    expect(evicted).toEqual(['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'k0']);
  });
});
