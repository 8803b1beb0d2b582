// The one rule for "what one order can close" (core/closing.ts): protective exits close by it,
// ctx.isFlat() calls a position flat by it.
import { describe, expect, it } from 'vitest';
import { closingOrder, isFlatPosition } from '../../../src/core/closing.js';
import { d } from '../../../src/core/decimal.js';
import type { SymbolInfo } from '../../../src/core/market.js';
import type { Market, StrategyPosition } from '../../../src/core/types.js';
import { BTCUSDT, EBTC } from '../../fixtures/engine-parts.js';

const pos = (market: Market, symbol: string, quantity: string, netQuantity = quantity): StrategyPosition => ({ market, symbol, quantity: d(quantity), netQuantity: d(netQuantity), avgEntryPrice: d('100'), realizedPnl: d('0'), fees: d('0'), otherFees: {}, unbookedQuantity: d('0') });
const LOT: SymbolInfo = { ...BTCUSDT, limitVolumeMin: d('0.001'), marketSellMin: d('0.0005') };

describe('closingOrder / isFlatPosition', () => {
  it('spot: sells netQuantity rounded down to the step; nothing held or a short is flat', () => {
    expect(closingOrder('spot', BTCUSDT, pos('spot', 'BTCUSDT', '0.01', '0.00998'))).toEqual({ side: 'SELL', volume: '0.00998' });
    expect(closingOrder('spot', BTCUSDT, pos('spot', 'BTCUSDT', '0.01', '0.009987'))).toEqual({ side: 'SELL', volume: '0.00998' });
    expect(isFlatPosition('spot', BTCUSDT, pos('spot', 'BTCUSDT', '0'))).toBe(true);
    expect(isFlatPosition('spot', BTCUSDT, pos('spot', 'BTCUSDT', '-0.01'))).toBe(true);
  });

  it('spot: dust below the step, or below the minimum (marketSellMin before limitVolumeMin), is flat; one lot is not', () => {
    // quantity 0.00001 bought, its fee taken in BTC: netQuantity under one step of 5 decimals.
    expect(closingOrder('spot', BTCUSDT, pos('spot', 'BTCUSDT', '0.00001', '0.0000098'))).toBe('holds 0.0000098, below the step of 5 decimals');
    expect(isFlatPosition('spot', BTCUSDT, pos('spot', 'BTCUSDT', '0.00001', '0.0000098'))).toBe(true);
    expect(isFlatPosition('spot', BTCUSDT, pos('spot', 'BTCUSDT', '0.00001'))).toBe(false);
    expect(closingOrder('spot', LOT, pos('spot', 'BTCUSDT', '0.0005', '0.00049'))).toBe("0.00049 is below BTCUSDT's minimum 0.0005");
    expect(isFlatPosition('spot', LOT, pos('spot', 'BTCUSDT', '0.0005'))).toBe(false);
    expect(isFlatPosition('spot', { ...LOT, marketSellMin: undefined }, pos('spot', 'BTCUSDT', '0.0005'))).toBe(true);
    expect(isFlatPosition('spot', { ...LOT, marketSellMin: undefined }, pos('spot', 'BTCUSDT', '0.001'))).toBe(false);
  });

  it('futures: whole contracts on the other side, fewer than limitVolumeMin is flat', () => {
    expect(closingOrder('futures', EBTC, pos('futures', 'E-BTC-USDT', '3'))).toEqual({ side: 'SELL', volume: '3' });
    expect(closingOrder('futures', EBTC, pos('futures', 'E-BTC-USDT', '-2'))).toEqual({ side: 'BUY', volume: '2' });
    expect(isFlatPosition('futures', EBTC, pos('futures', 'E-BTC-USDT', '0'))).toBe(true);
    expect(isFlatPosition('futures', EBTC, pos('futures', 'E-BTC-USDT', '1'))).toBe(false);
    expect(isFlatPosition('futures', EBTC, pos('futures', 'E-BTC-USDT', '-1'))).toBe(false);
    expect(isFlatPosition('futures', { ...EBTC, limitVolumeMin: d('5') }, pos('futures', 'E-BTC-USDT', '4'))).toBe(true);
    expect(isFlatPosition('futures', { ...EBTC, limitVolumeMin: d('5') }, pos('futures', 'E-BTC-USDT', '-5'))).toBe(false);
  });

  it('a cap makes the close a part of the position', () => {
    const half = (_u: unknown, _p: number, v: ReturnType<typeof d>) => (v === '3' ? d('1') : v);
    expect(closingOrder('futures', EBTC, pos('futures', 'E-BTC-USDT', '3'), half)).toEqual({ side: 'SELL', volume: '1' });
  });
});
