// A backtest's simulator lists what the tape's venue listed (tape/listings.ts): its symbols and
// contracts with their own precisions, minimums and multipliers. An instrument the simulator
// also knows by name keeps its synthetic market's settings (what it trades before and beside the
// tape's market data); any other quotes nothing until the tape's first book of it.
import { amend } from '../core/amend.js';
import { d, type Decimal } from '../core/decimal.js';
import type { ContractInfo, SymbolInfo } from '../exchange/codec.js';
import { DEFAULT_CONTRACTS, DEFAULT_SYMBOLS, type ContractSpec, type MarketShape, type SymbolSpec } from '../sim/index.js';
import type { RecordedListings } from '../tape/index.js';

/** A market that only the tape moves: no synthetic quotes, walk or trades. */
const TAPE_ONLY: Omit<MarketShape, 'startPrice'> = { volatilityTicks: 0, halfSpreadTicks: 0, levelStepTicks: 1, levels: 0, levelLots: { min: 1, max: 1 }, tradeRate: 0, tradeLots: { min: 1, max: 1 } };
/** A contract's volume caps when the venue's listing gives none the client reads. */
const NO_CAP = d('1000000000');
/** The leverage a contract starts with where the simulator does not know it (until edit_lever). */
const DEFAULT_LEVERAGE = 10;

/** The simulator's instruments for a tape's listings; a market the tape did not list keeps the simulator's own. */
export function simInstruments(listings: RecordedListings): { symbols?: SymbolSpec[]; contracts?: ContractSpec[] } {
  const out: { symbols?: SymbolSpec[]; contracts?: ContractSpec[] } = {};
  if (listings.symbols) out.symbols = listings.symbols.items.map(symbolSpec);
  // Inverse contracts and those not open for trading are left out, as live leaves them out (engine/instruments.ts).
  if (listings.contracts) out.contracts = listings.contracts.items.filter((c) => c.side !== 0 && c.status === 1).map(contractSpec);
  return out;
}

function symbolSpec(s: SymbolInfo): SymbolSpec {
  const known = DEFAULT_SYMBOLS.find((k) => k.symbol === s.symbol);
  return {
    symbol: s.symbol,
    baseAsset: s.baseAsset,
    quoteAsset: s.quoteAsset,
    pricePrecision: s.pricePrecision,
    quantityPrecision: s.quantityPrecision,
    // The older subset of fields lists no minimums: one tick and one lot, and no market-buy minimum.
    limitVolumeMin: s.limitVolumeMin ?? unit(s.quantityPrecision),
    limitPriceMin: s.limitPriceMin ?? unit(s.pricePrecision),
    marketBuyMin: s.marketBuyMin ?? ('0' as Decimal),
    marketSellMin: s.marketSellMin ?? unit(s.quantityPrecision),
    market: known?.market ?? amend(TAPE_ONLY, { startPrice: unit(s.pricePrecision) }),
  };
}

function contractSpec(c: ContractInfo): ContractSpec {
  const known = DEFAULT_CONTRACTS.find((k) => k.symbol === c.symbol);
  // E-BTC-USDT: a linear contract on BTCUSDT, margined in USDT (the notes' naming).
  const parts = c.symbol.split('-');
  return {
    symbol: c.symbol,
    contractId: c.contractId,
    underlying: known?.underlying ?? parts.slice(1).join(''),
    marginCoin: known?.marginCoin ?? parts.at(-1)!,
    pricePrecision: c.pricePrecision,
    multiplier: c.multiplier,
    minOrderVolume: c.minOrderVolume,
    maxMarketVolume: known?.maxMarketVolume ?? NO_CAP,
    maxLimitVolume: known?.maxLimitVolume ?? NO_CAP,
    leverage: known?.leverage ?? DEFAULT_LEVERAGE,
    market: known?.market ?? TAPE_ONLY,
  };
}

/** One unit of the last place: 0.001 for 3 places. */
function unit(places: number): Decimal {
  return (places === 0 ? '1' : `0.${'0'.repeat(places - 1)}1`) as Decimal;
}
