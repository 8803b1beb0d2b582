// Each strategy's own fills, orders and position (plugin API 2: ctx.fills(), ctx.orders(),
// ctx.ownPosition()), beside the account-wide book. Built from the journal the first time a
// strategy asks, then kept up to date from the fills and order updates the engine hears.
// Bounded: the latest KEPT fills and orders per strategy; positions keep every fill's effect.
import type { Journal } from '../core/ports.js';
import type { SymbolInfo } from '../core/market.js';
import type { Fill, Market, Order, Position } from '../core/types.js';
import { PositionBook } from '../positions/index.js';

const KEPT = 1000;
/**
 * Fill keys each strategy's book remembers (about 100 bytes each): its guard needs only the fills
 * that can reach it twice, the ones journaled while the ledger loads and then delivered.
 */
const APPLIED_KEPT = 10_000;

interface Own {
  fills: Fill[];
  /** Latest version of each order, in the order they were first seen. */
  orders: Map<string, Order>;
  book: PositionBook;
}

export class StrategyLedger {
  private readonly own = new Map<string, Own>();
  private loaded = false;

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
    orders.delete(o.clientOrderId);
    orders.set(o.clientOrderId, o);
    if (orders.size > KEPT) orders.delete(orders.keys().next().value!);
  }

  /** A new fill of `strategyId`'s order (already journaled). */
  fill(strategyId: string, f: Fill): void {
    if (!this.loaded) return;
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

  /** Once: every journaled order and fill, by the strategy whose order it is. */
  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    const strategyOf = new Map<string, string>();
    for (const o of this.journal.orders()) {
      if (o.venueOrderId) strategyOf.set(`${o.market}:${o.symbol}:${o.venueOrderId}`, o.strategyId);
      this.order(o);
    }
    for (const f of [...this.journal.fills()].sort((a, b) => a.time - b.time)) {
      const strategyId = strategyOf.get(`${f.market}:${f.symbol}:${f.venueOrderId}`);
      if (strategyId) this.fill(strategyId, f);
    }
  }

  /** A futures line counts contracts: its book needs the contract size before the first fill. */
  private sizeLine(book: PositionBook, f: Fill): void {
    const multiplier = f.market === 'futures' ? this.instrument(f.market, f.symbol)?.multiplier : undefined;
    if (multiplier) book.setMultiplier(f.market, f.symbol, multiplier);
  }
}
