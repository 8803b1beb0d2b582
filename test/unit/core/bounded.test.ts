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
});
