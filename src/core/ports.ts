// The seams between sluice and the world. Each has more than one implementation
// (live, simulated, recorded, replayed, virtual-time), so each is an interface here.

import type { Decimal } from './decimal.js';
import type { VenueOrderId } from './ids.js';
import type { Depth, Kline, KlineInterval, PublicTrade, SymbolInfo, Ticker } from './market.js';
import type { Balance, Fill, Market, Order, OrderIntent, Position } from './types.js';
import type { Listing, VenueOrder, VenueTrade } from './venue.js';

export type { Clock } from './clock.js';

export type HttpMethod = 'GET' | 'POST';

export interface HttpRequest {
  method: HttpMethod;
  /** Path only, e.g. /sapi/v1/order. */
  path: string;
  /** Raw query string without '?', exactly as sent and signed; empty when none. */
  query: string;
  /** Raw body exactly as sent and signed; empty for GET. */
  body: string;
  headers: Readonly<Record<string, string>>;
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string>>;
  body: string;
  /**
   * The body as parseJsonLossless reads it, when the transport has it without the text (a
   * trusted in-process venue): the client then reads no JSON. `body` still gives the text.
   */
  json?: unknown;
}

/**
 * Moves one request to a venue and back. Implementations throw TransportFailure when no
 * HTTP answer arrived, saying whether the request may have reached the venue.
 */
export interface Transport {
  send(request: HttpRequest): Promise<HttpResponse>;
  close?(): Promise<void>;
  /**
   * A venue in this process that takes the API key as proof of the caller (a backtest's
   * simulator): signed requests may go without X-CH-SIGN. Transports to a wire leave it unset.
   */
  readonly trusted?: boolean;
}

export class TransportFailure extends Error {
  constructor(
    message: string,
    /** True when bytes may have reached the venue (so a write may have been executed). */
    readonly maybeDelivered: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportFailure';
  }
}

/** Paces jobs per endpoint so no rolling 2 s window ever holds more than that endpoint's limit. */
export interface Pacer {
  /** Runs `job` when `endpoint` has room; the job's start is the moment the request may be sent. */
  run<T>(endpoint: string, job: () => Promise<T>): Promise<T>;
  /**
   * Stops `endpoint` taking new jobs for `ms` (after a 429); then it probes (answered()), unless
   * `probe: false` says nothing suggests the venue refuses (a wait for the rate window alone).
   */
  pauseEndpoint(endpoint: string, ms: number, opts?: { probe?: boolean }): void;
  /** Stops every endpoint until `untilMs` (after a 418). */
  pauseAll(untilMs: number): void;
  /**
   * The venue answered a request on `endpoint`, started at `sentAt`, with something other than a
   * rate limit, a ban or a 5xx. After a pause an endpoint sends one request at a time (after a
   * ban, one across all) until this is said of a request started after the pause began, so a
   * venue still refusing meets one request, not the whole queue.
   */
  answered(endpoint: string, sentAt: number): void;
  /** Time (epoch ms) until which everything is paused, or 0. */
  pausedUntil(): number;
  /** For the summary line and metrics: requests in the current window per endpoint, queue depth. */
  usage(): Record<string, { inWindow: number; limit: number; queued: number }>;
  /**
   * Resolves the next time a slot comes back or a pause ends, on any endpoint, where the pacer
   * learns of it by a timer; a pacer whose slots free by arithmetic on the clock (the virtual
   * one) never resolves it. Callers race it with a timer of their own.
   */
  released(): Promise<void>;
  stop(): Promise<void>;
}


/** One change of an order's state, kept as its history. */
export interface OrderEvent {
  clientOrderId: string;
  at: number;
  status: Order['status'];
  reason?: string;
}

/**
 * What must survive a restart: intents before they are sent, orders and their history,
 * fills (unique by trade id), per-strategy sequences, cursors and the ban end.
 * Synchronous on purpose: a journal write completes before the request it guards is sent.
 */
