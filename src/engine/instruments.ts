// The instrument catalog: what the venue lists for each market a strategy trades, read once at
// start-up and shared (risk sizes orders by it, positions take their quote asset and contract
// size from it).
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { SymbolInfo } from '../core/market.js';
import type { MarketReader } from '../core/ports.js';
import type { Market } from '../core/types.js';

const key = (market: Market, symbol: string) => `${market}:${symbol}`;

export class InstrumentCatalog {
  /** By `market:symbol`. */
  readonly byKey = new Map<string, SymbolInfo>();

  constructor(
    private readonly readers: Readonly<Record<Market, MarketReader>>,
    private readonly log: Log,
    /** Told each futures contract's size: positions value contracts at it. */
    private readonly contractSize: (symbol: string, multiplier: NonNullable<SymbolInfo['multiplier']>) => void,
  ) {}

  get(market: Market, symbol: string): SymbolInfo | undefined {
    return this.byKey.get(key(market, symbol));
  }

  /** Reads the venue's instruments of `markets`; warns for a traded symbol the venue does not list. */
  async load(markets: ReadonlySet<Market>, traded: readonly { market: Market; symbol: string }[]): Promise<void> {
    for (const market of markets) {
      const listing = await this.readers[market].instruments();
      for (const bad of listing.skipped) this.log.warn({ market, symbol: bad.key, problem: bad.problem }, 'an instrument the venue listed could not be read; it is left out');
      for (const info of listing.items) {
        this.byKey.set(key(market, info.symbol), info);
        if (!info.multiplier) continue;
        // An odd listing (a size of 0, or one that changed under journaled fills) must not stop start-up.
        try {
          this.contractSize(info.symbol, info.multiplier);
        } catch (err) {
          this.log.warn({ symbol: info.symbol, reason: errorText(err) }, 'contract size not taken; its PnL is counted per contract');
        }
      }
    }
    for (const { market, symbol } of traded) {
      if (!this.byKey.has(key(market, symbol))) this.log.warn({ market, symbol }, 'the venue does not list this symbol; its orders will be rejected');
    }
  }
}
