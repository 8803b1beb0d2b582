import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { describeDrift, driftOf, DriftWatch } from '../../../src/reconciler/drift.js';

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

describe('DriftWatch', () => {
  const beyond = [driftOf({ ...base, ours: d('0'), venue: d('1'), baseline: d('2') })];
  const within = [driftOf({ ...base, ours: d('0'), venue: d('2'), baseline: d('2') })];

  it('acts only once drift has lasted the grace period, and clears as soon as it is gone', () => {
    const watch = new DriftWatch(10_000);
    expect(watch.observe(beyond, 1000)).toBe('wait');
    expect(watch.observe(beyond, 10_999)).toBe('wait');
    expect(watch.observe(beyond, 11_000)).toBe('act');
    expect(watch.observe(within, 12_000)).toBe('clear');
    // A new episode starts its own grace period.
    expect(watch.observe(beyond, 13_000)).toBe('wait');
  });

  it('a transient drift (a fill not shown yet) never acts', () => {
    const watch = new DriftWatch(5000);
    expect(watch.observe(beyond, 0)).toBe('wait');
    expect(watch.observe(within, 3000)).toBe('clear');
    expect(watch.observe(beyond, 4000)).toBe('wait');
    expect(watch.observe(beyond, 8999)).toBe('wait');
  });
});
