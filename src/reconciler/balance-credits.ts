// Spot balances as risk and strategies judge them: the last account read, plus what the fills
// the venue booked after it moved. Without this, a coin a buy just brought in is not free until
// the next read (a pass later), so a take-profit sent on the buy's fill is refused for a balance
// the account holds. A fill booked after the read was answered cannot be in it; one booked
// before may be, so it is left to the next read: nothing is counted twice, and what is left out
// errs on the side of less.
import { amend } from '../core/amend.js';
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { SymbolInfo } from '../core/market.js';
import type { Balance, Fill } from '../core/types.js';

export class BalanceCredits {
  /** Venue time after which a fill cannot be in the last read: when it was answered, at the latest. */
  private readAnsweredBy = Number.POSITIVE_INFINITY;
  /** Per asset, what fills after the read moved: into free, and out of locked. */
  private readonly free = new Map<string, Decimal>();
  private readonly locked = new Map<string, Decimal>();

  /** A spot account read answered by venue time `answeredBy` (at the latest): it shows every fill before. */
  read(answeredBy: number): void {
    this.readAnsweredBy = answeredBy;
    this.free.clear();
    this.locked.clear();
  }

  /**
   * A spot fill just journaled. A buy brings the base coin in and takes the quote out of what the
   * order locked; a sell the reverse; the fee goes out of free in its own coin. A limit buy that
   * filled below its price frees the difference too: left to the read.
   */
  fill(fill: Fill, info: SymbolInfo | undefined): void {
    if (fill.market !== 'spot' || !info || fill.time <= this.readAnsweredBy) return;
    const notional = dec.mul(fill.price, fill.volume);
    const [inAsset, inAmount, outAsset, outAmount] = fill.side === 'BUY' ? [info.baseAsset, fill.volume, info.quoteAsset, notional] : [info.quoteAsset, notional, info.baseAsset, fill.volume];
    add(this.free, inAsset, inAmount);
    add(this.locked, outAsset, dec.neg(outAmount));
    if (fill.feeAsset !== '' && !dec.isZero(fill.fee)) add(this.free, fill.feeAsset, dec.neg(fill.fee));
  }

  /** `balances` (the last read) with the fills since: locked never below zero. */
  apply(balances: ReadonlyMap<string, Balance>): ReadonlyMap<string, Balance> {
    if (this.free.size === 0 && this.locked.size === 0) return balances;
    const out = new Map(balances);
    for (const asset of new Set([...this.free.keys(), ...this.locked.keys()])) {
      const b = out.get(asset) ?? { asset, free: ZERO, locked: ZERO };
      const locked = dec.add(b.locked, this.locked.get(asset) ?? ZERO);
      out.set(asset, amend(b, { free: dec.add(b.free, this.free.get(asset) ?? ZERO), locked: dec.isNegative(locked) ? ZERO : locked }));
    }
    return out;
  }
}

function add(to: Map<string, Decimal>, asset: string, amount: Decimal): void {
  to.set(asset, dec.add(to.get(asset) ?? ZERO, amount));
}
