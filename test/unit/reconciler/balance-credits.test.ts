// What fills booked after the last spot account read move in the balances risk judges: only those
// the read cannot show (booked after it was answered), each once, locked never below zero.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { SymbolInfo } from '../../../src/core/market.js';
import type { Balance, Fill } from '../../../src/core/types.js';
import { BalanceCredits } from '../../../src/reconciler/balance-credits.js';

const info: SymbolInfo = { symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', pricePrecision: 2, quantityPrecision: 6 };
const fill = (over: Partial<Fill>): Fill => ({ tradeId: '1', market: 'spot', symbol: 'BTCUSDT', venueOrderId: '9' as VenueOrderId, side: 'BUY', price: d('100'), volume: d('0.5'), fee: d('0.001'), feeAsset: 'BTC', isMaker: true, time: 2000, ...over });
const read = new Map<string, Balance>([
  ['USDT', { asset: 'USDT', free: d('1000'), locked: d('30') }],
  ['BTC', { asset: 'BTC', free: d('0'), locked: d('0.2') }],
]);
const shown = (m: ReadonlyMap<string, Balance>) => Object.fromEntries([...m.values()].map((b) => [b.asset, `${b.free}/${b.locked}`]));

describe('BalanceCredits', () => {
  it('credits a buy booked after the read: the base less its fee into free, the quote out of locked (never below zero)', () => {
    const c = new BalanceCredits();
    c.read(1000);
    c.fill(fill({}), info);
    expect(shown(c.apply(read))).toEqual({ USDT: '1000/0', BTC: '0.499/0.2' });
  });

  it('leaves a fill booked up to the read\'s answer to the read, and forgets the credits at the next read', () => {
    const c = new BalanceCredits();
    c.read(2000);
    c.fill(fill({ time: 2000 }), info);
    expect(c.apply(read)).toBe(read);
    c.fill(fill({ time: 2001, tradeId: '2' }), info);
    expect(shown(c.apply(read)).BTC).toBe('0.499/0.2');
    c.read(3000);
    expect(c.apply(read)).toBe(read);
  });

  it('credits a sell in the quote, its fee out of the coin it was paid in (a third one too), and ignores futures', () => {
    const c = new BalanceCredits();
    c.read(1000);
    c.fill(fill({ side: 'SELL', volume: d('0.1'), fee: d('0.02'), feeAsset: 'USDT' }), info);
    c.fill(fill({ side: 'SELL', volume: d('0.1'), fee: d('0.5'), feeAsset: 'FEECOIN', tradeId: '2' }), info);
    c.fill(fill({ market: 'futures', symbol: 'E-BTC-USDT', tradeId: '3' }), info);
    expect(shown(c.apply(read))).toEqual({ USDT: '1019.98/30', BTC: '0/0', FEECOIN: '-0.5/0' });
  });

  it('credits nothing before the first read, nor for a symbol it has no instrument for', () => {
    const c = new BalanceCredits();
    c.fill(fill({ time: 10 ** 15 }), info);
    expect(c.apply(read)).toBe(read);
    c.read(1000);
    c.fill(fill({}), undefined);
    expect(c.apply(read)).toBe(read);
  });
});
