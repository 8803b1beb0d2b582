// Reading a symbol's trades page after page from the cursor, whatever page size the venue
// enforces: a page that came full may have been cut, so the next one starts at its last id
// (fromId is inclusive; repeats are harmless, fills apply once).
import type { AccountReader } from '../core/ports.js';
import type { Listing, SkippedItem, VenueTrade } from '../core/venue.js';
import { compareIds } from '../core/ids.js';

export interface TradeReads {
  /** Every trade read, each side of a trade once. */
  trades: VenueTrade[];
  /** When the read that reached the end was sent (our clock), if one did. */
  caughtUpAt?: number;
  /** No cursor yet: the latest page was read, and this is where the cursor starts. */
  start?: string;
}

export interface TradeReadOptions {
  reader: AccountReader;
  symbol: string;
  /** Where the last pass left off; undefined for a new journal. */
  cursor: string | undefined;
  /** At most this many pages from the cursor. */
  pages: number;
  /** Also read the latest page: a safety net for a fill that shows later than the cursor waits. */
  fullScan: boolean;
  now(): number;
  report(skipped: readonly SkippedItem[]): void;
}

export async function readTrades(o: TradeReadOptions): Promise<TradeReads> {
  const read = new Map<string, VenueTrade>();
  const take = (items: readonly VenueTrade[]) => {
    for (const t of items) read.set(`${t.tradeId}:${t.isBuyer ? 'B' : 'S'}`, t);
  };
  if (o.cursor === undefined) {
    // The first read of a new journal, before any order of ours: the account's trades so far
    // are its history. Every later read starts from here ('0': the very first trade).
    const sentAt = o.now();
    const page = await o.reader.trades(o.symbol);
    o.report(page.skipped);
    return { trades: page.items, caughtUpAt: sentAt, start: lastId(page) ?? '0' };
  }
  let fromId = o.cursor;
  let caughtUpAt: number | undefined;
  for (let n = 0; n < o.pages; n++) {
    const sentAt = o.now();
    const page = await o.reader.trades(o.symbol, fromId);
    o.report(page.skipped);
    take(page.items);
    const last = lastId(page);
    // The end: a page not full, or one that brings nothing past where it started.
    if (!page.full || last === undefined || compareIds(last, fromId) <= 0) {
      caughtUpAt = sentAt;
      break;
    }
    fromId = last;
  }
  if (o.fullScan) take((await o.reader.trades(o.symbol)).items);
  return { trades: [...read.values()], ...(caughtUpAt !== undefined ? { caughtUpAt } : {}) };
}

/** The highest trade id a page holds, readable items and skipped ones alike. */
function lastId(page: Listing<VenueTrade>): string | undefined {
  const ids = [...page.items.map((t) => t.tradeId), ...page.skipped.flatMap((s) => (s.key ? [s.key] : []))];
  return ids.reduce<string | undefined>((a, b) => (a === undefined || compareIds(b, a) > 0 ? b : a), undefined);
}
