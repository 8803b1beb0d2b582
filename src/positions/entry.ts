// The arithmetic of one book line, pure. Average-cost accounting over a signed entry value:
// adding to a position adds price x volume to the entry value; reducing it removes the
// closed share of the entry value and books the difference to the exit as realised PnL; a
// fill through zero closes everything, then opens the remainder at the fill price.
//
// Exactness: whatever share of the entry value a partial close removes (a division, rounded
// at 30 places), the same amount leaves the entry value and enters realised PnL, so
// realised + (quantity x mark x multiplier - entryValue) equals the cash flow of the fills exactly.
//
// Values are quantity x price x multiplier: a futures quantity counts contracts, each worth
// `multiplier` of the base asset (spot lines have multiplier 1).
import { amend } from '../core/amend.js';
import { dec, ONE, ZERO, type Decimal } from '../core/decimal.js';
import type { Market, Position, Side, StrategyPosition } from '../core/types.js';
import type { BookEntry } from './types.js';

export function emptyEntry(market: Market, symbol: string, multiplier: Decimal = ONE): BookEntry {
  return { market, symbol, quantity: ZERO, avgEntryPrice: ZERO, realizedPnl: ZERO, fees: ZERO, multiplier, entryValue: ZERO, otherFees: {} };
}

/** |entryValue| / (|quantity| x multiplier): a price. 0 when flat. Rounded (30 places): for display and strategies, never fed back. */
export function averageEntry(quantity: Decimal, entryValue: Decimal, multiplier: Decimal = ONE): Decimal {
  return dec.isZero(quantity) ? ZERO : dec.div(dec.abs(entryValue), dec.mul(dec.abs(quantity), multiplier));
}

/** The line after one trade of `volume` (> 0) at `price`. Fees are not touched here. */
export function trade(entry: BookEntry, side: Side, volume: Decimal, price: Decimal): BookEntry {
  const signed = side === 'BUY' ? volume : dec.neg(volume);
  const q = entry.quantity;
  const m = entry.multiplier;
  const valueOf = (qty: Decimal) => dec.mul(dec.mul(qty, price), m);
  let { entryValue, realizedPnl } = entry;
  const adding = dec.isZero(q) || dec.isNegative(q) === dec.isNegative(signed);
  if (adding) {
    entryValue = dec.add(entryValue, valueOf(signed));
  } else {
    const held = dec.abs(q);
    const closing = dec.min(held, volume);
    // A full close removes the entry value exactly, so a flat line never keeps a rounding residue.
    const removed = dec.eq(closing, held) ? entryValue : dec.div(dec.mul(entryValue, closing), held);
    const closedSigned = dec.isNegative(q) ? dec.neg(closing) : closing;
    realizedPnl = dec.add(realizedPnl, dec.sub(valueOf(closedSigned), removed));
    entryValue = dec.sub(entryValue, removed);
    const remainder = dec.sub(volume, closing);
    // Flipped through zero: the remainder opens a new position at this fill's price.
    if (dec.isPositive(remainder)) entryValue = valueOf(side === 'BUY' ? remainder : dec.neg(remainder));
  }
  const quantity = dec.add(q, signed);
  return { ...entry, quantity, entryValue, realizedPnl, avgEntryPrice: averageEntry(quantity, entryValue, m) };
}

/** The line with a fee added: to `fees` when paid in the quote asset, else to `otherFees`. */
export function chargeFee(entry: BookEntry, fee: Decimal, asset: string, isQuote: boolean): BookEntry {
  if (dec.isZero(fee)) return entry;
  if (isQuote) return { ...entry, fees: dec.add(entry.fees, fee) };
  return { ...entry, otherFees: amend(entry.otherFees, { [asset]: dec.add(entry.otherFees[asset] ?? ZERO, fee) }) };
}

/** Profit of the open quantity if it were closed at `mark`: quantity x mark x multiplier - entryValue. */
export function unrealizedOf(entry: Pick<BookEntry, 'quantity' | 'entryValue'> & { multiplier?: Decimal }, mark: Decimal): Decimal {
  return dec.sub(dec.mul(dec.mul(entry.quantity, mark), entry.multiplier ?? ONE), entry.entryValue);
}

/** A line as strategies read it: the position with its other-asset fees and what it leaves held (`baseAsset`: a spot symbol's). */
export function toStrategyPosition(entry: BookEntry, baseAsset: string | undefined): StrategyPosition {
  const fee = entry.market === 'spot' && baseAsset !== undefined ? entry.otherFees[baseAsset] : undefined;
  return amend(toPosition(entry), { otherFees: { ...entry.otherFees }, netQuantity: fee === undefined ? entry.quantity : dec.sub(entry.quantity, fee), unbookedQuantity: ZERO });
}

/** The core `Position` view of a line. */
export function toPosition(entry: BookEntry): Position {
  const { market, symbol, quantity, avgEntryPrice, realizedPnl, fees } = entry;
  return { market, symbol, quantity, avgEntryPrice, realizedPnl, fees };
}
