// The one public module plugins import: `import { defineStrategy, z, dec } from 'sluice/strategy'`.
// Everything a strategy can see or do goes through the context; it never calls the exchange.
import { z } from 'zod';
import { DecimalFormatError, PLAIN_RULE, toDecimal, type Decimal } from '../core/decimal.js';
import type { ClientOrderId } from '../core/ids.js';
import type { Depth, Kline, KlineInterval, PublicTrade, SymbolInfo, Ticker } from '../core/market.js';
import type { Balance, ExitReason, Fill, Market, Order, OrderType, Side, StrategyPosition } from '../core/types.js';

export { z };
export { dec, d, toDecimal, type Decimal } from '../core/decimal.js';
export type { ClientOrderId } from '../core/ids.js';
export type { Depth, Kline, KlineInterval, PublicTrade, SymbolInfo, Ticker } from '../core/market.js';
export type { Balance, CancelIntent, ExitReason, Fill, Market, Order, OrderIntent, OrderType, PlaceIntent, Position, Side, StrategyPosition } from '../core/types.js';

/**
 * The plugin API this sluice speaks. Version 2 adds readers (depth, klines, best bid and ask,
 * mid), the strategy's own fills, orders and position, typed order events, timers, state kept
 * across restarts, indicators and per-subscription polling periods; version 1 plugins load and
 * run unchanged (they simply do not use what 2 adds).
 */
export const API_VERSION = 2;
export const API_VERSIONS: readonly number[] = [1, 2];

/** `everyMs` (version 2): how often this feed is polled, instead of engine.marketDataEveryMs. */
export type MarketSubscription =
  | { kind: 'ticker'; everyMs?: number }
  | { kind: 'depth'; limit?: number; everyMs?: number }
  /** Spot only: futures lists no public trades (a futures strategy subscribing is refused at start). */
  | { kind: 'trades'; limit?: number; everyMs?: number }
  /** `history` (version 2): closed candles to have before the strategy starts (warm-up); default none. */
  | { kind: 'klines'; interval: KlineInterval; limit?: number; history?: number; everyMs?: number };

/**
 * A kline as strategies see it: `closed` is false for the newest candle while it is still
 * forming. The venue's data decides it (a later candle, or the venue's clock past its end);
 * once handed on closed, a candle never changes (engine/candles.ts).
 */
export interface Candle extends Kline {
  closed: boolean;
}

export type MarketEvent =
  | { kind: 'ticker'; symbol: string; ticker: Ticker }
  | { kind: 'depth'; symbol: string; depth: Depth }
  /**
   * The trades new since the feed's last event, oldest first, each once (none new: no event).
   * `gap`: none of the trades handed on before is in this poll's page, so more trades may
   * have happened between the polls than the page holds (ask a larger `limit`, poll more often).
   */
  | { kind: 'trades'; symbol: string; trades: PublicTrade[]; gap?: true }
  /** Sent when a candle closes or the forming one changes, not on every poll. */
  | { kind: 'klines'; symbol: string; interval: KlineInterval; klines: Candle[] };

/**
 * What happened to one of the strategy's orders (version 2), with the reason where there is
 * one: the risk rule or the venue's code and message for a rejection, why it was cancelled.
 * `rejected` without an order: the request could not even be formed (a malformed place).
 * `cancel_failed`: a cancel this strategy asked for ended without effect (the venue refused it or
 * did not confirm it, or it was dropped unsent: a ban, engine.maxQueueMs, the stop); the order
 * may still be open, and cancel() or replace() may ask again.
 * `exit`: sluice is closing the strategy's position in `symbol` (its config entry's `exits`):
 * `last` reached `trigger`, from the booked average `entry`; `order` is the closing MARKET order
 * (the strategy's own: its accepted, filled and fill follow as for any other). Its open orders
 * in the symbol were cancelled first, and its new ones there are refused until the exit and
 * `exits.cooldownMs` end.
 */
export type OrderEvent =
  | { kind: 'accepted' | 'partially_filled' | 'filled' | 'cancel_pending'; order: Order }
  | { kind: 'canceled' | 'unknown'; order: Order; reason?: string }
  | { kind: 'cancel_failed'; order: Order; reason: string }
  | { kind: 'rejected'; clientOrderId: ClientOrderId; order?: Order; reason: string }
  | { kind: 'exit'; symbol: string; reason: ExitReason; entry: Decimal; trigger: Decimal; last: Decimal; order: Order };

/** A futures account's margin, as the venue last reported it (decimals; absent where the venue sent none). */
export interface Margin {
  coin: string;
  available?: Decimal;
  locked?: Decimal;
  unrealizedPnl?: Decimal;
  realizedPnl?: Decimal;
}

