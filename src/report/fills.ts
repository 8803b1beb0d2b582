// Replays the run's fills through a PositionBook, the same accounting the live daemon uses,
// and keeps what each fill did: the report's PnL, win rate and trades table all come from here.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { Fill } from '../core/types.js';
import { PositionBook } from '../positions/index.js';

export interface ReplayedFill {
  fill: Fill;
  /** The fill reduced an open position, so it realised PnL (possibly exactly zero). */
  closing: boolean;
  /** Realised by this fill, before fees; "0" for an opening fill. */
  realizedPnl: Decimal;
  /** This fill brought its line back to flat or through zero. */
  completesRoundTrip: boolean;
}

export interface Replay {
  book: PositionBook;
  applied: ReplayedFill[];
  duplicates: number;
  invalid: string[];
}

export function replayFills(fills: readonly Fill[], quoteAsset: string, contractSizes: Readonly<Record<string, Decimal>> = {}): Replay {
  // A backtest reports in one quote asset, so every symbol's fees in it count as quote fees.
  const book = new PositionBook({ quoteAssetOf: () => quoteAsset });
  for (const [symbol, size] of Object.entries(contractSizes)) book.setMultiplier('futures', symbol, size);
  const applied: ReplayedFill[] = [];
  let duplicates = 0;
  const invalid: string[] = [];
  for (const fill of fills) {
    const before = book.entry(fill.market, fill.symbol);
    const outcome = book.applyFill(fill);
    if (outcome.kind === 'duplicate') duplicates++;
    else if (outcome.kind === 'invalid') invalid.push(outcome.reason);
    else {
      const wasOpen = !dec.isZero(before.quantity);
      const closing = wasOpen && dec.isNegative(before.quantity) === (fill.side === 'BUY');
      const after = outcome.position.quantity;
      const flatOrFlipped = dec.isZero(after) || dec.isNegative(after) !== dec.isNegative(before.quantity);
      applied.push({
        fill,
        closing,
        realizedPnl: closing ? dec.sub(outcome.position.realizedPnl, before.realizedPnl) : ZERO,
        completesRoundTrip: closing && flatOrFlipped,
      });
    }
  }
  return { book, applied, duplicates, invalid };
}
