import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { buildReport } from '../../../src/report/index.js';
import { DAY, emptyInput, fill, finiteNumbers, sample, T0, tradedInput } from './fixtures.js';

describe('buildReport figures (hand-computed)', () => {
  const report = buildReport(tradedInput());

  it('PnL: final - starting equity, realised through the book, fees split by asset', () => {
    expect(report.pnl).toEqual({
      startingEquity: '1000',
      finalEquity: '1089',
      total: '89',
      totalPct: 8.9,
      realized: '2', // +10 on BTC, -8 on ETH
      fees: '0.26', // 0.1 + 0.11 + 0.05; the BNB fee is not converted
      realizedAfterFees: '1.74',
      reason: null,
    });
    expect(report.fees).toEqual({ quote: '0.26', otherAssets: { BNB: '0.002' } });
  });

  it('trades: fills, round trips, open lines, per symbol', () => {
    expect(report.trades).toMatchObject({ fills: 5, buys: 3, sells: 2, roundTrips: 2, openPositionsAtEnd: 1, ignored: { duplicates: 0, invalid: [] } });
    expect(report.trades.bySymbol).toEqual([
      { market: 'spot', symbol: 'BTCUSDT', fills: 3, realizedPnl: '10', fees: '0.21', openQuantity: '0.5' },
      { market: 'spot', symbol: 'ETHUSDT', fills: 2, realizedPnl: '-8', fees: '0.05', openQuantity: '0' },
    ]);
  });

  it('win rate: one winning and one losing closing fill', () => {
    expect(report.winRate).toEqual({ value: 0.5, closingFills: 2, winning: 1, losing: 1, breakeven: 0, reason: null });
  });

  it('max drawdown: 1100 at day 1 down to 990 at day 2 is 110, 10% of the peak', () => {
    expect(report.maxDrawdown).toEqual({
      amount: '110',
      pctOfPeak: 10,
      peakEquity: '1100',
      peakAt: T0 + DAY,
      troughEquity: '990',
      troughAt: T0 + 2 * DAY,
      reason: null,
    });
  });

  it('Sharpe: returns +10%, -10%, +10% daily give sqrt(3)/6 x sqrt(365)', () => {
    // mean 1/30, sample variance ((1/15)^2 x 2 + (2/15)^2) / 2 = 1/75, so mean/stdev = sqrt(3)/6.
    expect(report.sharpe.returns).toBe(3);
    expect(report.sharpe.meanReturn).toBeCloseTo(1 / 30, 12);
    expect(report.sharpe.stdevReturn).toBeCloseTo(1 / Math.sqrt(75), 12);
    expect(report.sharpe.sampleSpacingMs).toBe(DAY);
    expect(report.sharpe.periodsPerYear).toBe(365);
    expect(report.sharpe.value).toBeCloseTo(Math.sqrt(1095) / 6, 10);
    expect(report.sharpe.value).toBeCloseTo(5.5151, 4);
    expect(report.sharpe.reason).toBeNull();
  });

  it('exposure: exposed 2 of 3 days at 100, so the time-weighted average is 200/3', () => {
    expect(report.exposure).toEqual({
      timeShare: 2 / 3,
      averageValue: '66.666666666666666666666666666667',
      exposedMs: 2 * DAY,
      spanMs: 3 * DAY,
      reason: null,
    });
  });

  it('orders and rate limits, endpoints sorted by name', () => {
    expect(report.orders).toEqual({ sent: 7, accepted: 5, rejected: 1, unknown: 1, riskRejected: 2 });
    expect(report.rateLimits).toEqual({
      endpoints: [
        { endpoint: 'account', requests: 5, limit: 20, peakInWindow: 2, peakShareOfLimit: 0.1, waitedMs: 30 },
        { endpoint: 'spot.order', requests: 40, limit: 100, peakInWindow: 25, peakShareOfLimit: 0.25, waitedMs: 1200 },
      ],
      totalWaitedMs: 1230,
    });
  });

  it('period, tape, strategies and config (keys sorted)', () => {
    expect(report.period).toEqual({ startedAt: T0, endedAt: T0 + 3 * DAY, start: '2024-01-01T00:00:00.000Z', end: '2024-01-04T00:00:00.000Z', durationMs: 3 * DAY });
    expect(report.tape).toBe('tapes/btc-2024-01.jsonl');
    expect(report.strategies).toEqual(['grid', 'mm']);
    expect(JSON.stringify(report.config)).toBe('{"risk":{"killSwitch":"off","maxPosition":"2"},"venue":"sim"}');
  });
});

