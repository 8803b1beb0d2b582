// The seams between sluice and the world. Each has more than one implementation
// (live, simulated, recorded, replayed, virtual-time), so each is an interface here.

import type { Fill, Order, OrderIntent, Position } from './types.js';

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
}

/**
 * Moves one request to a venue and back. Implementations throw TransportFailure when no
 * HTTP answer arrived, saying whether the request may have reached the venue.
 */
export interface Transport {
  send(request: HttpRequest): Promise<HttpResponse>;
  close?(): Promise<void>;
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
  /** Stops `endpoint` taking new jobs for `ms` (after a 429). */
  pauseEndpoint(endpoint: string, ms: number): void;
  /** Stops every endpoint until `untilMs` (after a 418). */
  pauseAll(untilMs: number): void;
  /** Time (epoch ms) until which everything is paused, or 0. */
  pausedUntil(): number;
  /** For the summary line and metrics: requests in the current window per endpoint, queue depth. */
  usage(): Record<string, { inWindow: number; limit: number; queued: number }>;
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
  orders(filter?: { openOnly?: boolean; strategyId?: string }): Order[];
  /** Our orders the venue knows under this id (normally one), final ones included. */
  ordersByVenueId(venueOrderId: string): Order[];
  history(clientOrderId: string): OrderEvent[];
  /** Stores a fill; false when that trade id was already stored. */
  recordFill(fill: Fill): boolean;
  fills(): Fill[];
  /** The position book as last saved (positions derive from fills; this is their checkpoint). */
  positions(): Position[];
  savePositions(positions: readonly Position[]): void;
  cursor(key: string): string | undefined;
  setCursor(key: string, value: string): void;
  banUntil(): number;
  setBanUntil(untilMs: number): void;
  /** Runs `fn`, whose writes then share one commit (SQLite: one fsync, all or none; memory: as they come). */
  transaction<T>(fn: () => T): T;
  close(): void;
}
