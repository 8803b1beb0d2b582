import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { describeDrift, driftAt, driftOf, DriftWatch } from '../../../src/reconciler/drift.js';

const base = { market: 'spot' as const, name: 'BTC', symbols: ['BTCUSDT'], tolerance: d('0.001') };

describe('driftOf', () => {
  it('takes the baseline on the first check: what the account held before sluice is not drift', () => {
    const line = driftOf({ ...base, ours: d('0'), venue: d('2'), baseline: undefined });
    expect(line).toMatchObject({ baseline: '2', expected: '2', difference: '0', beyond: false });
  });

  it('expects baseline + our net fills; a fill we never saw is drift beyond tolerance', () => {
    expect(driftOf({ ...base, ours: d('0.00999'), venue: d('2.00999'), baseline: d('2') })).toMatchObject({ difference: '0', beyond: false });
    const line = driftOf({ ...base, ours: d('0.01'), venue: d('1.99'), baseline: d('2') });
    expect(line).toMatchObject({ expected: '2.01', difference: '-0.02', beyond: true });
    expect(describeDrift(line)).toBe('BTC balance on the venue is 1.99, our fills explain 2.01 (difference -0.02, tolerance 0.001)');
  });

  it('a difference equal to the tolerance is within it', () => {
    expect(driftOf({ ...base, ours: d('0'), venue: d('2.001'), baseline: d('2') }).beyond).toBe(false);
    expect(driftOf({ ...base, ours: d('0'), venue: d('1.9989'), baseline: d('2') }).beyond).toBe(true);
  });

  it('names a futures contract as a position', () => {
    const line = driftOf({ market: 'futures', name: 'E-BTC-USDT', symbols: ['E-BTC-USDT'], ours: d('3'), venue: d('5'), baseline: d('0'), tolerance: d('0') });
    expect(describeDrift(line)).toBe('E-BTC-USDT position on the venue is 5, our fills explain 3 (difference 2, tolerance 0)');
  });
});

describe('driftAt: a holdings read against the fills booked up to it', () => {
  const line = { ...base, baseline: d('2') };
  it('fills booked after the read answered are not in it: no drift', () => {
    // Our fills now explain +0.01 (two fills), but the venue took its figure before the second.
    const l = driftAt({ ...line, oursNow: d('0.01'), venue: d('2.004'), recent: [{ time: 100, delta: d('0.004') }, { time: 300, delta: d('0.006') }], from: 150, to: 200 });
    expect(l).toMatchObject({ difference: '0', beyond: false, expected: '2.004' });
  });

  it('a fill booked while the read was in flight may or may not be in it: either moment explains it', () => {
    const recent = [{ time: 175, delta: d('0.006') }];
    expect(driftAt({ ...line, oursNow: d('0.006'), venue: d('2'), recent, from: 150, to: 200 }).beyond).toBe(false);
    expect(driftAt({ ...line, oursNow: d('0.006'), venue: d('2.006'), recent, from: 150, to: 200 }).beyond).toBe(false);
  });

  it('a figure no moment of the span explains is drift, with the closest moment\'s difference', () => {
    const l = driftAt({ ...line, oursNow: d('0.006'), venue: d('2.01'), recent: [{ time: 175, delta: d('0.006') }], from: 150, to: 200 });
    expect(l).toMatchObject({ beyond: true, difference: '0.004' });
  });

  it('takes the baseline at the read\'s moment the first time', () => {
    const l = driftAt({ ...base, baseline: undefined, oursNow: d('0.5'), venue: d('3'), recent: [{ time: 300, delta: d('0.5') }], from: 100, to: 200 });
    expect(l).toMatchObject({ baseline: '3', difference: '0', beyond: false });
  });
});

describe('DriftWatch', () => {
  const beyond = [driftOf({ ...base, ours: d('0'), venue: d('1'), baseline: d('2') })];
  const within = [driftOf({ ...base, ours: d('0'), venue: d('2'), baseline: d('2') })];

  it('acts on the first judged drift, once, and clears when a judged read agrees again', () => {
    const watch = new DriftWatch();
    expect(watch.observe(within)).toBe('clear');
    expect(watch.observe(beyond)).toBe('act');
    expect(watch.observe(beyond)).toBe('wait');
    expect(watch.observe(within)).toBe('clear');
    expect(watch.observe(beyond)).toBe('act');
  });
});

// Appended with the engine split: the operator's alert text for a judged drift.
import { driftAlert } from '../../../src/reconciler/drift.js';

describe('driftAlert', () => {
  it('names every line given and what trading does until the drift is resolved', () => {
    const spot = driftOf({ ...base, ours: d('0.01'), venue: d('1.99'), baseline: d('2') });
    const futures = driftOf({ market: 'futures', name: 'E-BTC-USDT', symbols: ['E-BTC-USDT'], ours: d('3'), venue: d('5'), baseline: d('0'), tolerance: d('0') });
    expect(driftAlert([spot, futures], 'reduce_only')).toBe(
      'position drift: BTC balance on the venue is 1.99, our fills explain 2.01 (difference -0.02, tolerance 0.001); ' +
        'E-BTC-USDT position on the venue is 5, our fills explain 3 (difference 2, tolerance 0); trading is reduce_only until it is resolved',
    );
  });

  it('says the mode in force, one line alone', () => {
    const line = driftOf({ ...base, ours: d('0'), venue: d('2.5'), baseline: d('2') });
    expect(driftAlert([line], 'halted')).toBe('position drift: BTC balance on the venue is 2.5, our fills explain 2 (difference 0.5, tolerance 0.001); trading is halted until it is resolved');
  });
});
