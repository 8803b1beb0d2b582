// What an endpoint handler sees of the simulated exchange, and the handler's shape. Routes
// depend on this narrow view, not on the exchange class that dispatches to them.
import type { FuturesEngine } from './futures.js';
import type { ContractSpec, SymbolSpec } from './instruments.js';
import type { Ledger } from './ledger.js';
import type { InstrumentMarket } from './market.js';
import type { Params } from './params.js';
import type { VenueProfile } from './profile.js';
import type { SpotEngine } from './spot.js';
import type { TradeLog } from './trades.js';
import type { LoggedOrder } from './types.js';

export interface VenueView {
  readonly symbols: ReadonlyMap<string, SymbolSpec>;
  readonly contracts: ReadonlyMap<string, ContractSpec>;
  readonly markets: ReadonlyMap<string, InstrumentMarket>;
  readonly ledger: Ledger;
  readonly spot: SpotEngine;
  readonly futures: FuturesEngine;
  /** How long an accepted cancel stays PENDING_CANCEL. */
  readonly cancelSettleMs: number;
  readonly profile: VenueProfile;
  /** The fill index myTrades pages through. */
  readonly fills: TradeLog;
  /** Runs `run` when venue time reaches `at`. */
  schedule(at: number, run: (at: number) => void): void;
  /** Every accepted order, for the simulator's report. */
  logOrder(o: LoggedOrder): void;
  /** The user id the venue shows for an account (bidUserId/askUserId). */
  uid(account: string): number;
}

export interface Call {
  params: Params;
  /** Account of the API key (signed endpoints). */
  account: string;
  /** Venue time of the request. */
  now: number;
  /** The venue's clock as clients see it: `now` unless a clock_jump is on. */
  clockNow: number;
  endpoint: string;
}

export type Route = (venue: VenueView, call: Call) => unknown;