/** An indicator of the trading-signals library, or anything that takes values the same way. */
export interface StreamingIndicator<In = number> {
  add(input: In): unknown;
  replace(input: In): unknown;
}

export type TimerId = number & { readonly __timer: unique symbol };

export interface OrderRequest {
  symbol: string;
  side: Side;
  type: OrderType;
  /** Base quantity as a decimal string; for a spot MARKET BUY, the quote amount to spend. */
  volume: Decimal | string;
  /** Required for LIMIT, absent for MARKET. */
  price?: Decimal | string;
  /** Futures only: open or close a position (default OPEN), cross 1 or isolated 2 (default 1). */
  open?: 'OPEN' | 'CLOSE';
  positionType?: 1 | 2;
  /** Futures only (spot v1 has none): IOC, FOK, or POST_ONLY (rests as maker or is cancelled). */
  timeInForce?: 'IOC' | 'FOK' | 'POST_ONLY';
}

export interface StrategyLogger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** What a strategy can read and do. Reads are snapshots; writes only queue intents. */
export interface StrategyContext<P> {
  readonly id: string;
  readonly params: Readonly<P>;
  readonly market: Market;
  readonly symbols: readonly string[];
  readonly log: StrategyLogger;
  /** Current time: the engine's clock, virtual in backtests. */
  now(): number;
  /**
   * The position in `symbol` built from this account's fills (zero when flat); `netQuantity` is
   * what a sell that closes a spot position can sell. `quantity` and `netQuantity` include what
   * the venue said executed before its fills are booked (`unbookedQuantity`), so an order that
   * left openOrders is never missing from both; `avgEntryPrice`, `realizedPnl` and the fees come
   * from booked fills only.
   */
  position(symbol: string): StrategyPosition;
  /** This strategy's orders that are not final (pending, open, partially filled, unknown). */
  openOrders(symbol?: string): readonly Order[];
  /**
   * A spot balance as risk judges it: the last account read, with what fills the venue booked
   * after it moved (a buy's coins are free at its fill, not a pass later), less what orders
   * accepted since hold (free only); fills it may already show, and cancels, count from the next read.
   */
  balance(asset: string): Balance;
  lastPrice(symbol: string): Decimal | undefined;
  instrument(symbol: string): SymbolInfo | undefined;
  // ---- version 2 readers: the latest of each feed this strategy subscribes to (undefined before the first) ----
  ticker(symbol: string): Ticker | undefined;
  depth(symbol: string): Depth | undefined;
  /** Candles oldest first; the last may be forming (`closed: false`). */
  klines(symbol: string, interval: KlineInterval): readonly Candle[] | undefined;
  /** Best bid, best ask and their mid: from depth, else the ticker. */
  bestBid(symbol: string): Decimal | undefined;
  bestAsk(symbol: string): Decimal | undefined;
  mid(symbol: string): Decimal | undefined;
  /** A price rounded to the symbol's tick (down for BUY, up for SELL, so it never crosses further than asked); accepts an indicator's number. */
  roundPrice(symbol: string, price: Decimal | string | number, side: Side): Decimal;
  // ---- version 2: this strategy's own history and position ----
  /** This strategy's fills, oldest first (the latest 1000). */
  fills(symbol?: string): readonly Fill[];
  /** This strategy's orders, final ones included, oldest first (the latest 1000). */
  orders(symbol?: string): readonly Order[];
  /** The position built from this strategy's fills alone (`position()` is the whole account's), with its unbooked executions as `position()` counts them. */
  ownPosition(symbol: string): StrategyPosition;
  /**
   * Whether this strategy's own position in `symbol` (ownPosition) is below what one order can
   * close: flat, or only dust left. Spot: `netQuantity` (less a buy's base-coin fee) rounded down
   * to the symbol's quantity precision is zero or below its minimum (marketSellMin, else
   * limitVolumeMin), or nothing is held; futures: fewer whole contracts than limitVolumeMin (at
   * least one). The rule protective exits use to skip a position as flat. Use it for "am I
   * flat?" instead of `dec.isZero(position(symbol).quantity)`, which a buy's fee or a remainder
   * below the lot keeps false for good. Throws a RangeError for a symbol it does not trade.
   */
  isFlat(symbol: string): boolean;
  /** Futures: the account's margin as last read (undefined for spot, or before the first read). */
  margin(): Margin | undefined;
  // ---- version 2: timers and indicators ----
  /** Calls `fn` once after `delayMs` on the engine clock (virtual in backtests); its orders go out like a tick's. */
  setTimer(delayMs: number, fn: () => void | Promise<void>): TimerId;
  clearTimer(id: TimerId): void;
  /**
   * Feeds `indicator` from `symbol`'s `interval` klines (subscribe to them): each closed candle
   * once, oldest first, the forming one too with `forming: true` (replaced as it changes).
   * `input` picks what it takes: the close (a number, the default) or the candle (numbers
   * open, high, low, close, volume). Indicator values are numbers: signals, not money; make
   * a price of one with roundPrice().
   */
  indicator<I extends StreamingIndicator<number> | StreamingIndicator<CandleInput>>(symbol: string, interval: KlineInterval, indicator: I, opts?: { input?: 'close' | 'candle'; forming?: boolean }): I;
  /** Queues a new order; returns its client order id at once. A malformed request is rejected with a reason in the log. */
  place(request: OrderRequest): ClientOrderId;
  cancel(clientOrderId: ClientOrderId): void;
  /** Cancels every open order of this strategy (in `symbol` only, when given); returns how many. */
  cancelAll(symbol?: string): number;
  /**
   * Cancels an order and places its replacement with the changes applied, keeping everything
   * else of the original (side, type, futures open/close, position type and time in force). A
   * replacement is sent right after the cancel: if the original trades first, both may fill. A futures CLOSE's
   * replacement is sent once the original has ended (the venue holds its volume until then),
   * and dropped if the original filled instead.
   */
  replace(clientOrderId: ClientOrderId, changes: { price?: Decimal | string; volume?: Decimal | string }): ClientOrderId | undefined;
}

