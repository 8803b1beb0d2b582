// amend() makes `{ ...base, ...changes }` without giving each object a hidden class of its own
// (src/core/amend.ts): checked on this V8 with its own test of maps.
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { amend } from '../../../src/core/amend.js';

setFlagsFromString('--allow-natives-syntax');
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

interface Order {
  id: string;
  status: string;
  venueId?: string;
}

describe('amend', () => {
  it('gives base with the changes on top, as a new object, and leaves base as it was', () => {
    const base: Order = { id: 'a', status: 'new' };
    const out = amend(base, { status: 'open', venueId: '7' });
    expect(out).toEqual({ id: 'a', status: 'open', venueId: '7' });
    expect(base).toEqual({ id: 'a', status: 'new' });
    expect(Object.keys(out)).toEqual(['id', 'status', 'venueId']);
  });

  it('objects it makes at one place share one hidden class, however many it makes', () => {
    const made = Array.from({ length: 50_000 }, (_, i) => amend({ id: `o${i}`, status: 'new' } as Order, { venueId: `${i}` }));
    expect(made.filter((o) => !sameMap(o, made[0]!))).toEqual([]);
  });
});
