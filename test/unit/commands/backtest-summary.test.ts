// The one line `sluice backtest` prints: money as the report wrote it, and Sharpe saying what it is.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { summaryLine } from '../../../src/commands/backtest.js';
import { buildReport } from '../../../src/report/index.js';
import { DAY, emptyInput, fill, sample, T0 } from '../report/fixtures.js';

/** Equity every `spacingMs` over `spanMs`, wobbling so returns differ. */
const wobbling = (spacingMs: number, spanMs: number) =>
  Array.from({ length: spanMs / spacingMs + 1 }, (_, i) => sample(T0 + i * spacingMs, (1000 + ((i * 7) % 5) * 0.25 + i * 0.01).toFixed(2)));

describe('summaryLine', () => {
  it('a 30-minute run: money to 8 places, Sharpe per 10 s sample and labelled not annualised', () => {
    const equity = [...wobbling(10_000, 30 * 60_000).slice(0, -1), sample(T0 + 30 * 60_000, '1001.800000012345')];
    // 300.02/3 = 100.00666... held, one sold at 99.9: realised -0.10666... to 30 places; fees 0.100000004 + 0.2.
    const fills = [fill('BUY', '1', '100', { fee: d('0.100000004') }), fill('BUY', '2', '100.01', { fee: d('0.2') }), fill('SELL', '1', '99.9')];
    const line = summaryLine(buildReport(emptyInput({ equity, fills })));
    expect(line).toMatch(/^pnl 1\.80000001 USDT \(0\.18%\), fees 0\.3, fills 3, win rate 0\.0%, max drawdown 0\.[\d]{1,8}, sharpe -?\d+\.\d{3} per 10 s sample \(not annualised: 30 min of samples, under 7 days\), orders sent 0 \(and 0 cancels\)$/);
    expect(line).not.toMatch(/\d\.\d{9,}/);
  });

  it('fees say the whole cost: the quote\'s, then a spot buy\'s fee taken in the base coin beside them', () => {
    const fills = [fill('BUY', '1', '100', { fee: d('0.001'), feeAsset: 'BTC' }), fill('SELL', '0.999', '101', { fee: d('0.202') })];
    expect(summaryLine(buildReport(emptyInput({ fills })))).toMatch(/, fees 0\.202 USDT \+ 0\.001 BTC, fills 2, /);
  });

  it('a 10-day run: Sharpe annualised', () => {
    const r = buildReport(emptyInput({ equity: wobbling(3_600_000, 10 * DAY) }));
    expect(summaryLine(r)).toMatch(/, sharpe -?\d+\.\d{3} annualised, orders sent 0 \(and 0 cancels\)$/);
  });

  it('no samples: dashes, not "null"', () => {
    expect(summaryLine(buildReport(emptyInput()))).toBe('pnl - USDT (-%), fees 0, fills 0, win rate -, max drawdown -, sharpe -, orders sent 0 (and 0 cancels)');
  });
});

describe('summaryLine of a run in which a strategy was disabled', () => {
  it('says so first, naming it; the lines after it say when and why', () => {
    const one = { strategy: 'grid', at: T0 + 10_000, reason: 'onTick threw: x', openOrders: 'cancel' as const };
    expect(summaryLine(buildReport(emptyInput({ disabled: [one] })))).toBe('strategy grid disabled during the run; pnl - USDT (-%), fees 0, fills 0, win rate -, max drawdown -, sharpe -, orders sent 0 (and 0 cancels)');
    expect(summaryLine(buildReport(emptyInput({ disabled: [one, { ...one, strategy: 'mm' }] })))).toMatch(/^strategies grid, mm disabled during the run; pnl /);
  });
});
