// The one public module plugins import: `import { defineStrategy, z, dec } from 'sluice/strategy'`.
// Everything a strategy can see or do goes through the context; it never calls the exchange.
import { z } from 'zod';
import { toDecimal, type Decimal } from '../core/decimal.js';
import type { ClientOrderId } from '../core/ids.js';
import type { Depth, Kline, KlineInterval, PublicTrade, SymbolInfo, Ticker } from '../core/market.js';
import type { Balance, Fill, Market, Order, OrderType, Position, Side } from '../core/types.js';

export { z };
export { dec, d, toDecimal, type Decimal } from '../core/decimal.js';
export type { ClientOrderId } from '../core/ids.js';
export type { Depth, Kline, KlineInterval, PublicTrade, SymbolInfo, Ticker } from '../core/market.js';
export type { Balance, Fill, Market, Order, OrderType, Position, Side } from '../core/types.js';

export const API_VERSION = 1;

export type MarketSubscription =
  | { kind: 'ticker' }
  | { kind: 'depth'; limit?: number }
  | { kind: 'trades'; limit?: number }
  | { kind: 'klines'; interval: KlineInterval; limit?: number };

export type MarketEvent =
  | { kind: 'ticker'; symbol: string; ticker: Ticker }
  | { kind: 'depth'; symbol: string; depth: Depth }
  | { kind: 'trades'; symbol: string; trades: PublicTrade[] }
  | { kind: 'klines'; symbol: string; interval: KlineInterval; klines: Kline[] };

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
  /** The position in `symbol` built from this account's fills (zero when flat). */
  position(symbol: string): Position;
  /** This strategy's orders that are not final (pending, open, partially filled, unknown). */
  openOrders(symbol?: string): readonly Order[];
  balance(asset: string): Balance;
  lastPrice(symbol: string): Decimal | undefined;
  instrument(symbol: string): SymbolInfo | undefined;
  /** Queues a new order; returns its client order id at once. A malformed request is rejected with a reason in the log. */
  place(request: OrderRequest): ClientOrderId;
  cancel(clientOrderId: ClientOrderId): void;
  /** Cancels every open order of this strategy (in `symbol` only, when given); returns how many. */
  cancelAll(symbol?: string): number;
  /**
   * Cancels an order and places its replacement with the changes applied, keeping everything
   * else of the original (side, type, futures open/close and position type). A futures CLOSE's
   * replacement is sent once the original has ended (the venue holds its volume until then),
   * and dropped if the original filled instead.
   */
  replace(clientOrderId: ClientOrderId, changes: { price?: Decimal | string; volume?: Decimal | string }): ClientOrderId | undefined;
}

export interface StrategyHandlers {
  onStart?(): void | Promise<void>;
  onTick?(): void | Promise<void>;
  onMarketData?(event: MarketEvent): void | Promise<void>;
  onFill?(fill: Fill): void | Promise<void>;
  onOrderUpdate?(order: Order): void | Promise<void>;
  onStop?(): void | Promise<void>;
}

export interface StrategyDefinition<S extends z.ZodType = z.ZodType> {
  apiVersion: typeof API_VERSION;
  name: string;
  /** Schema of `params` in the YAML; problems are reported at start-up with their paths. */
  params: S;
  /** Market data to poll for each of the strategy's symbols (default: the ticker). */
  subscribe?(params: z.infer<S>): MarketSubscription[];
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
  const text = z.string().regex(/^\d+(\.\d+)?$/, 'write a non-negative decimal as a quoted string, e.g. "0.001"');
  return (defaultValue === undefined ? text : text.default(defaultValue)).transform((s) => toDecimalChecked(s));
}

function toDecimalChecked(s: string): Decimal {
  return toDecimal(s, 'param');
}
