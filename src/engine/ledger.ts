// Each strategy's own fills, orders and position (plugin API 2: ctx.fills(), ctx.orders(),
// ctx.ownPosition()), beside the account-wide book. Built from the journal the first time a
// strategy asks, then kept up to date from the fills and order updates the engine hears.
// Bounded: the latest KEPT fills and orders per strategy; positions keep every fill's effect.
import type { Journal } from '../core/ports.js';
import type { SymbolInfo } from '../core/market.js';
import { fillKey, type Fill, type Market, type Order, type Position } from '../core/types.js';
import { PositionBook } from '../positions/index.js';

const KEPT = 1000;
/**
 * The journal's latest fills the ledger takes for not yet told when it loads. A reconcile pass
 * journals its fills in commits of up to FILLS_PER_COMMIT (50, reconciler/commit.ts) and tells
 * each commit's fills, in journal order, before the next commit; a ledger that loads between a
 * commit and its telling hears those fills again, and they are the last ones in journal order.
 * Twenty commits' worth, for margin.
 */
const UNTOLD_KEPT = 1000;
/**
 * Fill keys each strategy's book remembers (about 125 bytes each). The fills that can reach the
 * ledger twice are handled by `untold` (they need not be the latest by time, which is the order
 * the book remembers in); this is the book's own guard, kept small: 10 strategies at the former
 * 10,000 each held 100,000 keys, about 12 MB.
 */
const APPLIED_KEPT = 1000;

interface Own {
  fills: Fill[];
  /** Latest version of each order, in the order they were first seen. */
  orders: Map<string, Order>;
  book: PositionBook;
}

export class StrategyLedger {
  private readonly own = new Map<string, Own>();
  private loaded = false;
  /**
   * Keys of the fills that may still be told after the ledger loaded them (UNTOLD_KEPT); dropped
   * at the first fill told that is not among them, since fills are told in journal order.
   */
  private untold: Set<string> | undefined;

  constructor(
    private readonly journal: Journal,
    private readonly instrument: (market: Market, symbol: string) => SymbolInfo | undefined,
  ) {}

  fills(strategyId: string): readonly Fill[] {
    return this.of(strategyId).fills;
  }

  orders(strategyId: string): readonly Order[] {
    return [...this.of(strategyId).orders.values()];
  }

  position(strategyId: string, market: Market, symbol: string): Position {
    return this.of(strategyId).book.position(market, symbol);
  }

  /** An order changed (already journaled). */
  order(o: Order): void {
    if (!this.loaded) return; // the journal has it when the ledger loads
    const { orders } = this.entry(o.strategyId);
    // A change keeps the order's place: oldest first by when first seen, as a load lists them.
    orders.set(o.clientOrderId, o);
    if (orders.size > KEPT) orders.delete(orders.keys().next().value!);
  }

  /** A new fill of `strategyId`'s order (already journaled). */
  fill(strategyId: string, f: Fill): void {
    if (!this.loaded) return;
    if (this.untold) {
      if (this.untold.has(fillKey(f))) return;
      this.untold = undefined;
    }
    const own = this.entry(strategyId);
    this.sizeLine(own.book, f);
    if (!own.book.apply(f)) return;
    own.fills.push(f);
    if (own.fills.length > 2 * KEPT) own.fills.splice(0, own.fills.length - KEPT);
  }

  private of(strategyId: string): Own {
    this.load();
    return this.entry(strategyId);
  }

  private entry(strategyId: string): Own {
    let own = this.own.get(strategyId);
    if (!own) {
      own = { fills: [], orders: new Map(), book: new PositionBook({ quoteAssetOf: (m, s) => this.instrument(m, s)?.quoteAsset, appliedKept: APPLIED_KEPT }) };
      this.own.set(strategyId, own);
    }
    return own;
  }

  /**
   * Once: every journaled order and fill, by the strategy whose order it is, streamed (a journal
   * can hold millions). Fills in journal order, the order they were told while running: a book
   * loaded after a restart is the book the strategy had. The engine loads it at start when a
   * strategy can ask for it; otherwise the first ask does.
   */
  load(): void {
    if (this.loaded) return;
    this.loaded = true;
    for (const o of this.journal.eachOrder()) this.order(o);
    const latest: string[] = [];
    for (const { fill, strategyId } of this.journal.eachFill()) {
      if (strategyId) this.fill(strategyId, fill);
      latest.push(fillKey(fill));
      if (latest.length > 2 * UNTOLD_KEPT) latest.splice(0, latest.length - UNTOLD_KEPT);
    }
    this.untold = new Set(latest.slice(-UNTOLD_KEPT));
  }

  /** A futures line counts contracts: its book needs the contract size before the first fill. */
  private sizeLine(book: PositionBook, f: Fill): void {
    const multiplier = f.market === 'futures' ? this.instrument(f.market, f.symbol)?.multiplier : undefined;
    if (multiplier) book.setMultiplier(f.market, f.symbol, multiplier);
  }
}
