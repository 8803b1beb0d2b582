// Instruments the simulator lists: spot symbols with the notes' precision and minimum fields,
// and linear perpetual futures contracts. Each also carries the synthetic market's settings.
import { d, type Decimal } from '../core/decimal.js';
import { toUnits } from './units.js';

export interface MarketShape {
  /** Starting mid price. */
  startPrice: Decimal;
  /** Random-walk step: standard size of one step's move, in ticks. */
  volatilityTicks: number;
  /** Distance from the mid to the best synthetic quote on each side, in ticks. */
  halfSpreadTicks: number;
  /** Distance between synthetic levels, in ticks. */
  levelStepTicks: number;
  /** Synthetic levels per side. */
  levels: number;
  /** Size of one synthetic level, in lots, drawn uniformly from this range. */
  levelLots: { min: number; max: number };
  /** Probability per market step that another participant trades at the top of the book. */
  tradeRate: number;
  /** Size of such a trade, in lots. */
  tradeLots: { min: number; max: number };
}

export interface SymbolSpec {
  /** Upper case, e.g. BTCUSDT. */
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  pricePrecision: number;
  quantityPrecision: number;
  limitVolumeMin: Decimal;
  limitPriceMin: Decimal;
  /** Minimum quote amount of a MARKET BUY. */
  marketBuyMin: Decimal;
  /** Minimum base quantity of a MARKET SELL. */
  marketSellMin: Decimal;
  market: MarketShape;
}

export interface ContractSpec {
  /** Upper case, e.g. E-BTC-USDT. */
  symbol: string;
  contractId: number;
  /** The spot symbol whose mid price this contract's synthetic market follows. */
  underlying: string;
  marginCoin: string;
  pricePrecision: number;
  /** Base quantity per contract. */
  multiplier: Decimal;
  minOrderVolume: Decimal;
  maxMarketVolume: Decimal;
  maxLimitVolume: Decimal;
  /** Leverage used for margin until POST /fapi/v1/edit_lever sets another for the contract. */
  leverage: number;
  market: Omit<MarketShape, 'startPrice'>;
}

export const DEFAULT_SYMBOLS: readonly SymbolSpec[] = [
  {
    symbol: 'BTCUSDT',
    baseAsset: 'BTC',
    quoteAsset: 'USDT',
    pricePrecision: 2,
    quantityPrecision: 5,
    limitVolumeMin: d('0.00001'),
    limitPriceMin: d('0.01'),
    marketBuyMin: d('5'),
    marketSellMin: d('0.00001'),
    market: {
      startPrice: d('30000'),
      volatilityTicks: 150,
      halfSpreadTicks: 50,
      levelStepTicks: 50,
      levels: 20,
      levelLots: { min: 1000, max: 200_000 },
      tradeRate: 0.3,
      tradeLots: { min: 100, max: 20_000 },
    },
  },
  {
    symbol: 'ETHUSDT',
    baseAsset: 'ETH',
    quoteAsset: 'USDT',
    pricePrecision: 2,
    quantityPrecision: 4,
    limitVolumeMin: d('0.0001'),
    limitPriceMin: d('0.01'),
    marketBuyMin: d('5'),
    marketSellMin: d('0.0001'),
    market: {
      startPrice: d('2000'),
      volatilityTicks: 20,
      halfSpreadTicks: 5,
      levelStepTicks: 5,
      levels: 20,
      levelLots: { min: 100, max: 100_000 },
      tradeRate: 0.3,
      tradeLots: { min: 10, max: 10_000 },
    },
  },
];

