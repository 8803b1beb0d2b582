// What a strategy host is given and gives back: the engine's view, its clock and timers, and
// the intents a call queued.
import type { Decimal } from '../core/decimal.js';
import type { ClientOrderId } from '../core/ids.js';
import type { Depth, KlineInterval, SymbolInfo, Ticker } from '../core/market.js';
import type { Balance, Fill, Market, Order, OrderIntent, StrategyPosition } from '../core/types.js';
import type { CUT, LATE } from '../core/deadlines.js';
import type { Candle, Margin, MarketSubscription, StrategyLogger, TimerId } from './api.js';
import type { Cancelling } from './cancelling.js';
import type { IndicatorFeed } from './indicator-feed.js';

/** The engine's state as strategies may read it. */
export interface EngineView {
  position(market: Market, symbol: string): StrategyPosition;
  openOrders(strategyId: string, symbol?: string): readonly Order[];
  balance(asset: string): Balance;
  lastPrice(market: Market, symbol: string): Decimal | undefined;
  instrument(market: Market, symbol: string): SymbolInfo | undefined;
  ticker(market: Market, symbol: string): Ticker | undefined;
  depth(market: Market, symbol: string): Depth | undefined;
  klines(market: Market, symbol: string, interval: KlineInterval): readonly Candle[] | undefined;
  margin(): Margin | undefined;
  /** A strategy's own fills and orders (the latest 1000, oldest first), and its own position. */
  ownFills(strategyId: string, symbol?: string): readonly Fill[];
  ownOrders(strategyId: string, symbol?: string): readonly Order[];
  ownPosition(strategyId: string, market: Market, symbol: string): StrategyPosition;
}

export interface StrategySetup {
  id: string;
  market: Market;
  symbols: readonly string[];
  everyMs: number;
}

export interface HostDeps {
  view: EngineView;
  now(): number;
  log: StrategyLogger;
  /** The next sequence number for this strategy's client order ids (durable across restarts). */
  nextSequence(): number;
  /** Runs `fire` after `delayMs` on the engine clock (its output goes where a tick's goes), unless cancelled first. */
  setTimer(delayMs: number, fire: () => Promise<HostOutput>): () => void;
  /**
   * How long an awaited handler may take, on the engine clock: past it, the strategy is disabled
   * and nothing waits for the handler any more. Without it (the plugin test harness) a handler
   * is awaited however long it takes.
   */
  deadline?: HandlerDeadline;
}

export interface HandlerDeadline {
  ms: number;
  /** Where `ms` is set, for the reason a late handler is given. */
  setting: string;
  /** `work`'s outcome, or LATE once `ms` passed first (CUT: a hurried stop ended the wait). */
  within<T>(work: Promise<T>): Promise<T | typeof LATE | typeof CUT>;
}

/** An intent the plugin asked for that could not even be formed. */
export interface InvalidRequest {
  strategyId: string;
  clientOrderId: ClientOrderId;
  reason: string;
}

export interface HostOutput {
  intents: OrderIntent[];
  invalid: InvalidRequest[];
}

/** What the context needs of its host: the outbox and the bookkeeping around it. */
export interface HostInternals {
  outbox: OrderIntent[];
  invalid: InvalidRequest[];
  readonly indicators: IndicatorFeed;
  /** The orders whose cancel the strategy asked for and has not yet heard the outcome of. */
  readonly canceling: Cancelling;
  readonly subscriptions: readonly MarketSubscription[];
  setTimer(delayMs: number, fn: () => void | Promise<void>): TimerId;
  clearTimer(id: TimerId): void;
}
