// The backtest report's records. Money stays a decimal string, rounded to 8 places; only
// statistics (ratios, percentages, Sharpe) are JS numbers, to 6 significant digits, and every
// statistic that can be undefined is `null` next to a `reason` saying why, so the JSON never
// carries NaN or Infinity.
import type { Decimal } from '../core/decimal.js';
import type { Fill, Market } from '../core/types.js';

/** One sample of the account during the run. */
export interface EquitySample {
  /** Milliseconds since the Unix epoch (virtual time in a backtest). */
  at: number;
  /** Account value in the quote asset, open positions marked. */
  equity: Decimal;
  /** Absolute value of the open positions in the quote asset; "0" when flat. */
  exposure: Decimal;
}

/** One symbol's price over the run: the venue's mid at each equity sample. */
export interface PriceSeries {
  market: Market;
  symbol: string;
  /** Time-ordered. */
  samples: readonly { at: number; price: Decimal }[];
}

export interface OrderCounts {
  /** Orders sent (places); cancels are requests about them, counted apart. */
  sent: number;
  cancelsSent: number;
  accepted: number;
  rejected: number;
  unknown: number;
  /** Intents the risk gate stopped before they became requests. */
  riskRejected: number;
}

/** One endpoint's limiter over the run. */
export interface LimiterUsage {
  requests: number;
  /** The endpoint's limit per rolling 2 s window. */
  limit: number;
  /** Most requests seen in any rolling 2 s window. */
  peakInWindow: number;
  /** Total time requests spent queued in the limiter. */
  waitedMs: number;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface ReportInput {
  startedAt: number;
  endedAt: number;
  startingEquity: Decimal;
  /** The asset every money figure is in; a fee in another asset is listed apart, never converted. */
  quoteAsset: string;
  /** Time-ordered. Applied once each (by market, symbol and trade id), like the live book. */
  fills: readonly Fill[];
  /** Futures contract sizes (base quantity per contract) by symbol; PnL counts them as the venue does. */
  contractSizes?: Readonly<Record<string, Decimal>>;
  /** Time-ordered. */
  equity: readonly EquitySample[];
  /** Per traded symbol, its price sampled with the equity (the report.html price charts; not in report.json). */
  prices?: readonly PriceSeries[];
  orders: OrderCounts;
  /** By endpoint name. */
  limiter: Readonly<Record<string, LimiterUsage>>;
  strategies: readonly string[];
  /** Name or path of the recorded tape the run replayed. */
  tape?: string;
  /** Symbols traded ("spot BTCUSDT") that the tape holds no market data for: they traded the simulator's own market. */
  untaped?: readonly string[];
  /** The venue's troubles the tape recorded, by kind: how many it held, and how many met a request of the run. */
  incidents?: { onTape: Readonly<Record<string, number>>; played: Readonly<Record<string, number>> };
  /** Intents refused before they became requests (invalid, or by a risk rule), per rule, with the first reason. */
  refusals?: Readonly<Record<string, { count: number; first: string }>>;
  /** Protective exits (strategies[].exits) the run made, per reason. */
  exits?: Readonly<Record<string, number>>;
  /** Strategies that hit their daily loss limit (strategies[].lossLimit), each UTC day once. */
  lossLimitHits?: readonly { strategy: string; day: string; pnl: string }[];
  /** A summary of the configuration, copied into the report with its keys sorted. */
  config?: { readonly [key: string]: JsonValue };
  /** Strategies disabled during the run (a handler threw or missed its deadline), in the order they were. */
  disabled?: readonly DisabledStrategyInput[];
}

export interface DisabledStrategyInput {
  strategy: string;
  /** When, epoch ms (virtual time in a backtest). */
  at: number;
  reason: string;
  /** engine.onStrategyFailure: what became of its open orders. */
  openOrders: 'cancel' | 'leave';
}

export interface SymbolSummary {
  market: Market;
  symbol: string;
  fills: number;
  /** Before fees. */
  realizedPnl: Decimal;
  /** Fees paid in the quote asset. */
  fees: Decimal;
  openQuantity: Decimal;
}

export interface EndpointUsage {
  endpoint: string;
  requests: number;
  limit: number;
  peakInWindow: number;
  /** peakInWindow / limit; null when the limit is not above 0. */
  peakShareOfLimit: number | null;
  waitedMs: number;
}

export interface Report {
  version: 1;
  period: { startedAt: number; endedAt: number; start: string; end: string; durationMs: number };
  tape: string | null;
  quoteAsset: string;
  strategies: string[];
  config: { [key: string]: JsonValue } | null;
  pnl: {
    startingEquity: Decimal;
    /** Equity of the last sample. */
    finalEquity: Decimal | null;
    /** finalEquity - startingEquity: everything, realised or not, every fee included (other assets' at the mark). */
    total: Decimal | null;
    /** total / startingEquity x 100. */
    totalPct: number | null;
    /** Realised by the position book, before fees. */
    realized: Decimal;
    /** Quote-asset fees (the same figure as fees.quote); fees in other assets are in `total` only. */
    fees: Decimal;
    realizedAfterFees: Decimal;
    reason: string | null;
  };
  fees: {
    quote: Decimal;
    /** Fees in other assets, per asset, keys sorted; never converted. */
    otherAssets: Record<string, Decimal>;
  };
  trades: {
    /** Fills applied to the book. */
    fills: number;
    buys: number;
    sells: number;
    /**
     * A round trip is a position line going from flat to open and back to flat; a fill through
     * zero completes one and opens the next.
     */
    roundTrips: number;
    openPositionsAtEnd: number;
    /** Fills not applied: repeats of a trade id, and malformed fills with the book's reason. */
    ignored: { duplicates: number; invalid: string[] };
    bySymbol: SymbolSummary[];
  };
  winRate: {
    /** winning / closingFills, in [0, 1]. */
    value: number | null;
    /** Fills that reduced an open position. */
    closingFills: number;
    winning: number;
    losing: number;
    breakeven: number;
    reason: string | null;
  };
  maxDrawdown: {
    /** Largest fall from a running peak, in quote; "0" when equity never fell. */
    amount: Decimal | null;
    /** amount / peak x 100. */
    pctOfPeak: number | null;
    peakEquity: Decimal | null;
    peakAt: number | null;
    troughEquity: Decimal | null;
    troughAt: number | null;
    reason: string | null;
  };
  sharpe: {
    /** mean / stdev of the sample returns; per year when `annualised`, else per sample period. */
    value: number | null;
    /** True only when the samples span at least 7 days (SHARPE_ANNUALISE_MIN_MS in build.ts). */
    annualised: boolean;
    /** What `value` is: "annualised", or "per 10 s sample" (the mean sample spacing); null with it. */
    basis: string | null;
    /** Why a value is not annualised: the span, and the rule. */
    notAnnualised: string | null;
    returns: number;
    meanReturn: number | null;
    stdevReturn: number | null;
    sampleSpacingMs: number | null;
    /** From the first to the last equity sample. */
    spanMs: number;
    /** 365 days / sampleSpacingMs; only when annualised. */
    periodsPerYear: number | null;
    reason: string | null;
  };
  exposure: {
    /** Share of the sampled time with a non-zero exposure, in [0, 1]. */
    timeShare: number | null;
    /** Time-weighted mean of the exposure value, in quote. */
    averageValue: Decimal | null;
    exposedMs: number;
    spanMs: number;
    reason: string | null;
  };
  orders: OrderCounts;
  rateLimits: { endpoints: EndpointUsage[]; totalWaitedMs: number };
  /**
   * The venue's troubles the tape recorded (bans, 429s, 5xx, lost answers) that the simulator
   * played back: held on the tape, met by a request of the run, and both by kind (keys sorted).
   * Absent when the tape held none, or sim.recordedFaults is false.
   */
  recordedIncidents?: { onTape: number; played: number; byKind: Record<string, { onTape: number; played: number }> };
  /**
   * Symbols traded ("spot BTCUSDT") that the tape holds no market data for: their fills come from
   * the simulator's own synthetic market, not recorded reality. Absent when every one is on the tape.
   */
  untaped?: string[];
  /**
   * Intents refused before they became requests, per rule (`invalid`: the request could not be
   * formed), most first, with the first reason given: what to fix. Absent when none was.
   */
  refusals?: { rule: string; count: number; first: string }[];
  /** Protective exits (strategies[].exits) the run made, per reason (keys sorted): their orders are among the fills. Absent when none was. */
  exits?: Record<string, number>;
  /** Strategies that hit their daily loss limit: which, the UTC day, and the day's PnL then (quote). Absent when none did. */
  lossLimitHits?: { strategy: string; day: string; pnl: string }[];
  /**
   * Strategies disabled during the run, when (epoch ms and ISO time) and why (the handler and
   * what it threw, or the deadline it missed), and what became of their open orders. Absent when
   * none was: a healthy run's report is as it was.
   */
  disabledStrategies?: { strategy: string; at: number; time: string; reason: string; openOrders: 'cancelled' | 'left resting' }[];
}