export const DEFAULT_CONTRACTS: readonly ContractSpec[] = [
  {
    symbol: 'E-BTC-USDT',
    contractId: 1,
    underlying: 'BTCUSDT',
    marginCoin: 'USDT',
    pricePrecision: 1,
    multiplier: d('0.001'),
    minOrderVolume: d('1'),
    maxMarketVolume: d('100000'),
    maxLimitVolume: d('100000'),
    leverage: 10,
    market: { volatilityTicks: 0, halfSpreadTicks: 5, levelStepTicks: 5, levels: 20, levelLots: { min: 10, max: 2000 }, tradeRate: 0.3, tradeLots: { min: 1, max: 50 } },
  },
  {
    symbol: 'E-ETH-USDT',
    contractId: 2,
    underlying: 'ETHUSDT',
    marginCoin: 'USDT',
    pricePrecision: 2,
    multiplier: d('0.01'),
    minOrderVolume: d('1'),
    maxMarketVolume: d('100000'),
    maxLimitVolume: d('100000'),
    leverage: 10,
    market: { volatilityTicks: 0, halfSpreadTicks: 5, levelStepTicks: 5, levels: 20, levelLots: { min: 10, max: 2000 }, tradeRate: 0.3, tradeLots: { min: 1, max: 50 } },
  },
];

/** The symbol object as GET /sapi/v1/symbols lists it (lower-case name, as the venue does). */
/** `marketMinimums`: list marketBuyMin and marketSellMin (some venues leave them out and enforce them all the same). */
export function symbolJson(s: SymbolSpec, marketMinimums: boolean): Record<string, unknown> {
  const listed: Record<string, unknown> = {
    symbol: s.symbol.toLowerCase(),
    baseAsset: s.baseAsset,
    quoteAsset: s.quoteAsset,
    pricePrecision: s.pricePrecision,
    quantityPrecision: s.quantityPrecision,
    limitVolumeMin: s.limitVolumeMin,
    limitPriceMin: s.limitPriceMin,
  };
  if (marketMinimums) Object.assign(listed, { marketBuyMin: s.marketBuyMin, marketSellMin: s.marketSellMin });
  return listed;
}

export function contractJson(c: ContractSpec): Record<string, unknown> {
  return {
    symbol: c.symbol,
    contractId: c.contractId,
    pricePrecision: c.pricePrecision,
    side: 1,
    multiplier: c.multiplier,
    multiplierCoin: c.underlying.replace(c.marginCoin, ''),
    minOrderVolume: c.minOrderVolume,
    minOrderMoney: '1',
    maxMarketVolume: c.maxMarketVolume,
    maxMarketMoney: '10000000',
    maxLimitVolume: c.maxLimitVolume,
    maxLimitMoney: '10000000',
    maxValidOrder: 100,
    type: 'E',
    status: 1,
  };
}

/** A contract's mid in its own ticks: its underlying spot mid (or start price) at the contract's precision. */
export function contractMid(c: ContractSpec, spot: SymbolSpec | undefined, market: { midTicks: number } | undefined): number | undefined {
  if (!spot) return undefined;
  const ticks = market ? market.midTicks : (toUnits(spot.market.startPrice, spot.pricePrecision) ?? 1);
  const shift = c.pricePrecision - spot.pricePrecision;
  return shift >= 0 ? ticks * 10 ** shift : Math.round(ticks / 10 ** -shift);
}

/**
 * Whether a symbol's synthetic market moves when only `moving` (spot symbols or contracts) should;
 * every one when absent. A contract's spot market moves with it: the contract's mid follows it.
 */
export function movingMarkets(contracts: Iterable<ContractSpec>, moving: readonly string[] | undefined): (symbol: string) => boolean {
  if (!moving) return () => true;
  const moves = new Set(moving.map((s) => s.toUpperCase()));
  for (const c of contracts) if (moves.has(c.symbol)) moves.add(c.underlying);
  return (symbol) => moves.has(symbol);
}

/**
 * Whether a symbol or contract has a price yet: a market only a tape moves has none before the
 * tape's first book or ticker of it (its mid is a placeholder tick until then); a contract the
 * tape does not drive follows its underlying's. A backtest values nothing at a placeholder.
 */
export function hasPrice(ex: { markets: ReadonlyMap<string, { midKnown: boolean; external: boolean }>; contracts: ReadonlyMap<string, ContractSpec> }, symbol: string): boolean {
  const name = symbol.toUpperCase();
  const m = ex.markets.get(name);
  if (!m || m.midKnown) return m !== undefined;
  const underlying = m.external ? undefined : ex.contracts.get(name)?.underlying;
  return underlying !== undefined && ex.markets.get(underlying)?.midKnown === true;
}
