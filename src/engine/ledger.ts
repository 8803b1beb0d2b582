// Each strategy's own fills, orders and position (plugin API 2: ctx.fills(), ctx.orders(),
// ctx.ownPosition()), beside the account-wide book, then kept up to date from the fills and
// order updates the engine hears. The positions are replayed from the journal once: at start,
// from the stream the engine reads for the account's book (replay, after the books' checkpoint
// when it can be used: ledger-checkpoint.ts), or at the first ask. The bounded history is read
// from the journal per strategy at its first ask, its latest KEPT fills and orders only,
// however long the journal and whether or not the books came from a checkpoint.
import type { Journal } from '../core/ports.js';
import type { SymbolInfo } from '../core/market.js';
import { fillKey, type Fill, type Market, type Order, type StrategyPosition } from '../core/types.js';
import { malformed, PositionBook, toStrategyPosition, type BookSnapshotInput } from '../positions/index.js';

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

/** Each strategy's book as a checkpoint keeps it (its lines; no fill keys), sorted by strategy. */
export type LedgerBooks = { strategyId: string; book: BookSnapshotInput }[];

interface Own {
  /** Its latest fills (KEPT to 2 x KEPT), read from the journal at the first ask; undefined until then. */
  fills: Fill[] | undefined;
  /** Keys of the fills that first read took: a fill journaled before it and told after is not listed twice. */
  fillsRead: Set<string> | undefined;
  /** Latest version of each order, in the order they were first seen; read from the journal at the first ask. */
  orders: Map<string, Order> | undefined;
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

  /** The strategy's latest KEPT fills, oldest first, as the journal holds them. */
  fills(strategyId: string): readonly Fill[] {
    const own = this.of(strategyId);
    if (!own.fills) {
      own.fills = latestValidFills(this.journal, strategyId);
      own.fillsRead = new Set(own.fills.slice(-UNTOLD_KEPT).map(fillKey));
    }
    return own.fills.length > KEPT ? own.fills.slice(-KEPT) : own.fills;
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
    const own = this.entry(strategyId);
    if (!this.apply(own, f) || !own.fills) return;
    if (own.fillsRead) {
      if (own.fillsRead.has(fillKey(f))) return;
      own.fillsRead = undefined;
    }
    own.fills.push(f);
    if (own.fills.length > 2 * KEPT) own.fills.splice(0, own.fills.length - KEPT);
  }

  /**
   * At start, before any fill is replayed: each strategy's book from the journal's checkpoint of
   * them (ledger-checkpoint.ts). All or nothing: throws, naming the field, on a line that cannot
   * be read or one at a contract size the venue no longer gives, and then restores none.
   */
  restore(books: LedgerBooks): void {
    if (this.loaded || this.own.size > 0) throw new Error('StrategyLedger.restore after fills were replayed: a fill would count twice');
    const restored = new Map<string, PositionBook>();
    books.forEach(({ strategyId, book: snapshot }, i) => {
      if (typeof strategyId !== 'string' || restored.has(strategyId)) throw new RangeError(`strategies[${i}].strategyId must be a strategy named once (got ${String(strategyId)})`);
      if (typeof snapshot !== 'object' || snapshot === null || !Array.isArray(snapshot.positions)) throw new RangeError(`strategies[${i}].book.positions must be a list`);
      const book = this.newBook();
      for (const p of snapshot.positions) this.sizeLine(book, p.market, p.symbol);
      try {
        book.restore(snapshot);
      } catch (err) {
        throw new RangeError(`strategies[${i}] (${strategyId}): ${(err as Error).message}`, { cause: err });
      }
      restored.set(strategyId, book);
    });
    for (const [strategyId, book] of restored) this.own.set(strategyId, { fills: undefined, fillsRead: undefined, orders: undefined, book });
  }

  /**
   * At start, before any fill is told: one journaled fill, in journal order, with the strategy
   * whose order it is (undefined: not ours). The engine's start streams the journal's fills once,
   * for the account's book and this; then replayed().
   */
  replay(f: Fill, strategyId: string | undefined): void {
    if (this.loaded) throw new Error('StrategyLedger.replay after the ledger loaded: a fill would count twice');
    if (strategyId) this.apply(this.entry(strategyId), f);
  }

  /** Every journaled fill was replayed: from now on the ledger follows the fills it is told. */
  replayed(): void {
    this.loaded = true;
    this.untold = new Set(this.journal.latestFills(UNTOLD_KEPT).map(fillKey));
  }

  /** Each strategy's book, for the journal's checkpoint; undefined until loaded (nothing to save). */
  checkpoint(): LedgerBooks | undefined {
    if (!this.loaded) return undefined;
    const ids = [...this.own.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return ids.map((strategyId) => ({ strategyId, book: this.own.get(strategyId)!.book.checkpoint() }));
  }

  private apply(own: Own, f: Fill): boolean {
    this.sizeLine(own.book, f.market, f.symbol);
    return own.book.apply(f);
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
      own = { fills: undefined, fillsRead: undefined, orders: undefined, book: this.newBook() };
      this.own.set(strategyId, own);
    }
    return own;
  }

  private newBook(): PositionBook {
    return new PositionBook({ quoteAssetOf: (m, s) => this.instrument(m, s)?.quoteAsset, appliedKept: APPLIED_KEPT });
  }

  /** A futures line counts contracts: its book needs the contract size before the first fill. */
  private sizeLine(book: PositionBook, market: Market, symbol: string): void {
    const multiplier = market === 'futures' ? this.instrument(market, symbol)?.multiplier : undefined;
    if (multiplier) book.setMultiplier(market, symbol, multiplier);
  }
}

/** The strategy's latest KEPT fills the book takes (a malformed one never counted, so it is not listed). */
function latestValidFills(journal: Journal, strategyId: string): Fill[] {
  for (let asked = KEPT; ; asked *= 2) {
    const read = journal.latestFillsOf(strategyId, asked);
    const valid = read.filter((f) => malformed(f) === undefined);
    if (valid.length >= KEPT || read.length < asked) return valid.slice(-KEPT);
  }
}
