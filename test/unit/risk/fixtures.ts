// Builders for risk tests: a spot BTCUSDT / ETHBTC market and a futures contract, plain limits.
import { d, type Decimal } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { SymbolInfo } from '../../../src/core/market.js';
import type { CancelIntent, PlaceIntent } from '../../../src/core/types.js';
import type { RiskLimits, RiskOpenOrder, RiskSnapshot } from '../../../src/risk/index.js';

export const info = (symbol: string, baseAsset: string, quoteAsset: string): SymbolInfo => ({
  symbol,
  baseAsset,
  quoteAsset,
  pricePrecision: 2,
  quantityPrecision: 5,
  limitVolumeMin: d('0.00001'),
  limitPriceMin: d('0.01'),
});

export const LIMITS: RiskLimits = {
  maxPosition: { BTCUSDT: d('1') },
  maxOpenOrders: 3,
  maxNotionalPerOrder: d('10000'),
  maxNotionalPerMinute: d('25000'),
  priceBandPct: d('5'),
  maxOrdersPerSecond: 4,
  duplicateWindowMs: 1000,
  killSwitch: { mode: 'off' },
};

export function snapshot(over: {
  positions?: Record<string, string>;
  openOrders?: RiskOpenOrder[];
  balances?: Record<string, string>;
  lastPrices?: Record<string, string>;
  /** Listings by market:symbol, over the defaults below. */
  instruments?: Record<string, SymbolInfo>;
} = {}): RiskSnapshot {
  const map = (r: Record<string, string>) => new Map(Object.entries(r).map(([k, v]) => [k, d(v)] as [string, Decimal]));
  return {
    positions: map(over.positions ?? {}),
    openOrders: over.openOrders ?? [],
    balances: map(over.balances ?? { USDT: '100000', BTC: '2', ETH: '10' }),
    lastPrices: map(over.lastPrices ?? { 'spot:BTCUSDT': '20000', 'spot:ETHBTC': '0.05', 'futures:E-BTC-USDT': '20000' }),
    instruments: new Map([
      ['spot:BTCUSDT', info('BTCUSDT', 'BTC', 'USDT')],
      ['spot:ETHBTC', info('ETHBTC', 'ETH', 'BTC')],
      // Volumes are whole contracts of 0.001 BTC each.
      ['futures:E-BTC-USDT', { ...info('E-BTC-USDT', 'E-BTC-USDT', 'USDT'), quantityPrecision: 0, limitVolumeMin: d('1'), multiplier: d('0.001') }],
      ...Object.entries(over.instruments ?? {}),
    ]),
  };
}

let seq = 0;
/** A spot BTCUSDT limit buy by strategy `t` unless overridden. Volume and price are literals. */
export function place(volume: string, price: string | undefined, over: Partial<PlaceIntent> = {}): PlaceIntent {
  const id = `slt-${(++seq).toString(36)}` as ClientOrderId;
  const p: PlaceIntent = { kind: 'place', intentId: id, clientOrderId: id, strategyId: 't', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: volume as Decimal, ...over };
  if (price !== undefined) p.price = price as Decimal;
  return p;
}

export const sell = (volume: string, price: string | undefined, over: Partial<PlaceIntent> = {}) => place(volume, price, { side: 'SELL', ...over });
export const market = (side: 'BUY' | 'SELL', volume: string, over: Partial<PlaceIntent> = {}) => place(volume, undefined, { side, type: 'MARKET', ...over });

export function cancel(target: string, over: Partial<CancelIntent> = {}): CancelIntent {
  return { kind: 'cancel', intentId: `c-${++seq}`, strategyId: 't', market: 'spot', symbol: 'BTCUSDT', clientOrderId: target as ClientOrderId, ...over };
}

export const resting = (side: 'BUY' | 'SELL', remaining: string, over: Partial<RiskOpenOrder> = {}): RiskOpenOrder => ({
  strategyId: 't',
  market: 'spot',
  symbol: 'BTCUSDT',
  side,
  remaining: d(remaining),
  ...over,
});
