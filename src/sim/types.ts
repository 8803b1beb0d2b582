// The simulator's options and the records it keeps for tests, backtests and tapes.
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { Kline } from '../core/market.js';
import type { Side } from '../core/types.js';
import type { Resting } from './book.js';
import type { FaultOptions, LatencySpec } from './faults.js';
import type { ContractSpec, SymbolSpec } from './instruments.js';
import type { ProfileOption } from './profile.js';
import type { TapeDecimal } from './units.js';

export interface SimOptions {
  /** Seed of the synthetic market, ids, generated credentials and fault draws. Default 1. */
  seed?: number;
  /** Default systemClock; backtests and tests pass a ManualClock. */
  clock?: Clock;
  /** Credentials the venue accepts; generated from the seed when absent. */
  apiKey?: string;
  apiSecret?: string;
  symbols?: readonly SymbolSpec[];
  contracts?: readonly ContractSpec[];
  /** Spot starting balances. Default 100000 USDT, 2 BTC, 20 ETH. */
  balances?: Readonly<Record<string, string>>;
  /** Futures starting margin (in each contract's margin coin). Default 100000. */
  futuresBalance?: string;
  /** Fee rates. Default maker 0.001, taker 0.002. */
  fees?: { maker: string; taker: string };
  /** Ban length after repeated 429s. Default 120000. */
  banMs?: number;
  /** 429s within violationWindowMs after which the next violation bans. Default 10 in 60000 ms. */
  banAfterViolations?: number;
  violationWindowMs?: number;
  /** Per-endpoint limits per 2 s by endpoint id (e.g. {'spot.order': 1000}). */
  limits?: Readonly<Record<string, number>>;
  /** false lifts every rate limit (benchmarks). Default true. */
  rateLimits?: boolean;
  /** Network delay each way; same as faults.latencyMs. */
  latencyMs?: Partial<LatencySpec>;
  faults?: Partial<FaultOptions>;
  /** Venue time between two steps of the synthetic market. Default 250. */
  stepMs?: number;
  /**
   * Symbols (spot or contract) whose synthetic market moves; every listed one when absent. The
   * others keep their opening book. A backtest moves only what its strategies trade: the rest
   * would move unseen (on a dense tape that was a fifth of the simulator's work).
   */
  moving?: readonly string[];
  /** Venue time from a cancel request (PENDING_CANCEL) to its settlement (CANCELED). Default 200. */
  cancelSettleMs?: number;
  /**
   * Timed troubles in venue time, for backtests of a bad day: a `rate_limit_storm` answers 429
   * to everything (without counting toward a ban), a `ban` answers 418 to every caller, a
   * `clock_jump` moves the clock the venue checks timestamps against (and reports) by skewMs.
   */
  troubles?: readonly Trouble[];
  /**
   * The venue's troubles a tape recorded (tape/incidents.ts derives them), played back at their
   * recorded times in venue time: see troubles.ts for how each kind answers.
   */
  incidents?: readonly RecordedIncident[];
  /**
   * How closely the venue keeps to the contract's letter and the live variants of the notes:
   * 'lenient' (default for now), 'strict', or a VenueProfile of your own. See README.md, Profiles.
   */
  profile?: ProfileOption;
  /**
   * Venue time (ms) the venue keeps final orders, account trades and its accepted-order log
   * answerable: older ones are forgotten (see history.ts). Default: kept for the run (tests and
   * backtests judge the whole run from them); paper mode sets an hour.
   */
  keepMs?: number;
  /** Futures position model: 1 net (one signed position per contract), 2 hedge (long and short apart). Default 2. */
  futuresPositionModel?: 1 | 2;
  /**
   * Test seam: called with the endpoint id and every 200 success body after the endpoint built
   * it and before it is written; its result is what the venue answers. Lets a test slip in odd
   * items (a status like "EXPIRED", an integer type, a null). Raw number literals of the strict
   * shapes are JsonNumber objects here; put a JsonNumber in to write one.
   */
  rewrite?: (endpoint: string, body: unknown) => unknown;
}

export interface Trouble {
  kind: 'rate_limit_storm' | 'ban' | 'clock_jump';
  from: number;
  until: number;
  /** clock_jump only: ms added to the venue's clock while it lasts. */
  skewMs?: number;
}

/** An HTTP answer as a tape recorded it: the status, the headers it keeps, the body's text. */
export interface RecordedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * ban: 418 to everything for a while. rate_limit (429), error (a 5xx or -1000 without acting),
 * unknown_outcome (504, or no answer after the request may have arrived) and reset (no answer,
 * the request never arrived) meet one request of one endpoint each.
 */
export type IncidentKind = 'ban' | 'rate_limit' | 'error' | 'unknown_outcome' | 'reset';
export const INCIDENT_KINDS: readonly IncidentKind[] = ['ban', 'rate_limit', 'error', 'unknown_outcome', 'reset'];

/** A venue trouble recorded on a tape, at its recorded time (the request's, ms). */
export interface RecordedIncident {
  kind: IncidentKind;
  at: number;
  /** The endpoint id it met; a ban has none (it stops every endpoint). */
  endpoint?: string;
  /** ban only: when it ends. */
  until?: number;
  /** The recorded answer; none when the connection dropped, or for a ban whose end the venue stated (it states it again). */
  answer?: RecordedAnswer;
  /** The transport's words when no answer came. */
  message?: string;
}

/** A request that gets no HTTP answer: the adapter drops the connection (or throws TransportFailure). */
export class SimFault {
  constructor(
    readonly kind: 'reset' | 'lost-response',
    /** True when the venue acted on the request before the answer was lost. */
    readonly acted: boolean,
    /**
     * What the in-process caller is told. The simulator's own faults leave it unsure, as a
     * dropped connection does; a recorded failure keeps what the recording's transport knew.
     */
    readonly maybeDelivered = true,
    private readonly recorded?: string,
  ) {}