/** A candle as indicators that take one read it (trading-signals' shape). */
export interface CandleInput {
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export interface StrategyHandlers {
  onStart?(): void | Promise<void>;
  onTick?(): void | Promise<void>;
  onMarketData?(event: MarketEvent): void | Promise<void>;
  /** One of its orders traded: `order` is that order as now known (its clientOrderId, the price asked, its status). */
  onFill?(fill: Fill, order: Order): void | Promise<void>;
  onOrderUpdate?(order: Order): void | Promise<void>;
  /** Version 2: what happened to an order, with the reason. */
  onOrderEvent?(event: OrderEvent): void | Promise<void>;
  /**
   * The daemon is stopping: the last call whose requests are sent (engine.shutdown.queued decides
   * whether they go). Fills and order updates still arrive as the stop settles its orders; what
   * is asked for then is refused and logged.
   */
  onStop?(): void | Promise<void>;
  /** Version 2: state to keep across restarts (JSON, at most 1 MB): asked every minute and at stop, kept in the journal. */
  onSave?(): unknown;
  /** Version 2: the state onSave returned last, before onStart (not called when there is none). */
  onLoad?(state: unknown): void | Promise<void>;
}

export interface StrategyDefinition<S extends z.ZodType = z.ZodType> {
  apiVersion: 1 | 2;
  name: string;
  /** Schema of `params` in the YAML; problems are reported at start-up with their paths. */
  params: S;
  /** Market data to poll for each of the strategy's symbols (default: the ticker). */
  subscribe?(params: z.infer<S>): MarketSubscription[];
  /**
   * Builds the strategy's handlers. It runs once more at the door (validate, run, backtest) over
   * an empty view, so that a handler sluice never calls (`onTik`) is refused before anything
   * trades: build the handlers and state here, and leave effects to onStart.
   */
  create(ctx: StrategyContext<z.infer<S>>): StrategyHandlers;
}

export function defineStrategy<S extends z.ZodType>(definition: StrategyDefinition<S>): StrategyDefinition<S> {
  return definition;
}

/**
 * A params field holding money or a quantity: written in YAML as a quoted decimal string,
 * handed to the plugin as a Decimal. Bare YAML numbers are refused (floats never carry money).
 */
export function decimalParam(defaultValue?: string) {
  const text = z.string().regex(/^\d+(\.\d+)?$/, { error: (issue) => decimalParamProblem(String(issue.input)) });
  return (defaultValue === undefined ? text : text.default(defaultValue)).transform((s) => toDecimalChecked(s));
}

/** What is wrong with a decimalParam's text, and what to write: the plain digits of "1e-3" or "+5". */
function decimalParamProblem(input: string): string {
  if (input.trim().startsWith('-')) return 'must not be negative';
  try {
    toDecimal(input, 'param');
  } catch (err) {
    const plain = err instanceof DecimalFormatError ? err.hint?.plain : undefined;
    if (plain !== undefined) return `${PLAIN_RULE}; write "${plain}"`;
  }
  return 'write a non-negative decimal as a quoted string, e.g. "0.001"';
}

function toDecimalChecked(s: string): Decimal {
  return toDecimal(s, 'param');
}
