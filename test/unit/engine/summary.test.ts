// The daemon's summary line: money as people read it (8 places), positions as the fills made them.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { Journal, Pacer } from '../../../src/core/ports.js';
import { summarize } from '../../../src/engine/summary.js';
import { PositionBook } from '../../../src/positions/index.js';
import { fill } from '../../fixtures/builders.js';

/** Only what summarize reads; a hand-written fake, not a mock of the journal. */
const journal = { orders: () => [] } as unknown as Journal;
const pacer = { usage: () => ({ 'spot.order': { inWindow: 3, limit: 100, queued: 0 } }) } as unknown as Pacer;

function summaryOf(...fills: ReturnType<typeof fill>[]) {
  const positions = new PositionBook();
  for (const f of fills) positions.apply(f);
  return summarize({ journal, positions, pacer, pipeline: { sent: 4, cancelsSent: 0, accepted: 4, rejected: 0, unknown: 0, expired: 0, intentToWire: [] }, engine: { fills: fills.length, riskRejections: 0 }, disabled: [] });
}

describe('summarize', () => {
  it.each([
    // An average entry of 300.02/3 leaves 100.02 - 100.00666... = 0.01333... to 30 places in the book.
    ['an average entry over two buys', [fill('BUY', '1', '100'), fill('BUY', '2', '100.01'), fill('SELL', '1', '100.02')], '0.01333333', '0', { 'spot:BTCUSDT': '2' }],
    // 0.001 x (30000.05 - 90.00005/0.003)
    ['a small close', [fill('BUY', '0.001', '30000.01'), fill('BUY', '0.002', '30000.02'), fill('SELL', '0.001', '30000.05', { fee: d('0.000030000050001') })], '0.00003333', '0.00003', { 'spot:BTCUSDT': '0.002' }],
    ['whole figures stay whole', [fill('BUY', '1', '100'), fill('SELL', '1', '110', { fee: d('0.11') })], '10', '0.11', {}],
  ])('%s: realised PnL and fees to 8 places, positions as the fills made them', (_what, fills, realizedPnl, fees, positions) => {
    const s = summaryOf(...fills);
    expect(s).toMatchObject({ realizedPnl, fees, positions, fills: fills.length, limiter: { 'spot.order': '3/100' } });
  });

  it('a loss rounds the same way', () => {
    // Long 3 at 300.02/3 = 100.00666..., one sold at 99.9: the book holds -0.10666... to 30 places.
    const fills = [fill('BUY', '1', '100'), fill('BUY', '2', '100.01'), fill('SELL', '1', '99.9')];
    const book = new PositionBook();
    for (const f of fills) book.apply(f);
    expect(book.position('spot', 'BTCUSDT').realizedPnl).toMatch(/^-0\.10666666666666666666\d+$/);
    expect(summaryOf(...fills)['realizedPnl']).toBe('-0.10666667');
  });
});
