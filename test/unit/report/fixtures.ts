// Small hand-checkable inputs shared by the report tests.
import { d } from '../../../src/core/decimal.js';
import { fill, T0 } from '../../fixtures/builders.js';
import type { EquitySample, ReportInput } from '../../../src/report/index.js';

export { T0 };
export const DAY = 86_400_000;

export { fill };

export const sample = (at: number, equity: string, exposure = '0'): EquitySample => ({ at, equity: d(equity), exposure: d(exposure) });

export function emptyInput(over: Partial<ReportInput> = {}): ReportInput {
  return {
    startedAt: T0,
    endedAt: T0 + 3 * DAY,
    startingEquity: d('1000'),
    quoteAsset: 'USDT',
    fills: [],
    equity: [],
    orders: { sent: 0, cancelsSent: 0, accepted: 0, rejected: 0, unknown: 0, riskRejected: 0 },
    limiter: {},
    strategies: [],
    ...over,
  };
}

/**
 * A BTC round trip that wins 10 (fees 0.1 + 0.11 USDT), an ETH short round trip that loses 8
 * (fees 0.05 USDT and 0.002 BNB), then a BTC buy left open. Equity over four days:
 * 1000 -> 1100 -> 990 -> 1089, exposed from day 1 to day 3.
 */
export function tradedInput(): ReportInput {
  return emptyInput({
    fills: [
      fill('BUY', '1', '100', { tradeId: 'b1', time: T0 + 1000, fee: d('0.1') }),
      fill('SELL', '1', '110', { tradeId: 'b2', time: T0 + 2000, fee: d('0.11') }),
      fill('SELL', '2', '50', { tradeId: 'e1', symbol: 'ETHUSDT', time: T0 + 3000, fee: d('0.05') }),
      fill('BUY', '2', '54', { tradeId: 'e2', symbol: 'ETHUSDT', time: T0 + 4000, fee: d('0.002'), feeAsset: 'BNB' }),
      fill('BUY', '0.5', '120', { tradeId: 'b3', time: T0 + 5000 }),
    ],
    equity: [sample(T0, '1000'), sample(T0 + DAY, '1100', '100'), sample(T0 + 2 * DAY, '990', '100'), sample(T0 + 3 * DAY, '1089')],
    orders: { sent: 7, cancelsSent: 0, accepted: 5, rejected: 1, unknown: 1, riskRejected: 2 },
    limiter: {
      'spot.order': { requests: 40, limit: 100, peakInWindow: 25, waitedMs: 1200 },
      account: { requests: 5, limit: 20, peakInWindow: 2, waitedMs: 30 },
    },
    strategies: ['grid', 'mm'],
    tape: 'tapes/btc-2024-01.jsonl',
    config: { venue: 'sim', risk: { maxPosition: '2', killSwitch: 'off' } },
  });
}

/** Every number in the value is finite (JSON would silently turn NaN into null). */
export function finiteNumbers(value: unknown, path = '$'): string[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => finiteNumbers(v, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => finiteNumbers(v, `${path}.${k}`));
  return [];
}
