import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { durationText, MONEY_PLACES, shownAveragePrice, shownMoney, shownQuantity, shownStatistic } from '../../../src/core/display.js';

const BTCUSDT = { pricePrecision: 2, quantityPrecision: 5 };

describe('shownMoney: half-even to 8 places', () => {
  it.each([
    ['0.012173333333333333333333333333', '0.01217333'],
    ['-0.180455000000000000000000000000002', '-0.180455'],
    ['177.549144293317262727020141739617', '177.54914429'],
    ['0.000000005', '0'], // half to even: down to 0
    ['0.000000015', '0.00000002'], // half to even: up to 2
    ['-0.000000001', '0'], // no "-0"
    ['3.49138942', '3.49138942'],
    ['199998.8', '199998.8'],
    ['12', '12'],
  ])('%s -> %s', (exact, shown) => {
    expect(shownMoney(d(exact))).toBe(shown);
  });

  it('is 8 places', () => expect(MONEY_PLACES).toBe(8));
});

describe('shownQuantity: to the instrument quantity precision', () => {
  it.each([
    ['0.009', BTCUSDT, '0.009'],
    ['0.123456', BTCUSDT, '0.12346'],
    ['0.123455', BTCUSDT, '0.12346'], // half to even
    ['7', { pricePrecision: 1, quantityPrecision: 0 }, '7'],
    ['0.123456789', undefined, '0.123456789'], // no instrument: as it is (a sum of fill volumes)
  ])('%s with %j -> %s', (exact, info, shown) => {
    expect(shownQuantity(d(exact), info)).toBe(shown);
  });
});

describe('shownAveragePrice: the price precision plus 2 places, as the venue writes avgPrice', () => {
  it.each([
    ['30000.016666666666666666666666666667', BTCUSDT, '30000.0167'],
    ['30000.5', BTCUSDT, '30000.5'],
    ['100.006666666666666666666666666667', undefined, '100.00666667'],
    ['0', BTCUSDT, '0'],
  ])('%s with %j -> %s', (exact, info, shown) => {
    expect(shownAveragePrice(d(exact), info)).toBe(shown);
  });
});

describe('shownStatistic: 6 significant digits', () => {
  it.each([
    [0.35398230088495575, 0.353982],
    [-626.0485366314042, -626.049],
    [-1.217958331194076e-7, -1.21796e-7],
    [3155763.196336259, 3155760],
    [0, 0],
    [0.25, 0.25],
  ])('%d -> %d', (exact, shown) => {
    expect(shownStatistic(exact)).toBe(shown);
  });
});

describe('durationText: the largest unit that keeps it at least 1, 2 significant digits', () => {
  it.each([
    [9993.145251396649, '10 s'],
    [10_000, '10 s'],
    [1_788_773, '30 min'],
    [3_599_999.99, '1 h'],
    [86_400_000, '1 day'],
    [3 * 86_400_000, '3 days'],
    [7 * 86_400_000, '7 days'],
    [250, '250 ms'],
  ])('%d ms -> %s', (ms, text) => {
    expect(durationText(ms)).toBe(text);
  });
});
