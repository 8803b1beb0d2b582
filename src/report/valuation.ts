// What an account and a strategy are worth in one asset, for the backtest report. The prices
// come from the caller (the simulator's mid in a backtest); nothing here knows the venue.
import { dec, ONE, ZERO, type Decimal } from '../core/decimal.js';
import type { Market } from '../core/types.js';
import type { PositionBook } from '../positions/index.js';
import type { EquitySample } from './types.js';

/**
 * The whole account in `quote`: every other asset at the mid of its `<asset><quote>` market;
 * an asset with no such market counts zero.
 */
export function accountValue(balances: readonly { asset: string; free: Decimal; locked: Decimal }[], quote: string, midOf: (symbol: string) => Decimal | undefined): Decimal {
  return dec.sum(balances.map((b) => assetValue(b.asset, dec.add(b.free, b.locked), quote, midOf) ?? ZERO));
}

/**
 * The account at the start in `quote`, each asset at the first mid known for it: an asset whose
 * market has no price yet when the run starts (one only the tape moves, before its first book)
 * is valued once it has one (`settle`, at each equity sample), never at a placeholder; one never
 * priced counts zero, as accountValue counts an asset with no market.
 */
export class OpeningValue {
  private valued = ZERO;
  private waiting: { asset: string; amount: Decimal }[];

  constructor(
    balances: readonly { asset: string; free: Decimal; locked: Decimal }[],
    private readonly quote: string,
    private readonly midOf: (symbol: string) => Decimal | undefined,
  ) {
    this.waiting = balances.map((b) => ({ asset: b.asset, amount: dec.add(b.free, b.locked) }));
    this.settle();
  }

  /** Values the assets whose market has a price now. */
  settle(): void {
    this.waiting = this.waiting.filter(({ asset, amount }) => {
      const value = assetValue(asset, amount, this.quote, this.midOf);
      if (value !== undefined) this.valued = dec.add(this.valued, value);
      return value === undefined;
    });
  }

  get value(): Decimal {
    return this.valued;
  }
}

/** `amount` of `asset` in `quote`, at the mid of its `<asset><quote>` market; undefined with no such market. */
export function assetValue(asset: string, amount: Decimal, quote: string, midOf: (symbol: string) => Decimal | undefined): Decimal | undefined {
  if (asset === quote) return amount;
  const mid = midOf(`${asset}${quote}`);
  return mid === undefined ? undefined : dec.mul(amount, mid);
}

/**
 * The strategy's equity: the starting account plus realised and unrealised PnL less fees, from
 * the engine's own position book marked at `markOf` (its entry price where there is no mark).
 * Coins the account merely holds do not move it, so the curve shows the strategy, not the market.
 * Fees paid in another asset than the quote (a spot buy's fee the venue takes in the base asset)
 * cost what `valueOf` says they are worth now: the book's quantity counts the coins bought, and
 * the account holds that less the fee.
 */
export function equitySample(
  positions: PositionBook,
  startingEquity: Decimal,
  at: number,
  markOf: (market: Market, symbol: string) => Decimal | undefined,
  contractSizeOf: (symbol: string) => Decimal | undefined,
  valueOf: (asset: string, amount: Decimal) => Decimal | undefined,
): EquitySample {
  let pnl = ZERO;
  let exposure = ZERO;
  for (const p of positions.snapshot()) {
    const mark = markOf(p.market, p.symbol) ?? p.avgEntryPrice;
    const otherFees = Object.entries(positions.entry(p.market, p.symbol).otherFees).map(([asset, amount]) => valueOf(asset, amount) ?? ZERO);
    pnl = dec.add(pnl, dec.sub(dec.add(p.realizedPnl, positions.unrealizedPnl(p.market, p.symbol, mark)), dec.add(p.fees, dec.sum(otherFees))));
    const size = p.market === 'futures' ? (contractSizeOf(p.symbol) ?? ONE) : ONE;
    exposure = dec.add(exposure, dec.abs(dec.mul(dec.mul(p.quantity, size), mark)));
  }
  return { at, equity: dec.add(startingEquity, pnl), exposure };
}
