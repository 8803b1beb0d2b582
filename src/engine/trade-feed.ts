// Public trades as strategies hear them: each trade once. The venue answers its latest `limit`
// trades every poll, so consecutive pages overlap; handed on as they came, a feed of 50 every
// second delivered 71,300 trades of which 2,372 were distinct, and a strategy summing volume
// counted each some 30 times. The venue's public trades carry no id (the notes: price, qty,
// time, side), so a trade is known by those four, and equal-looking trades of one millisecond
// by how many of them there are.
import type { PublicTrade } from '../core/market.js';

/** Oldest first; trades of one millisecond in the order they happened (venues list the newest first). */
export function oldestFirst(page: readonly PublicTrade[]): PublicTrade[] {
  const newestFirst = page.length > 1 && page[0]!.time >= page[page.length - 1]!.time;
  const ordered = newestFirst ? [...page].reverse() : [...page];
  // Stable: trades of one millisecond keep the venue's order.
  return ordered.sort((a, b) => a.time - b.time);
}

const look = (t: PublicTrade) => `${t.price} ${t.qty} ${t.side}`;

/** What one page adds: the trades not handed on before, oldest first. */
export interface NewTrades {
  trades: PublicTrade[];
  /** None of the trades handed on before is in the page: more trades may have happened between the two than the page holds. */
  gap: boolean;
}

/**
 * One trades feed: what it has handed on, as the newest trade time and, for that millisecond,
 * how many trades of each look (the only ones a later page can hold again without being new).
 */
export class TradeFeed {
  /** Time of the newest trade handed on; undefined before the first page. */
  private newest: number | undefined;
  /** Trades of millisecond `newest` handed on, counted by look. */
  private atNewest = new Map<string, number>();

  /**
   * The trades of `page` newer than those handed on, oldest first: a trade later than the newest
   * one handed on, or one of its millisecond beyond as many of its look as were handed on. A
   * trade older than that is one handed on already (or, from a venue listing late, one that
   * would come out of order: left out). The first page is all new.
   */
  take(page: readonly PublicTrade[]): NewTrades {
    const ordered = oldestFirst(page);
    const newest = this.newest;
    if (newest === undefined) {
      this.remember(ordered);
      return { trades: ordered, gap: false };
    }
    const left = new Map(this.atNewest);
    const trades: PublicTrade[] = [];
    let overlap = false;
    for (const t of ordered) {
      if (t.time < newest) {
        overlap = true;
        continue;
      }
      if (t.time === newest) {
        const n = left.get(look(t)) ?? 0;
        if (n > 0) {
          left.set(look(t), n - 1);
          overlap = true;
          continue;
        }
      }
      trades.push(t);
    }
    if (trades.length > 0) this.remember(ordered);
    return { trades, gap: trades.length > 0 && !overlap };
  }

  /** Notes a page's newest millisecond and its trades by look (the most any page held). */
  private remember(ordered: readonly PublicTrade[]): void {
    const last = ordered.at(-1);
    if (!last) return;
    const counts = new Map<string, number>();
    for (let i = ordered.length - 1; i >= 0 && ordered[i]!.time === last.time; i--) counts.set(look(ordered[i]!), (counts.get(look(ordered[i]!)) ?? 0) + 1);
    if (last.time === this.newest) for (const [k, n] of this.atNewest) counts.set(k, Math.max(n, counts.get(k) ?? 0));
    this.newest = last.time;
    this.atNewest = counts;
  }
}
