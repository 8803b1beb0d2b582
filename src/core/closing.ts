// What one order can close of a position: the rule the protective exits use to close a
// strategy's position (engine/exit-monitor.ts) and ctx.isFlat() uses to call it flat, written
// once. Spot: a SELL of what the fills left held (netQuantity, less a buy's base-coin fee),
// rounded down to the symbol's step, at least the symbol's minimum (marketSellMin, else
// limitVolumeMin). Futures: a CLOSE of its whole contracts on the other side, at least
// limitVolumeMin.
import { dec, ONE, type Decimal } from './decimal.js';
import type { SymbolInfo } from './market.js';
import type { Market, StrategyPosition } from './types.js';

/** Caps a close's volume (in `places` decimals of a unit of `unit` base) at what one order may be worth; none by default. */
export type CloseCap = (unit: Decimal, places: number, volume: Decimal) => Decimal;

/**
 * The order that closes `pos` in `info`'s symbol, or why there is none: flat, short on spot,
 * below the step or the symbol's minimum. `cap` may make it a part of the position.
 */
export function closingOrder(market: Market, info: SymbolInfo, pos: StrategyPosition, cap: CloseCap = (_u, _p, v) => v): { side: 'BUY' | 'SELL'; volume: Decimal } | string {
  if (market === 'spot') {
    if (!dec.isPositive(pos.quantity)) return 'nothing held';
    const volume = cap(ONE, info.quantityPrecision, dec.truncate(pos.netQuantity, info.quantityPrecision));
    if (!dec.isPositive(volume)) return `holds ${pos.netQuantity}, below the step of ${info.quantityPrecision} decimals`;
    const min = info.marketSellMin ?? info.limitVolumeMin;
    if (min !== undefined && dec.lt(volume, min)) return `${volume} is below ${info.symbol}'s minimum ${min}`;
    return { side: 'SELL', volume };
  }
  const volume = cap(info.multiplier ?? ONE, 0, dec.truncate(dec.abs(pos.quantity), 0));
  if (!dec.isPositive(volume)) return 'flat';
  if (info.limitVolumeMin !== undefined && dec.lt(volume, info.limitVolumeMin)) return `${volume} contracts is below ${info.symbol}'s minimum ${info.limitVolumeMin}`;
  return { side: dec.isPositive(pos.quantity) ? 'SELL' : 'BUY', volume };
}

/** No order can close the position: flat, or only dust below the step or the minimum is left (spot: judged on netQuantity). */
export function isFlatPosition(market: Market, info: SymbolInfo, pos: StrategyPosition): boolean {
  return typeof closingOrder(market, info, pos) === 'string';
}
