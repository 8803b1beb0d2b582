// The position book's records. Plain values, JSON-safe (decimals are strings).
import type { Decimal } from '../core/decimal.js';
import type { Market, Position } from '../core/types.js';

/**
 * One (market, symbol) line of the book: a core `Position` plus what the book needs to stay
 * exact. `avgEntryPrice` is derived from `entryValue / (|quantity| x multiplier)` (rounded for
 * display); the book computes with `entryValue`, so realised + unrealised PnL equals the fills'
 * cash flow to the last digit.
 */
export interface BookEntry extends Position {
  /**
   * Base quantity per unit of `quantity`: 1 for spot; a futures contract's size (futures
   * quantities are contracts, so 10 contracts of 0.001 BTC at 30000 are worth 300, not 300000).
   */
  multiplier: Decimal;
  /** Signed cost of the open quantity in quote (quantity x price x multiplier): positive for a long (paid), negative for a short (received), 0 when flat. */
  entryValue: Decimal;
  /**
   * Fees paid in an asset other than the symbol's quote asset (a spot buy charged in the base
   * coin, a platform token), summed per asset and never converted: a conversion rate would be
   * a guess. `fees` holds the quote-asset fees.
   */
  otherFees: Readonly<Record<string, Decimal>>;
}

export type ApplyOutcome =
  | { kind: 'applied'; position: BookEntry }
  /** This side of this trade (by market, symbol, trade id and side) was applied before; nothing changed. */
  | { kind: 'duplicate' }
  /** The fill is malformed (volume or price not above 0, a bad decimal); nothing changed and it is not marked applied. */
  | { kind: 'invalid'; reason: string };

/** What toJSON writes and fromSnapshot reads. */
export interface BookJSON {
  version: 1;
  /** Sorted by market, then symbol. */
  positions: BookEntry[];
  /** `fillKey`s of every applied fill, sorted. */
  appliedTradeKeys: string[];
}

/**
 * What fromSnapshot accepts: a BookJSON, or plain positions (as the journal checkpoints them)
 * with the trade keys the caller knows were applied. Without `entryValue` it is rebuilt as
 * quantity x avgEntryPrice x multiplier; without `otherFees` it is empty; without `multiplier`
 * it is 1 (a spot line).
 */
export interface BookSnapshotInput {
  positions: readonly (Position & Partial<Pick<BookEntry, 'entryValue' | 'otherFees' | 'multiplier'>>)[];
  appliedTradeKeys?: Iterable<string>;
}

/** Says which asset a symbol is quoted in, so a fee in that asset lands in `fees`. */
export type QuoteAssetOf = (market: Market, symbol: string) => string | undefined;
