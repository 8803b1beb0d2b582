// Each strategy's own fills, orders and position (plugin API 2: ctx.fills(), ctx.orders(),
// ctx.ownPosition()), beside the account-wide book, then kept up to date from the fills and
// order updates the engine hears. Fills are replayed from the journal once: at start, from the
// stream the engine reads for the account's book (replay), or at the first ask. Orders are read
// per strategy at its first ask, its latest KEPT only, however long the journal.
// Bounded: the latest KEPT fills and orders per strategy; positions keep every fill's effect.
import type { Journal } from '../core/ports.js';
import type { SymbolInfo } from '../core/market.js';
import { fillKey, type Fill, type Market, type Order, type StrategyPosition } from '../core/types.js';
import { PositionBook, toStrategyPosition } from '../positions/index.js';

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
  /** Latest version of each order, in the order they were first seen; read from the journal at the first ask. */
  orders: Map<string, Order> | undefined;
  book: PositionBook;
}

export class StrategyLedger {
  private readonly own = new Map<string, Own>();
  private loaded = false;
  /** The latest fill keys replayed, for `untold` (UNTOLD_KEPT). */
  private replayedKeys: string[] = [];
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
    const own = this.of(strategyId);
    own.orders ??= new Map(this.journal.latestOrders(strategyId, KEPT).map((o) => [o.clientOrderId, o]));
    return [...own.orders.values()];
  }

  position(strategyId: string, market: Market, symbol: string): StrategyPosition {
    return toStrategyPosition(this.of(strategyId).book.entry(market, symbol), this.instrument(market, symbol)?.baseAsset);
  }

  /** An order changed (already journaled). */
  order(o: Order): void {
    // Orders are kept once the strategy first asked (which loads the ledger); until then the journal has it.
    const orders = this.own.get(o.strategyId)?.orders;
    if (!orders) return;
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
    this.apply(strategyId, f);
  }

  /**
   * At start, before any fill is told: one journaled fill, in journal order, with the strategy
   * whose order it is (undefined: not ours). The engine's start streams the journal's fills once,
   * for the account's book and this; then replayed().
   */
  replay(f: Fill, strategyId: string | undefined): void {
    if (this.loaded) throw new Error('StrategyLedger.replay after the ledger loaded: a fill would count twice');
    if (strategyId) this.apply(strategyId, f);
    this.replayedKeys.push(fillKey(f));
    if (this.replayedKeys.length > 2 * UNTOLD_KEPT) this.replayedKeys.splice(0, this.replayedKeys.length - UNTOLD_KEPT);
  }

  /** Every journaled fill was replayed: from now on the ledger follows the fills it is told. */
  replayed(): void {
    this.loaded = true;
    this.untold = new Set(this.replayedKeys.slice(-UNTOLD_KEPT));
    this.replayedKeys = [];
  }

  private apply(strategyId: string, f: Fill): void {
    const own = this.entry(strategyId);
    this.sizeLine(own.book, f);
    if (!own.book.apply(f)) return;
    own.fills.push(f);
    if (own.fills.length > 2 * KEPT) own.fills.splice(0, own.fills.length - KEPT);
  }

  private of(strategyId: string): Own {
    if (!this.loaded) {
      // Not replayed at start (no strategy of plugin API 2 then): the journal's fills, now.
      for (const { fill, strategyId: owner } of this.journal.eachFill()) this.replay(fill, owner);
      this.replayed();
    }
    return this.entry(strategyId);
  }

  private entry(strategyId: string): Own {
    let own = this.own.get(strategyId);
    if (!own) {
      own = { fills: [], orders: undefined, book: new PositionBook({ quoteAssetOf: (m, s) => this.instrument(m, s)?.quoteAsset, appliedKept: APPLIED_KEPT }) };
      this.own.set(strategyId, own);
    }
    return own;
  }

  /** A futures line counts contracts: its book needs the contract size before the first fill. */
  private sizeLine(book: PositionBook, f: Fill): void {
    const multiplier = f.market === 'futures' ? this.instrument(f.market, f.symbol)?.multiplier : undefined;
    if (multiplier) book.setMultiplier(f.market, f.symbol, multiplier);
  }
}
