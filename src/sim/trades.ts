// The account fills the venue keeps, indexed so that a myTrades page or an order's fills cost
// the page (plus fills not yet visible), not every fill ever made. Trade ids come from one
// rising counter and fills are recorded as they happen, so each list is already in id order
// (a self-trade records the same id twice, buyer first).
import { olderThan } from './history.js';
import type { UserTrade } from './types.js';

export interface PageRequest {
  /** Most items on the page. */
  limit: number;
  /** First id of the page (inclusive); undefined for the latest page. */
  fromId?: string;
}

const key = (account: string, market: 'spot' | 'futures', symbol: string) => `${account}\u0000${market}\u0000${symbol}`;

/** Integer order of two ids written without leading zeros (as the venue writes them): by length, then text. */
export const byId = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

export class TradeLog {
  private readonly all: UserTrade[] = [];
  private readonly bySymbol = new Map<string, UserTrade[]>();
  private readonly byOrder = new Map<string, UserTrade[]>();

  add(t: UserTrade): void {
    this.all.push(t);
    const k = key(t.account, t.market, t.symbol);
    let list = this.bySymbol.get(k);
    if (!list) this.bySymbol.set(k, (list = []));
    list.push(t);
    let mine = this.byOrder.get(t.orderId);
    if (!mine) this.byOrder.set(t.orderId, (mine = []));
    mine.push(t);
  }

  /** Forgets the fills made before `cutoff` (see history.ts). */
  forget(cutoff: number): void {
    const n = olderThan(this.all, (t) => t.at, cutoff);
    if (n === 0) return;
    for (const t of this.all.splice(0, n)) {
      // Each order's list is in the same order as `all`: the fill forgotten is its first.
      const mine = this.byOrder.get(t.orderId)!;
      mine.shift();
      if (mine.length === 0) this.byOrder.delete(t.orderId);
    }
    for (const list of this.bySymbol.values()) list.splice(0, olderThan(list, (t) => t.at, cutoff));
  }

  /** Every fill recorded, in order. */
  everything(): readonly UserTrade[] {
    return this.all;
  }

  /** The fills of one order (visible or not), in order. */
  ofOrder(orderId: string): readonly UserTrade[] {
    return this.byOrder.get(orderId) ?? [];
  }

  /** Fills of an account visible at `now`, ascending by id. */
  visible(account: string, market: 'spot' | 'futures', symbol: string | undefined, now: number): UserTrade[] {
    const source = symbol === undefined ? this.all.filter((t) => t.account === account && t.market === market) : (this.bySymbol.get(key(account, market, symbol)) ?? []);
    return source.filter((t) => t.visibleAt <= now);
  }

  /**
   * One myTrades page of the fills visible at `now`: with `fromId`, the first `limit` from that
   * id on; without, the latest `limit`; ascending by id either way.
   */
  page(account: string, market: 'spot' | 'futures', symbol: string, now: number, req: PageRequest): UserTrade[] {
    const list = this.bySymbol.get(key(account, market, symbol)) ?? [];
    const out: UserTrade[] = [];
    if (req.fromId === undefined) {
      for (let i = list.length - 1; i >= 0 && out.length < req.limit; i--) if (list[i]!.visibleAt <= now) out.push(list[i]!);
      return out.reverse();
    }
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (byId(list[mid]!.id, req.fromId) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < list.length && out.length < req.limit; i++) if (list[i]!.visibleAt <= now) out.push(list[i]!);
    return out;
  }
}
