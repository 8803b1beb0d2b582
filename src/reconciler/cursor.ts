// Where the next trades read starts, as a pure function. The cursor is the highest trade id
// below which nothing is left to learn: every trade at or below it has been read, is old enough
// that no late trade can still appear beneath it, and is either ours (journaled) or provably
// nobody's we are waiting for. The next read starts there (fromId is inclusive), so a cursor
// never moves past a trade it has not read, whatever page size the venue enforces.
import { compareIds } from '../core/ids.js';
import type { VenueTrade } from '../core/venue.js';


export interface CursorInput {
  /** Trades read this pass from `current` on (inclusive), or the latest page when there is no cursor. */
  trades: readonly VenueTrade[];
  current: string | undefined;
  /** Whether a trade is one of our fills (journaled, or about to be in this pass). */
  ours(t: VenueTrade): boolean;
  /** Whether a trade nobody claims may still become ours: it could belong to an order awaiting its answer. */
  awaited(t: VenueTrade): boolean;
  /**
   * Venue time before which every trade is visible: a trade booked later may show in myTrades
   * only after others with higher ids (late fills), so the cursor stays below those.
   */
  visibleBefore: number;
}

/** The new cursor, or undefined when it does not move forward. */
export function nextCursor(input: CursorInput): string | undefined {
  const sorted = [...input.trades].sort((a, b) => compareIds(a.tradeId, b.tradeId));
  // A trade id holds the cursor back when any of its items does: a self-trade lists one id
  // twice (once per side), and the cursor may not reach it while either side is still to learn.
  const held = new Set(sorted.filter((t) => t.time >= input.visibleBefore || (!input.ours(t) && input.awaited(t))).map((t) => t.tradeId));
  let cursor = input.current;
  for (const t of sorted) {
    if (cursor !== undefined && compareIds(t.tradeId, cursor) <= 0) continue;
    if (held.has(t.tradeId)) break;
    cursor = t.tradeId;
  }
  return cursor !== undefined && (input.current === undefined || compareIds(cursor, input.current) > 0) ? cursor : undefined;
}
