// The position book: positions derive from fills only, each trade id applied once.
// Fees are kept in quote currency: a fee charged in the base coin (spot buys) is converted at
// the fill price. Symbols end with their quote asset (BTCUSDT, E-BTC-USDT), which tells them apart.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { fillKey, type Fill, type Market, type Position } from '../core/types.js';

const key = (market: Market, symbol: string) => `${market}:${symbol}`;

export class PositionBook {
  private readonly book = new Map<string, Position>();
  private readonly applied = new Set<string>();

  /** Applies a fill once; false when this trade id was applied before. */
  apply(fill: Fill): boolean {
    const tradeKey = fillKey(fill);
    if (this.applied.has(tradeKey)) return false;
    this.applied.add(tradeKey);
    const p = this.position(fill.market, fill.symbol);
    const signed = fill.side === 'BUY' ? fill.volume : dec.neg(fill.volume);
    const feeInQuote = fill.feeAsset === '' || fill.symbol.endsWith(fill.feeAsset) ? fill.fee : dec.mul(fill.fee, fill.price);
    let { quantity, avgEntryPrice, realizedPnl } = p;
    const sameSide = dec.isZero(quantity) || dec.isNegative(quantity) === dec.isNegative(signed);
    if (sameSide) {
      const newQty = dec.add(quantity, signed);
      avgEntryPrice = dec.div(dec.add(dec.mul(dec.abs(quantity), avgEntryPrice), dec.mul(fill.volume, fill.price)), dec.abs(newQty));
      quantity = newQty;
    } else {
      const closing = dec.min(dec.abs(quantity), fill.volume);
      const perUnit = dec.isNegative(quantity) ? dec.sub(avgEntryPrice, fill.price) : dec.sub(fill.price, avgEntryPrice);
      realizedPnl = dec.add(realizedPnl, dec.mul(perUnit, closing));
      quantity = dec.add(quantity, signed);
      // Flipped through zero: the rest opens a new position at the fill price.
      if (dec.isZero(quantity)) avgEntryPrice = ZERO;
      else if (dec.isNegative(quantity) === dec.isNegative(signed)) avgEntryPrice = fill.price;
    }
    this.book.set(key(fill.market, fill.symbol), { ...p, quantity, avgEntryPrice, realizedPnl, fees: dec.add(p.fees, feeInQuote) });
    return true;
  }

  position(market: Market, symbol: string): Position {
    return this.book.get(key(market, symbol)) ?? { market, symbol, quantity: ZERO, avgEntryPrice: ZERO, realizedPnl: ZERO, fees: ZERO };
  }

  unrealizedPnl(market: Market, symbol: string, mark: Decimal): Decimal {
    const p = this.position(market, symbol);
    return dec.mul(dec.sub(mark, p.avgEntryPrice), p.quantity);
  }

  snapshot(): Position[] {
    return [...this.book.values()].sort((a, b) => a.market.localeCompare(b.market) || a.symbol.localeCompare(b.symbol));
  }
}