describe('buildReport definitions', () => {
  it('win rate counts closing fills: a breakeven partial close is counted but does not win', () => {
    const r = buildReport(emptyInput({ fills: [fill('BUY', '2', '100'), fill('SELL', '1', '100'), fill('SELL', '1', '90')] }));
    expect(r.winRate).toEqual({ value: 0, closingFills: 2, winning: 0, losing: 1, breakeven: 1, reason: null });
    expect(r.trades.roundTrips).toBe(1);
    expect(r.pnl.realized).toBe('-10');
  });

  it('a fill through zero completes a round trip and opens the next', () => {
    const r = buildReport(emptyInput({ fills: [fill('BUY', '1', '100'), fill('SELL', '2', '110'), fill('BUY', '1', '105')] }));
    expect(r.trades.roundTrips).toBe(2);
    expect(r.winRate).toMatchObject({ value: 1, closingFills: 2, winning: 2 });
    expect(r.pnl.realized).toBe('15'); // +10 long, +5 short
    expect(r.trades.openPositionsAtEnd).toBe(0);
  });

  it('a repeated trade id is applied once and reported as ignored', () => {
    const once = fill('BUY', '1', '100');
    const r = buildReport(emptyInput({ fills: [once, once, fill('SELL', '1', '101')] }));
    expect(r.trades.fills).toBe(2);
    expect(r.trades.ignored.duplicates).toBe(1);
    expect(r.pnl.realized).toBe('1');
  });

  it('drawdown counts a loss before the first sample from the starting equity', () => {
    const r = buildReport(emptyInput({ equity: [sample(T0 + DAY, '900'), sample(T0 + 2 * DAY, '950')] }));
    expect(r.maxDrawdown).toMatchObject({ amount: '100', pctOfPeak: 10, peakEquity: '1000', peakAt: T0, troughAt: T0 + DAY });
  });

  it('equity that only rises has a zero drawdown', () => {
    const r = buildReport(emptyInput({ equity: [sample(T0, '1000'), sample(T0 + DAY, '1001')] }));
    expect(r.maxDrawdown).toMatchObject({ amount: '0', pctOfPeak: 0, peakAt: null, troughAt: null });
  });

  it('equal returns give no Sharpe (zero deviation), not a float-noise giant', () => {
    const r = buildReport(emptyInput({ equity: [sample(T0, '1000'), sample(T0 + DAY, '1010'), sample(T0 + 2 * DAY, '1020.1')] }));
    expect(r.sharpe.value).toBeNull();
    expect(r.sharpe.reason).toMatch(/standard deviation is 0/);
  });

  it('rejects equity samples out of time order', () => {
    expect(() => buildReport(emptyInput({ equity: [sample(T0 + DAY, '1000'), sample(T0, '1000')] }))).toThrow(/time order/);
  });
});

describe('buildReport on empty inputs', () => {
  it('no fills and no samples: nulls with reasons, no NaN anywhere', () => {
    const r = buildReport(emptyInput());
    expect(finiteNumbers(r)).toEqual([]);
    expect(r.pnl).toMatchObject({ finalEquity: null, total: null, totalPct: null, realized: '0', fees: '0', realizedAfterFees: '0' });
    expect(r.pnl.reason).toMatch(/no equity samples/);
    expect(r.fees).toEqual({ quote: '0', otherAssets: {} });
    expect(r.trades).toMatchObject({ fills: 0, roundTrips: 0, openPositionsAtEnd: 0, bySymbol: [] });
    expect(r.winRate.value).toBeNull();
    expect(r.winRate.reason).toMatch(/no fill reduced/);
    expect(r.maxDrawdown.amount).toBeNull();
    expect(r.sharpe).toMatchObject({ value: null, returns: 0 });
    expect(r.exposure).toMatchObject({ timeShare: null, averageValue: null });
    expect(r.rateLimits).toEqual({ endpoints: [], totalWaitedMs: 0 });
    expect(r.tape).toBeNull();
    expect(r.config).toBeNull();
  });

  it('one sample: final equity known, time statistics null with reasons', () => {
    const r = buildReport(emptyInput({ equity: [sample(T0, '1000', '50')] }));
    expect(finiteNumbers(r)).toEqual([]);
    expect(r.pnl).toMatchObject({ finalEquity: '1000', total: '0', totalPct: 0, reason: null });
    expect(r.sharpe.value).toBeNull();
    expect(r.sharpe.reason).toMatch(/at least 3 equity samples/);
    expect(r.exposure.timeShare).toBeNull();
    expect(r.exposure.reason).toMatch(/at least 2 equity samples/);
    expect(r.maxDrawdown.amount).toBe('0');
  });

  it('a zero starting equity gives no percentage rather than a division by zero', () => {
    const r = buildReport(emptyInput({ startingEquity: d('0'), equity: [sample(T0, '0'), sample(T0 + DAY, '5')] }));
    expect(finiteNumbers(r)).toEqual([]);
    expect(r.pnl.totalPct).toBeNull();
    expect(r.pnl.total).toBe('5');
  });
});

describe('determinism', () => {
  it('two builds of the same input are the same bytes, whatever order records were written in', () => {
    const a = tradedInput();
    const b = tradedInput();
    b.limiter = { account: b.limiter['account']!, 'spot.order': b.limiter['spot.order']! };
    b.config = { risk: { killSwitch: 'off', maxPosition: '2' }, venue: 'sim' };
    expect(JSON.stringify(buildReport(b), null, 2)).toBe(JSON.stringify(buildReport(a), null, 2));
  });
});