  get message(): string {
    if (this.recorded !== undefined) return `${this.recorded} (as the tape recorded it)`;
    return this.kind === 'reset' ? 'connection reset by the simulated venue' : 'response lost after the simulated venue acted';
  }
}

export interface Arrival {
  /** Venue time of arrival (after inbound latency). */
  at: number;
  /** The X-CH-APIKEY header, if any. */
  key?: string;
  remote: string;
  /** Endpoint id (spot.order, ...), or "METHOD path" for an unknown route. */
  endpoint: string;
  /** HTTP status answered; 0 when no answer was sent (reset or lost response). */
  status: number;
  /** Venue code of an error answer. */
  code?: number;
  fault?: 'reset' | 'error5xx' | 'lost-response' | 'timeout' | 'error-after-act';
  /** The recorded incident that answered it (SimOptions.incidents). */
  incident?: IncidentKind;
}

export interface LoggedOrder {
  orderId: string;
  clientOrderId?: string;
  market: 'spot' | 'futures';
  symbol: string;
  side: Side;
  type: 'LIMIT' | 'MARKET';
  price?: Decimal;
  volume: Decimal;
  /** Futures only. */
  open?: 'OPEN' | 'CLOSE';
  at: number;
}

export type { ScaledDecimal, TapeDecimal } from './units.js';

/** A market-data event recorded on a tape, as the simulator applies it (strategies see strategy/api.ts MarketEvent). */
export type RecordedMarketEvent =
  | { type: 'book'; symbol: string; bids: ReadonlyArray<readonly [TapeDecimal, TapeDecimal]>; asks: ReadonlyArray<readonly [TapeDecimal, TapeDecimal]> }
  | { type: 'trade'; symbol: string; price: TapeDecimal; qty: TapeDecimal; side: Side }
  /**
   * One answer's public trades as the event cache gives them back, each in TRADE_CELLS numbers:
   * its price's and its quantity's ScaledDecimal (digits, places), then 1 for a BUY or 0 for a
   * SELL. The same as a `trade` event per trade, in order; one array where four objects a trade
   * were most of what a cached backtest allocated.
   */
  | { type: 'tradeCells'; symbol: string; cells: readonly number[] }
  /**
   * A book as the event cache gives it back: its `bids` levels, then its asks, each in
   * LEVEL_CELLS numbers (its price's and its quantity's ScaledDecimal: digits, places). The same
   * as the `book` event it stands for, without an array a level and an object a decimal.
   */
  | { type: 'bookCells'; symbol: string; bids: number; cells: readonly number[] }
  | { type: 'ticker'; symbol: string; last: TapeDecimal }
  /**
   * Candles a klines answer held that no earlier answer of its symbol and interval held as
   * they are (tape/klines.ts), oldest first: the venue's history, which the simulator serves
   * before the candles it builds from the tape's trades (sim/recorded-klines.ts). `interval`
   * is as the request named it.
   */
  | { type: 'klines'; symbol: string; interval: string; klines: readonly Kline[] };

/** Numbers a trade takes in a `tradeCells` event's cells. */
export const TRADE_CELLS = 5;
/** Numbers a level takes in a `bookCells` event's cells. */
export const LEVEL_CELLS = 4;

/** The tape events one market event stands for: a `tradeCells` event is one per trade. */
export function eventCount(ev: RecordedMarketEvent): number {
  return ev.type === 'tradeCells' ? ev.cells.length / TRADE_CELLS : 1;
}

// ---------- what spot and futures share ----------

export type VenueStatus = 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'PENDING_CANCEL' | 'REJECTED';

export interface UserTrade {
  id: string;
  market: 'spot' | 'futures';
  symbol: string;
  account: string;
  orderId: string;
  side: Side;
  takerSide: Side;
  price: Decimal;
  qty: Decimal;
  /** price * qty (times the multiplier for futures). */
  quote: Decimal;
  fee: Decimal;
  feeCoin: string;
  isMaker: boolean;
  bidId: string;
  askId: string;
  /** Accounts of the buyer and the seller (OTHERS for the other participants). */
  bidUser: string;
  askUser: string;
  isSelf: boolean;
  at: number;
  /** When myTrades starts showing it (later than `at` under the late-fill fault). */
  visibleAt: number;
}

export interface Fees {
  maker: Decimal;
  taker: Decimal;
}

export const FINAL: ReadonlySet<VenueStatus> = new Set(['FILLED', 'CANCELED', 'REJECTED']);

/**
 * The orders of `live` (every order placed, in placement order) that are still open and match;
 * orders found final leave the set, so a poll costs the open orders, not every order ever placed.
 */
export function stillOpen<T extends { status: VenueStatus }>(live: Set<T>, match: (o: T) => boolean): T[] {
  const out: T[] = [];
  for (const o of live) {
    if (FINAL.has(o.status)) live.delete(o);
    else if (match(o)) out.push(o);
  }
  return out;
}

/** Client order ids are not unique on the venue: the latest order of an account with one, per symbol. */
export const clientKey = (account: string, symbol: string, clientOrderId: string) => `${account}\u0000${symbol}\u0000${clientOrderId}`;

/** A fill in which an account takes part, as an instrument's market reports it to its ledger (spot.ts, futures.ts). */
export interface MarketFill {
  tradeId: string;
  at: number;
  priceTicks: number;
  lots: number;
  takerSide: Side;
  takerId: string;
  takerOwner: string;
  maker: Resting;
}
