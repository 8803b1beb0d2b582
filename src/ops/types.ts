// What the ops endpoint reads from the running daemon. Everything is read at request or scrape
// time, so the endpoint never holds a copy that could go stale; money and quantities stay
// decimal strings here and become numbers only at the Prometheus edge (see metrics.ts).

export interface OpsHealth {
  /** Epoch ms until which the venue bans us; 0 = not banned. */
  bannedUntil: number;
  killSwitch: 'off' | 'halted' | 'reduce_only';
  venueReachable: boolean;
  lastVenueOkAt: number | null;
}

export interface OpsPosition {
  market: string;
  symbol: string;
  quantity: string;
  avgEntryPrice: string;
  realizedPnl: string;
  fees: string;
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
}

export interface OpsStatus {
  mode: string;
  now: number;
  positions: OpsPosition[];
  openOrders: OpsOpenOrder[];
  pnl: { realized: string; fees: string };
  limiter: Record<string, { inWindow: number; limit: number; queued: number }>;
  strategies: { id: string; enabled: boolean; disabledReason?: string }[];
  drift: { market: string; symbol: string; ours: string; venue: string; difference: string }[];
  clockOffsetMs: number;
}

export interface OpsSource {
  /** True once start-up reconciliation finished. */
  ready(): boolean;
  health(): OpsHealth;
  status(): OpsStatus;
}

/** The part of a pino logger alerts and the server use; any pino Logger fits. */
export interface OpsLog {
  warn(obj: object, msg: string): void;
}
