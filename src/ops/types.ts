// What the ops endpoint reads from the running daemon. Everything is read at request or scrape
// time, so the endpoint never holds a copy that could go stale; money and quantities stay
// decimal strings here and become numbers only at the Prometheus edge (see metrics.ts).

export interface OpsHealth {
  /** Epoch ms until which the venue bans us; 0 = not banned. */
  bannedUntil: number;
  killSwitch: 'off' | 'halted' | 'reduce_only';
  venueReachable: boolean;
  lastVenueOkAt: number | null;
  /** Set while the journal takes no writes (nothing is placed meanwhile). */
  journalFailure: { since: number; message: string } | null;
}

export interface OpsPosition {
  market: string;
  symbol: string;
  quantity: string;
  avgEntryPrice: string;
  realizedPnl: string;
  /** Fees paid in the quote asset. */
  fees: string;
  /** Fees paid in other assets, per asset (a spot buy's fee in the base coin); empty when none. */
  feesOther: Record<string, string>;
}

export interface OpsOpenOrder {
  clientOrderId: string;
  strategyId: string;
  market: string;
  symbol: string;
  side: string;
  type: string;
  price?: string;
  volume: string;
  executedVolume: string;
  status: string;
  /** When the intent was journaled (epoch ms): the page shows the order's age from it. */
  createdAt: number;
}

/** One of our fills, as the journal holds it. */
export interface OpsFill {
  tradeId: string;
  market: string;
  symbol: string;
  side: string;
  price: string;
  volume: string;
  fee: string;
  feeAsset: string;
  isMaker: boolean;
  time: number;
}

export interface OpsAlert {
  kind: string;
  message: string;
  at: number;
}

/** A sampled value: epoch ms and a decimal string. */
export interface OpsPoint {
  at: number;
  value: string;
}

/** Time series for the dashboard's charts, from a cursor on (see OpsSource.history). */
export interface OpsHistory {
  /** Give it back to get only what was sampled after this answer. */
  cursor: number;
  /** True when this holds every point kept (the page starts its charts over), not only new ones. */
  full: boolean;
  /** Last price per `market:symbol`. */
  prices: Record<string, OpsPoint[]>;
  /** Account value in `quoteAsset`: at the first sample, then moved by the PnL of our positions. */
  equity: OpsPoint[];
  /** Realised PnL after fees, over all positions. */
  realized: OpsPoint[];
}

export interface OpsStatus {
  mode: string;
  now: number;
  positions: OpsPosition[];
  openOrders: OpsOpenOrder[];
  /** `fees` in the quote asset; `feesOther` per other asset, over all positions. */
  pnl: { realized: string; fees: string; feesOther: Record<string, string> };
  /** Every endpoint; `requests` counts what left since start (the page shows only endpoints in use). */
  limiter: Record<string, { inWindow: number; limit: number; queued: number; requests: number }>;
  /** lossLimitUntil: its daily loss limit was hit; it opens nothing until then (ISO time, the next UTC midnight). */
  strategies: { id: string; enabled: boolean; disabledReason?: string; lossLimitUntil?: string }[];
  /** The latest fills, newest first. */
  fills: OpsFill[];
  /** The latest alerts (sent to the webhook or not), newest first. */
  alerts: OpsAlert[];
  /** The asset equity is counted in; null before it is known. */
  quoteAsset: string | null;
  drift: { market: string; symbol: string; ours: string; venue: string; difference: string }[];
  clockOffsetMs: number;
}

export interface OpsSource {
  /** True once start-up reconciliation finished. */
  ready(): boolean;
  health(): OpsHealth;
  status(): OpsStatus;
  /** Points sampled after `cursor` (every point kept when it is undefined or too old). */
  history(cursor?: number): OpsHistory;
  /** Calls `listener` after each new sample; returns the function that stops it. */
  onSample(listener: () => void): () => void;
}

/** The part of a pino logger alerts and the server use; any pino Logger fits. */
export interface OpsLog {
  warn(obj: object, msg: string): void;
}
