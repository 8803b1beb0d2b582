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
  return dec.sum(
    balances.map((b) => {
      const total = dec.add(b.free, b.locked);
      if (b.asset === quote) return total;
      const mid = midOf(`${b.asset}${quote}`);
      return mid === undefined ? ZERO : dec.mul(total, mid);
    }),
  );
}

/**
 * The strategy's equity: the starting account plus realised and unrealised PnL less fees, from
 * the engine's own position book marked at `markOf` (its entry price where there is no mark).
 * Coins the account merely holds do not move it, so the curve shows the strategy, not the market.
 */
export function equitySample(
  positions: PositionBook,
  startingEquity: Decimal,
  at: number,
  markOf: (market: Market, symbol: string) => Decimal | undefined,
  contractSizeOf: (symbol: string) => Decimal | undefined,
): EquitySample {
  let pnl = ZERO;
  let exposure = ZERO;
  for (const p of positions.snapshot()) {
    const mark = markOf(p.market, p.symbol) ?? p.avgEntryPrice;
    pnl = dec.add(pnl, dec.sub(dec.add(p.realizedPnl, positions.unrealizedPnl(p.market, p.symbol, mark)), p.fees));
    const size = p.market === 'futures' ? (contractSizeOf(p.symbol) ?? ONE) : ONE;
    exposure = dec.add(exposure, dec.abs(dec.mul(dec.mul(p.quantity, size), mark)));
  }
  return { at, equity: dec.add(startingEquity, pnl), exposure };
}
