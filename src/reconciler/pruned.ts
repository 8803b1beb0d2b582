// Trades of orders the journal pruned (store/prune.ts), shown again by the venue: its latest
// page, read every fifth pass, can hold trades of orders pruned days ago on a quiet symbol. Their
// fills went with their orders, so nothing in the journal or the position book says they were
// booked; without this, each would be taken for a trade of no order of ours (a warning that
// someone else trades the account) or, worse, matched by its looks to an order awaiting its
// answer. The prune keeps the highest trade id it deleted per symbol; a trade at or below it
// that no journaled order claims is one of those, and is passed over. A trade an order still in
// the journal claims goes on as before (its fill, if journaled, is refused as a repeat).
import type { Journal } from '../core/ports.js';
import { prunedTradesKey } from '../core/ids.js';
import type { Market, Order } from '../core/types.js';
import type { VenueTrade } from '../core/venue.js';
import { compareIds } from '../core/ids.js';
import { ownOrderId } from './fills.js';

/** The trades read, without those of pruned orders. */
export function withoutPruned(journal: Pick<Journal, 'cursor'>, market: Market, symbol: string, trades: readonly VenueTrade[], byVenueId: (id: string) => Order | undefined): readonly VenueTrade[] {
  const mark = journal.cursor(prunedTradesKey(market, symbol));
  if (mark === undefined) return trades;
  return trades.filter((t) => {
    if (compareIds(t.tradeId, mark) > 0) return true;
    const id = ownOrderId(t);
    return id !== undefined && byVenueId(id) !== undefined;
  });
}
