import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { SHARPE_ANNUALISE_MIN_MS } from '../../../src/report/build.js';
import { buildReport, disabledLines, lossLimitLines, type EquitySample } from '../../../src/report/index.js';
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

  it('Sharpe over 3 days: returns +10%, -10%, +10% daily give sqrt(3)/6 per 1-day sample, not annualised (under 7 days)', () => {
    // mean 1/30, sample variance ((1/15)^2 x 2 + (2/15)^2) / 2 = 1/75, so mean/stdev = sqrt(3)/6.
    expect(report.sharpe).toEqual({
      value: 0.288675, // sqrt(3)/6 to 6 significant digits
      annualised: false,
      basis: 'per 1 day sample',
      notAnnualised: 'the samples span 3 days; Sharpe is annualised only over 7 days or more',
      returns: 3,
      meanReturn: 0.0333333,
      stdevReturn: 0.11547,
      sampleSpacingMs: DAY,
      spanMs: 3 * DAY,
      periodsPerYear: null,
      reason: null,
    });
  });

  it('exposure: exposed 2 of 3 days at 100, so the time-weighted average is 200/3', () => {
    expect(report.exposure).toEqual({
      timeShare: 0.666667,
      averageValue: '66.66666667', // 200/3, rounded to 8 places where it is written
      exposedMs: 2 * DAY,
      spanMs: 3 * DAY,
      reason: null,
    });
  });

  it('orders and rate limits, endpoints sorted by name', () => {
    expect(report.orders).toEqual({ sent: 7, cancelsSent: 0, accepted: 5, rejected: 1, unknown: 1, riskRejected: 2 });
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

describe('figures are rounded where they are written (money to 8 places, statistics to 6 significant digits)', () => {
  // An average entry of 300.02/3 = 100.00666... makes the book's realised PnL a 30-place quotient.
  const input = emptyInput({
    fills: [
      fill('BUY', '1', '100', { tradeId: 'r1', time: T0 + 100, fee: d('0.1') }),
      fill('BUY', '2', '100.01', { tradeId: 'r2', time: T0 + 200, fee: d('0.200020001') }),
      fill('SELL', '1', '100.02', { tradeId: 'r3', time: T0 + 300, fee: d('0.100020003'), feeAsset: 'USDT' }),
      fill('BUY', '0.5', '100', { tradeId: 'r4', symbol: 'ETHUSDT', time: T0 + 400, fee: d('0.000000123456'), feeAsset: 'ETH' }),
    ],
    equity: [
      sample(T0, '1000', '0'),
      sample(T0 + 1000, '999.613293329333333333333333333333', '200.04'),
      sample(T0 + 2000, '999.5', '200.05'),
      sample(T0 + 4000, '999.613293329333333333333333333333', '200.05'),
    ],
  });
  const report = buildReport(input);

  it.each([
    ['pnl.realized', report.pnl.realized, '0.01333333'], // exactly 0.013333333333333333333333333333
    ['pnl.fees', report.pnl.fees, '0.40004'], // exactly 0.400040004
    ['pnl.realizedAfterFees', report.pnl.realizedAfterFees, '-0.38670667'],
    ['pnl.finalEquity', report.pnl.finalEquity, '999.61329333'],
    ['pnl.total', report.pnl.total, '-0.38670667'],
    ['fees.quote', report.fees.quote, '0.40004'],
    ['fees.otherAssets.ETH', report.fees.otherAssets['ETH'], '0.00000012'],
    ['trades.bySymbol[BTCUSDT].realizedPnl', report.trades.bySymbol[0]!.realizedPnl, '0.01333333'],
    ['trades.bySymbol[BTCUSDT].fees', report.trades.bySymbol[0]!.fees, '0.40004'],
    ['trades.bySymbol[BTCUSDT].openQuantity', report.trades.bySymbol[0]!.openQuantity, '2'],
    ['maxDrawdown.amount', report.maxDrawdown.amount, '0.5'],
    ['maxDrawdown.troughEquity', report.maxDrawdown.troughEquity, '999.5'],
    // (0 x 1000 + 200.04 x 1000 + 200.05 x 2000) / 4000 = 150.035
    ['exposure.averageValue', report.exposure.averageValue, '150.035'],
  ])('%s is %s', (_path, value, shown) => {
    expect(value).toBe(shown);
  });

  it('percentages stay at 6 places and statistics at 6 significant digits', () => {
    expect(report.pnl.totalPct).toBe(-0.038671); // -0.0386706670666...
    expect(report.exposure.timeShare).toBe(0.75);
    expect(report.sharpe.meanReturn).toBe(Number(report.sharpe.meanReturn!.toPrecision(6)));
    expect(report.sharpe.value).toBe(Number(report.sharpe.value!.toPrecision(6)));
  });

  it('no decimal in the report has more than 8 places', () => {
    const long: string[] = [];
    const walk = (v: unknown, path: string): void => {
      if (typeof v === 'string' && /^-?\d+\.\d{9,}$/.test(v)) long.push(`${path}: ${v}`);
      else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
      else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    };
    walk(report, '$');
    expect(long).toEqual([]);
  });
});

describe('Sharpe: annualised only over at least 7 days (SHARPE_ANNUALISE_MIN_MS), per sample period otherwise', () => {
  /** Equity every `spacingMs` over `spanMs`, wobbling so returns differ; the last sample at exactly `spanMs`. */
  const wobbling = (spacingMs: number, spanMs: number, lastAt = T0 + spanMs) => {
    const n = Math.round(spanMs / spacingMs);
    return Array.from({ length: n + 1 }, (_, i) => sample(i === n ? lastAt : T0 + i * spacingMs, (1000 + ((i * 7) % 5) * 0.25 + i * 0.01).toFixed(2)));
  };
  /** mean / sample stdev of the returns, in floats: the per-period Sharpe, checked independently. */
  const perPeriod = (samples: readonly EquitySample[]) => {
    const e = samples.map((s) => Number(s.equity));
    const r = e.slice(1).map((x, i) => (x - e[i]!) / e[i]!);
    const mean = r.reduce((a, x) => a + x, 0) / r.length;
    const sd = Math.sqrt(r.reduce((a, x) => a + (x - mean) ** 2, 0) / (r.length - 1));
    return mean / sd;
  };
  const near = (actual: number | null, expected: number) => expect(Math.abs(actual! / expected - 1)).toBeLessThan(1e-5);

  it('a 30-minute run of 10 s samples: per 10 s sample, labelled not annualised, no periods per year', () => {
    const samples = wobbling(10_000, 30 * 60_000);
    const s = buildReport(emptyInput({ equity: samples })).sharpe;
    expect(s).toMatchObject({ annualised: false, basis: 'per 10 s sample', notAnnualised: 'the samples span 30 min; Sharpe is annualised only over 7 days or more', returns: 180, sampleSpacingMs: 10_000, spanMs: 1_800_000, periodsPerYear: null, reason: null });
    near(s.value, perPeriod(samples));
  });

  it('a 10-day run of hourly samples: annualised by sqrt(8760)', () => {
    const samples = wobbling(3_600_000, 10 * DAY);
    const s = buildReport(emptyInput({ equity: samples })).sharpe;
    expect(s).toMatchObject({ annualised: true, basis: 'annualised', notAnnualised: null, returns: 240, sampleSpacingMs: 3_600_000, spanMs: 10 * DAY, periodsPerYear: 8760, reason: null });
    near(s.value, perPeriod(samples) * Math.sqrt(8760));
  });

  it.each([
    ['exactly 7 days', 7 * DAY, true],
    ['7 days less 1 ms', 7 * DAY - 1, false],
    ['1 day', DAY, false],
    ['30 days', 30 * DAY, true],
  ])('spanning %s (%i ms): annualised %s', (_what, spanMs, annualised) => {
    const samples = wobbling(3_600_000, Math.ceil(spanMs / 3_600_000) * 3_600_000, T0 + spanMs);
    const s = buildReport(emptyInput({ equity: samples })).sharpe;
    expect(s.spanMs).toBe(spanMs);
    expect(s.annualised).toBe(annualised);
    expect(s.basis).toBe(annualised ? 'annualised' : 'per 1 h sample');
    expect(SHARPE_ANNUALISE_MIN_MS).toBe(7 * DAY);
  });

  it('no Sharpe: no basis and no label either', () => {
    const s = buildReport(emptyInput({ equity: [sample(T0, '1000'), sample(T0 + DAY, '1001')] })).sharpe;
    expect(s).toMatchObject({ value: null, annualised: false, basis: null, notAnnualised: null });
  });
});

describe('strategies disabled during the run', () => {
  const disabled = [
    { strategy: 'grid', at: T0 + 90_000, reason: 'onTick threw: bug in my requote (at /p/grid.ts:14:9)', openOrders: 'cancel' as const },
    { strategy: 'mm', at: T0 + 2 * 3_600_000, reason: 'onFill did not finish within 10000 ms (engine.handlerTimeoutMs); nothing waits for it any more', openOrders: 'leave' as const },
  ];

  it('are listed last, with when (epoch ms and ISO), why and what became of their orders; one line each for people', () => {
    const r = buildReport(emptyInput({ disabled }));
    expect(Object.keys(r).at(-1)).toBe('disabledStrategies');
    expect(r.disabledStrategies).toEqual([
      { strategy: 'grid', at: T0 + 90_000, time: new Date(T0 + 90_000).toISOString(), reason: 'onTick threw: bug in my requote (at /p/grid.ts:14:9)', openOrders: 'cancelled' },
      { strategy: 'mm', at: T0 + 7_200_000, time: new Date(T0 + 7_200_000).toISOString(), reason: disabled[1]!.reason, openOrders: 'left resting' },
    ]);
    expect(disabledLines(r)).toEqual([
      `strategy grid was disabled at ${new Date(T0 + 90_000).toISOString()} (1.5 min into the run): onTick threw: bug in my requote (at /p/grid.ts:14:9); its open orders were cancelled (engine.onStrategyFailure)`,
      `strategy mm was disabled at ${new Date(T0 + 7_200_000).toISOString()} (2 h into the run): onFill did not finish within 10000 ms (engine.handlerTimeoutMs); nothing waits for it any more; its open orders were left resting (engine.onStrategyFailure)`,
    ]);
  });

  it('leave no trace in the report of a run where none was: the same bytes as before', () => {
    const healthy = buildReport(tradedInput());
    expect(JSON.stringify(buildReport({ ...tradedInput(), disabled: [] }))).toBe(JSON.stringify(healthy));
    expect('disabledStrategies' in healthy).toBe(false);
    expect(disabledLines(healthy)).toEqual([]);
  });
});

describe('strategies that hit their daily loss limit', () => {
  it('are listed in the report, one line each; a run where none did has no trace of it', () => {
    const r = buildReport({ ...tradedInput(), lossLimitHits: [{ strategy: 'grid', day: '2026-01-01', pnl: '-10.42' }] });
    expect(r.lossLimitHits).toEqual([{ strategy: 'grid', day: '2026-01-01', pnl: '-10.42' }]);
    expect(lossLimitLines(r)).toEqual(["strategy grid hit its daily loss limit on 2026-01-01 (UTC; the day's PnL -10.42): it opened nothing more that day (strategies[].lossLimit)"]);
    const none = buildReport({ ...tradedInput(), lossLimitHits: [] });
    expect(JSON.stringify(none)).toBe(JSON.stringify(buildReport(tradedInput())));
    expect(lossLimitLines(none)).toEqual([]);
  });

  it("round the day's PnL as money is shown (8 places): it measures the open position at a 30-place average entry", () => {
    const r = buildReport({ ...tradedInput(), lossLimitHits: [{ strategy: 'grid', day: '2026-01-01', pnl: '-10.416666666666666666666666666667' }] });
    expect(r.lossLimitHits).toEqual([{ strategy: 'grid', day: '2026-01-01', pnl: '-10.41666667' }]);
    expect(lossLimitLines(r)[0]).toContain("(UTC; the day's PnL -10.41666667)");
  });
});