export interface Journal {
  /** Reserves the next client-order sequence of a strategy (never handed out twice). */
  nextSequence(strategyId: string): number;
  /** Records an intent and its order as `pending`, before anything is sent. */
  recordIntent(intent: OrderIntent, order: Order): void;
  /** Applies a change to a known order and appends it to its history. */
  updateOrder(order: Order, reason?: string): void;
  order(clientOrderId: string): Order | undefined;
  /** Read whole: for tools and tests (a daemon's journal can hold millions; eachOrder streams). */
  orders(filter?: { openOnly?: boolean; strategyId?: string }): Order[];
  /**
   * Every order in intent order, streamed: memory stays flat whatever the journal holds. Read it
   * through without awaiting; the journal takes no writes until the loop ends.
   */
  eachOrder(): Iterable<Order>;
  /** A strategy's latest `limit` orders by when they were journaled, oldest first (its own history, bounded). */
  latestOrders(strategyId: string, limit: number): Order[];
  /** Our orders the venue knows under this id (normally one), final ones included. */
  ordersByVenueId(venueOrderId: string): Order[];
  history(clientOrderId: string): OrderEvent[];
  /** Stores a fill; false when that trade id was already stored. */
  recordFill(fill: Fill): boolean;
  /** Read whole: for tools and tests (eachFill streams). */
  fills(): Fill[];
  /**
   * Every fill in journal order with its journal number (`id`, increasing) and the strategy whose
   * order it is (undefined: not ours), streamed as eachOrder; after `afterId`, only the later ones.
   */
  eachFill(afterId?: number): Iterable<{ id: number; fill: Fill; strategyId: string | undefined }>;
  /** The journal number of the latest fill (0: none yet). */
  lastFillId(): number;
  /** The latest `limit` fills journaled, oldest first: a look at recent fills that costs the same however long the journal. */
  latestFills(limit: number): Fill[];
  /** A strategy's latest `limit` fills (as eachFill attributes them), oldest first: its own history, bounded. */
  latestFillsOf(strategyId: string, limit: number): Fill[];
  /** The volumes of the fills journaled for one venue order (its executed volume is their sum). */
  fillVolumes(market: Market, symbol: string, venueOrderId: string): Decimal[];
  /** The position book as last saved, for people and tools (a start restores from the checkpoint cursor, engine/positions-checkpoint.ts). */
  positions(): Position[];
  savePositions(positions: readonly Position[]): void;
  cursor(key: string): string | undefined;
  setCursor(key: string, value: string): void;
  banUntil(): number;
  setBanUntil(untilMs: number): void;
  /** Runs `fn`, whose writes then share one commit (SQLite: all or none; memory: as they come). */
  transaction<T>(fn: () => T): T;
  /**
   * A mark naming every write so far. A returned write survives kill -9; it survives power loss
   * once durable(mark) resolves (SQLite: an fsync off the event loop that covers every commit
   * made before it; memory: never, so at once). Orders wait for it before they leave.
   */
  mark(): number;
  durable(mark: number): Promise<void>;
  /** Set while writes fail (a full or read-only disk): since when, and why. Cleared by the next commit that works. */
  writeFailure(): JournalWriteFailure | undefined;
  /** `listener` hears when writes start failing and when they work again (undefined); it replaces any before it. */
  watchWrites(listener: (failure: JournalWriteFailure | undefined) => void): void;
  close(): void;
}

export interface JournalWriteFailure {
  /** Epoch ms of the first failure. */
  since: number;
  /** Names the journal, the failure and what to do. */
  message: string;
}

/** One read of a symbol's open orders. */
export interface OpenOrdersPage extends Listing<VenueOrder> {
  /**
   * Every open order of the symbol is in it (or among `skipped`): the page is shorter than any
   * cap the venue may have applied. Only then does an order's absence mean it left the book.
   */
  complete: boolean;
}

/** One page of the account's trades in a symbol, ascending by trade id. */
export interface TradesPage extends Listing<VenueTrade> {
  /** The page may have been cut at the venue's page size: more trades may follow its last id. */
  full: boolean;
}

/** What the account holds, as one venue read: the side of drift the venue gives. */
export interface Holdings {
  market: Market;
  /**
   * Spot: each asset's free + locked. Futures: each contract's net position in contracts
   * (long minus short).
   */
  amounts: ReadonlyMap<string, Decimal>;
  /** Names whose figure could not be read this time ('*': none can be trusted). */
  unreadable: ReadonlySet<string>;
  /** Spot balances as read (free and locked), for the risk gate. */
  balances: readonly Balance[];
  /** Futures: each margin account as read (figures the venue sent as null are absent). */
  margins?: readonly MarginAccount[];
}

export interface MarginAccount {
  coin: string;
  available?: Decimal;
  locked?: Decimal;
  unrealizedPnl?: Decimal;
  realizedPnl?: Decimal;
}

/**
 * The account as one market's venue shows it: one implementation per market, so no caller
 * branches on spot or futures before a read. Failures throw classified SluiceErrors.
 */
export interface AccountReader {
  readonly market: Market;
  /** The symbol's open orders, asked for as many as the venue gives in one page. */
  openOrders(symbol: string): Promise<OpenOrdersPage>;
  /** Trades from `fromId` on (inclusive); the latest page when absent. */
  trades(symbol: string, fromId?: string): Promise<TradesPage>;
  /** One order by its venue id; UnknownOrderError (-2013) when the venue does not know it. */
  order(symbol: string, orderId: VenueOrderId): Promise<VenueOrder>;
  /**
   * One order by our client order id. Not every venue offers it (the contract's lookup takes
   * orderId): such a venue answers a parameter error, which says the lookup is not supported.
   */
  orderByClientId(symbol: string, clientOrderId: string): Promise<VenueOrder>;
  holdings(): Promise<Holdings>;
}

/** Public market data of one market. */
export interface MarketReader {
  readonly market: Market;
  /** The instruments the venue lists (for futures: contracts, with their size as `multiplier`). */
  instruments(): Promise<Listing<SymbolInfo>>;
  ticker(symbol: string): Promise<Ticker>;
  depth(symbol: string, limit?: number): Promise<Depth>;
  trades(symbol: string, limit?: number): Promise<PublicTrade[]>;
  klines(symbol: string, interval: KlineInterval, limit?: number): Promise<Kline[]>;
}
