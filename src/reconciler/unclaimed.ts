// Trades of the account that no order of ours claims, told in one line per pass rather than one
// per trade: a new journal's first read holds the account's whole recent history, hundreds of
// trades made before sluice, and a line for each buried the log. Each one's detail is at debug.
import type { Log } from '../core/log.js';
import type { Market } from '../core/types.js';

export interface UnclaimedTrade {
  market: Market;
  symbol: string;
  tradeId: string;
  venueOrderId: string | undefined;
  /** When the venue booked it (venue time). */
  time: number;
  /** Read by a new journal's first read: the account's history before this journal. */
  history: boolean;
}

/**
 * The pass's unclaimed trades, each told once before (the caller's): history at info (a new
 * journal on a traded account expects it), any other at warn (someone else trades this account).
 */
export function reportUnclaimed(log: Log, trades: readonly UnclaimedTrade[]): void {
  for (const t of trades) log.debug({ market: t.market, symbol: t.symbol, tradeId: t.tradeId, venueOrderId: t.venueOrderId, time: t.time }, 'a trade of this account matches no order sluice knows');
  const history = trades.filter((t) => t.history);
  const others = trades.filter((t) => !t.history);
  if (history.length > 0) log.info(summary(history), `${count(history, 'from before this journal')} no order sluice knows: its history, not counted toward positions (each at debug)`);
  if (others.length > 0) log.warn(summary(others), `${count(others)} no order sluice knows (placed by hand or by another program?): not counted toward positions (each at debug)`);
}

function count(trades: readonly UnclaimedTrade[], when = ''): string {
  const n = trades.length;
  return `${n} trade${n === 1 ? '' : 's'} of this account ${when ? `${when} ` : ''}match${n === 1 ? 'es' : ''}`;
}

/** How many, of which symbols, booked over what span. */
export function summary(trades: readonly UnclaimedTrade[]): { trades: number; symbols: string[]; from: string; to: string } {
  const from = trades.reduce((m, t) => Math.min(m, t.time), Infinity);
  const to = trades.reduce((m, t) => Math.max(m, t.time), -Infinity);
  const symbols = [...new Set(trades.map((t) => `${t.market}:${t.symbol}`))].sort();
  return { trades: trades.length, symbols, from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}
