// The risk gate's vocabulary. Everything here is a plain value: the gate reads a snapshot of the
// account, the limits and the time, and returns its verdicts plus the next rolling-window state.
import type { Decimal } from '../core/decimal.js';
import type { SymbolInfo } from '../core/market.js';
import type { Market, OrderIntent, Side } from '../core/types.js';

export type KillSwitchMode = 'off' | 'halted' | 'reduce_only';

/** The rule that rejected an intent; stable strings for logs and metrics. */
export type RiskRule =
  | 'invalid'
  | 'precision'
  | 'minimum'
  | 'kill_switch'
  | 'duplicate'
  | 'order_rate'
  | 'max_open_orders'
  | 'price_band'
  | 'max_notional_per_order'
  | 'max_notional_per_minute'
  | 'max_position'
  | 'balance';

/** The rules in the order the gate applies them; the first that fails names the rejection. */
export const RISK_RULES: readonly RiskRule[] = [
  'invalid',
  'precision',
  'minimum',
  'kill_switch',
  'duplicate',
  'order_rate',
  'max_open_orders',
  'price_band',
  'max_notional_per_order',
  'max_notional_per_minute',
  'max_position',
  'balance',
];

/** Fee allowance added to a buy's cost when no other is configured: 0.2%. */
export const DEFAULT_FEE_ALLOWANCE = '0.002' as Decimal;

export interface RiskLimits {
  /** Per symbol: max absolute base quantity once every same-side open order and this one fill. Unlisted symbols are not capped. */
  maxPosition: Readonly<Record<string, Decimal>>;
  /** Open orders per strategy (its accepted places in the same call count too). */
  maxOpenOrders: number;
  /** Quote notional of one order. */
  maxNotionalPerOrder: Decimal;
  /** Quote notional accepted in any rolling 60 s, across all strategies. */
  maxNotionalPerMinute: Decimal;
  /** A LIMIT price further than this percent from the symbol's last price is rejected. */
  priceBandPct: Decimal;
  /** Place intents accepted in any rolling 1 s, across all strategies. */
  maxOrdersPerSecond: number;
  /** An identical place accepted less than this long ago is suppressed; 0 turns suppression off. */
  duplicateWindowMs: number;
  /** The effective mode: the caller passes the live value (config, SIGUSR2, kill file). */
  killSwitch: { mode: KillSwitchMode };
  /** Added to a spot buy's cost in the balance check: 0.002 is 0.2% (the default). */
  feeAllowance?: Decimal;
}

/** One resting order as the gate needs it. `remaining` is in base units. */
export interface RiskOpenOrder {
  strategyId: string;
  market: Market;
  symbol: string;
  side: Side;
  remaining: Decimal;
  /**
   * Its cancel was taken and the venue's book no longer lists it; open in the journal only until
   * its last fills have shown. Its volume still counts (those fills may come); max_open_orders
   * does not count it, as it holds no place at the venue.
   */
  offBook?: boolean;
}

/**
 * What the gate reads about the account at the moment of the check. Maps of symbols are keyed
 * by `market:symbol` (see `symbolKey`), because a spot and a futures symbol may share a name.
 */
export interface RiskSnapshot {
  /** Signed base quantity per `market:symbol`; absent means flat. */
  positions: ReadonlyMap<string, Decimal>;
  openOrders: readonly RiskOpenOrder[];
  /** Free (not locked) balance per asset; absent means 0. */
  balances: ReadonlyMap<string, Decimal>;
  lastPrices: ReadonlyMap<string, Decimal>;
  /** The market snapshot: a symbol not here is unknown and its places are invalid. */
  instruments: ReadonlyMap<string, SymbolInfo>;
}

/**
 * The gate's memory between calls: only the rolling windows. Plain arrays and records so it can
 * be logged or persisted as JSON. Entries are oldest first.
 */
export interface RiskState {
  /** Times of accepted place intents (pruned to the last 1 s). */
  readonly placedAt: readonly number[];
  /**
   * Accepted notional with its time and quote asset (pruned to the last 60 s). The per-minute
   * limit applies per quote asset: a BTC amount and a USDT amount do not add up.
   */
  readonly notional: readonly { readonly at: number; readonly asset: string; readonly value: Decimal }[];
  /**
   * The sum of `notional` per asset, carried so a check never re-adds the whole window (at full
   * rate it holds thousands of entries). Build states with emptyRiskState and checkIntents only.
   */
  readonly notionalTotal: Readonly<Record<string, Decimal>>;
  /** Fingerprint of an accepted place -> when it was last accepted (pruned to the duplicate window). */
  readonly recent: Readonly<Record<string, number>>;
}

export interface RiskRejection {
  intent: OrderIntent;
  rule: RiskRule;
  /** Starts with the rule name, then the numbers: `max_notional_per_order: 0.5 BTCUSDT at 40000 is ...`. */
  reason: string;
}

export interface RiskVerdict {
  /** In input order. */
  accepted: OrderIntent[];
  /** In input order. */
  rejected: RiskRejection[];
  /** The balance each accepted spot place needs (quote with the fee allowance for a buy, base for a sell). */
  holds: BalanceHold[];
}

export interface BalanceHold {
  clientOrderId: string;
  asset: string;
  amount: Decimal;
}

export interface RiskResult extends RiskVerdict {
  nextState: RiskState;
}

export const symbolKey = (market: Market, symbol: string): string => `${market}:${symbol}`;
