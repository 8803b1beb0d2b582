// The other participants of a market: the quotes and trades a tape (or the synthetic market)
// stands for, whose orders the book holds beside the accounts'.
import type { Side } from '../core/types.js';
import type { Resting, Taker } from './book.js';

/** Owner of every order of the other participants. */
export const OTHERS = '~others';

/**
 * An order (or a taker) of the other participants. Their ids look like venue ids (they show up
 * as bidId/askId): 18 digits, `14${1e15 + n}`. Formatting one is most of the cost of a quote,
 * and a step makes dozens that are never read, so the id is formatted when read.
 */
export class OthersOrder implements Resting, Taker {
  readonly owner = OTHERS;
  constructor(
    private n: number,
    public side: Side,
    public priceTicks: number,
    public lots: number,
    readonly seq: number,
    public limitTicks?: number,
  ) {}

  /** This taker as the limit order `n` (applyTrade's one taker: no object a tape trade). */
  limit(n: number, side: Side, priceTicks: number, lots: number): this {
    this.n = n;
    this.side = side;
    this.priceTicks = priceTicks;
    this.limitTicks = priceTicks;
    this.lots = lots;
    return this;
  }

  get id(): string {
    const n = this.n + 1;
    return n < 1e15 ? `141${String(n).padStart(15, '0')}` : `14${1e15 + n}`;
  }
}
