// Market data and instrument facts, as sluice uses them (decoded, decimals as strings).
import type { Decimal } from './decimal.js';
import type { Side } from './types.js';

export interface SymbolInfo {
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  pricePrecision: number;
  quantityPrecision: number;
  /** Absent where the venue lists the older subset of fields (the notes: YY/GB). */
  limitVolumeMin?: Decimal;
  limitPriceMin?: Decimal;
  marketBuyMin?: Decimal;
  marketSellMin?: Decimal;
  /** Futures: base quantity per contract (volumes are contracts); absent for spot (1). */
  multiplier?: Decimal;
}

export type Level = readonly [price: Decimal, quantity: Decimal];

export interface Depth {
  time: number;
  /** Best first. */
  bids: Level[];
  asks: Level[];
}

export interface Ticker {
  high: Decimal;
  low: Decimal;
  last: Decimal;
  vol: Decimal;
  /** Best bid and best ask. */
  buy: Decimal;
  sell: Decimal;
  /** Fractional change: 0.05 is +5%. */
  rose: Decimal;
  time: number;
}

export interface PublicTrade {
  price: Decimal;
  qty: Decimal;
  time: number;
  side: Side;
}

export interface Kline {
  /** Open time in ms. */
  openTime: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  vol: Decimal;
}

export type KlineInterval = '1min' | '5min' | '15min' | '30min' | '60min' | '1h' | '4h' | '1day' | '1week' | '1month';
