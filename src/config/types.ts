// The validated configuration as the rest of sluice sees it. Every field is always present
// (defaults filled in), readonly in the type and frozen at run time. Comments here are the
// reference; config/default.yaml repeats them next to each default.
import type { Decimal } from '../core/decimal.js';
import type { ExitSettings, LossLimitSettings, Market } from '../core/types.js';
import type { EndpointId } from '../exchange/endpoints.js';

export type Mode = 'paper' | 'live';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
export type KillSwitchMode = 'off' | 'halted' | 'reduce_only';

export interface VenueConfig {
  /** Origin of the spot API (no trailing slash). Set whenever mode is live. */
  readonly spotUrl: string | null;
  /** Origin of the futures API; the loader fills it with spotUrl when it was not given. */
  readonly futuresUrl: string | null;
  readonly recvWindowMs: number;
  readonly clockSyncIntervalMs: number;
  /** Extra time a request's rate-limit slot stays taken after the 2 s window. */
  readonly safetyMarginMs: number;
  readonly timeouts: { readonly connectMs: number; readonly headersMs: number; readonly bodyMs: number; readonly totalMs: number };
  readonly maxResponseBytes: number;
  /** HTTP connections to each market's origin: most requests in flight at once. */
  readonly connections: number;
  readonly retry: { readonly retries: number; readonly baseDelayMs: number; readonly maxDelayMs: number };
  /** This daemon's share (0 to 1) of every endpoint's per-key limit: several daemons on one key. */
  readonly limitShare: number;
  /** Requests per 2 s per endpoint, only for overridden endpoints; each is <= the endpoint's own limit. */
  readonly limits: Readonly<Partial<Record<EndpointId, number>>>;
}

export interface SimConfig {
  /** strict: the contract's letter and the live variants the notes document (the default); lenient: the older conveniences (client-id lookups, client ids in open orders). */
  readonly profile: 'strict' | 'lenient';
  readonly seed: number;
  readonly latencyMs: { readonly min: number; readonly max: number };
  readonly faults: {
    readonly error5xxRate: number;
    readonly resetRate: number;
    readonly lostResponseRate: number;
    /** Act on a write, then answer 504 -1007. */
    readonly timeoutRate: number;
    /** Act on a write, then answer 500 -1000, a 502 page or 200 -1001. */
    readonly errorAfterActRate: number;
    readonly lateFillRate: number;
    readonly lateFillDelayMs: number;
    readonly clockSkewMs: number;
  };
  readonly banMs: number;
  /** Futures positions: 1 net (one per contract), 2 hedge (long and short apart). */
  readonly futuresPositionModel: 1 | 2;
  readonly fees: { readonly maker: Decimal; readonly taker: Decimal };
  /** The simulated spot account's starting balances, by asset (upper case). */
  readonly balances: Readonly<Record<string, Decimal>>;
  /** The simulated futures wallet's starting margin, in each contract's margin coin. */
  readonly futuresBalance: Decimal;
  /** Timed venue troubles, from the start of the run: backtests use them to try a bad day. */
  readonly scenario: readonly { readonly kind: 'rate_limit_storm' | 'ban' | 'clock_jump'; readonly atMs: number; readonly durationMs: number; readonly skewMs: number }[];
  /** A backtest of a tape plays back the venue's troubles it recorded (bans, 429s, 5xx, lost answers) at their recorded times. */
  readonly recordedFaults: boolean;
  /** A backtest of a tape starts its spot account from the tape's first account answer (each asset free + locked), not `balances`. */
  readonly recordedBalances: boolean;
}

export interface ReconcileConfig {
  /** Share of the openOrders and myTrades budgets the reconciler may use, so queries keep room. */
  readonly budgetShare: number;
  /** Open orders on the venue that no journal entry knows: track them as ours, or cancel them. */
  readonly foreignOrders: 'adopt' | 'cancel';
  /**
   * An order whose placement answer was lost and that shows neither among the open orders nor in
   * the trades this long after (with a complete read of both since) was never placed: it is
   * journaled rejected, and never sent again.
   */
  readonly unknownTimeoutMs: number;
  readonly drift: {
    /** Per symbol: how far our position may differ from the venue's before `action` (default 0). */
    readonly tolerance: Readonly<Record<string, Decimal>>;
    readonly action: 'reduce_only' | 'halted';
    /**
     * How late a fill may show in myTrades after the venue booked it (the balance moved at once):
     * the trade cursor stays this far back, and a balance is judged against our fills only once
     * this old; a judged drift acts at once.
     */
    readonly graceMs: number;
  };
}

export interface StrategyConfig {
  /** 1-12 of [a-z0-9]; part of every client order id. Unique. */
  readonly id: string;
  /** Plugin module path as written (relative paths resolve against process.cwd()). */
  readonly use: string;
  readonly enabled: boolean;
  readonly market: Market;
  /** Upper case, non-empty, no duplicates. */
  readonly symbols: readonly string[];
  readonly everyMs: number;
  /** Futures: leverage set on each of its contracts at start-up (1-125). */
  readonly leverage?: number;
  /** Protective exits sluice enforces on this strategy's own position (absent: none). */
  readonly exits?: ExitSettings;
  /** Daily loss limit in the quote currency of its symbols (absent: none). */
  readonly lossLimit?: LossLimitSettings;
  /** Free-form; the plugin's own schema validates it when the plugin loads. */
  readonly params: Readonly<Record<string, unknown>>;
}

export interface RiskConfig {
  /** Per symbol (upper case): max absolute base quantity. Symbols not listed are not capped here. */
  readonly maxPosition: Readonly<Record<string, Decimal>>;
  readonly maxOpenOrders: number;
  readonly maxNotionalPerOrder: Decimal;
  readonly maxNotionalPerMinute: Decimal;
  readonly priceBandPct: Decimal;
  /** Added to a spot buy's cost in the balance check (0.002 = 0.2%), so fees never overdraw the quote balance. */
  readonly feeAllowance: Decimal;
  readonly maxOrdersPerSecond: number;
  readonly duplicateWindowMs: number;
  readonly killSwitch: { readonly mode: KillSwitchMode; readonly file: string | null };
}

export interface Config {
  readonly mode: Mode;
  readonly venue: VenueConfig;
  /** Only where credentials may come from; the secrets themselves are in LoadedConfig.credentials. */
  readonly credentials: { readonly file: string | null };
  readonly sim: SimConfig;
  readonly strategies: readonly StrategyConfig[];
  readonly risk: RiskConfig;
  readonly engine: {
    readonly summaryEveryMs: number;
    readonly marketDataEveryMs: number;
    readonly reconcileEveryMs: number;
    /** An intent still unsent after this long is dropped (its strategy hears 'canceled'): a stale order is worse than none. */
    readonly maxQueueMs: number;
    /**
     * How long an awaited plugin handler (onStart, onTick, onMarketData, onOrderUpdate, onFill,
     * onStop, a timer) may take on the engine clock: past it, its strategy is disabled as if it
     * threw, and nothing waits for the handler any more.
     */
    readonly handlerTimeoutMs: number;
    readonly shutdown: { readonly queued: 'flush' | 'drop'; readonly cancelOpenOrders: boolean };
    /**
     * A strategy disabled while the engine runs (a handler threw or missed its deadline): cancel
     * its open orders, which nothing manages any more, or leave them resting. Its own orders only.
     */
    readonly onStrategyFailure: 'cancel' | 'leave';
    /**
     * V8's heap for `sluice run`: fast keeps V8's defaults; small sets --optimize-for-size and a
     * young generation that stays at 2 MB at the start (app/heap.ts): less than half the memory
     * for a daemon that runs for days, more CPU and longer collections at the venue's ceiling
     * (bench/RESULTS.md).
     */
    readonly heap: 'fast' | 'small';
  };
  readonly reconcile: ReconcileConfig;
  readonly journal: { readonly path: string };
  readonly log: { readonly level: LogLevel; readonly pretty: 'auto' | boolean };
  readonly record: { readonly path: string | null; readonly gzip: boolean };
  /** The ops endpoint and dashboard. `auto`: served in paper mode, not live (see opsEnabled). */
  readonly http: { readonly enabled: 'auto' | boolean; readonly host: string; readonly port: number; readonly tokenFile: string | null };
  /** Webhook notifications (a JSON POST) on ban, halt, drift and a disabled plugin. */
  readonly alerts: { readonly webhookUrl: string | null; readonly minIntervalMs: number };
}

export interface Credentials {
  readonly apiKey: string;
  readonly apiSecret: string;
}

export interface LoadedConfig {
  readonly config: Config;
  /** Present when found (always in live mode). Never log it; pass both values to the logger's redaction list. */
  readonly credentials?: Credentials;
  /** The ops endpoint's token (SLUICE_HTTP_TOKEN or http.tokenFile), when set. A secret: never log it. */
  readonly httpToken?: string;
  /** The file (or label) the config came from, as used in error messages. */
  readonly source: string;
  /** The YAML paths (`strategies[0].params.side`) whose values came from ${VAR}: a problem never shows them. */
  readonly fromEnvironment?: ReadonlySet<string>;
}

/** Whether `sluice run` serves the ops endpoint: `http.enabled`, where `auto` means in paper mode. */
export function opsEnabled(config: Pick<Config, 'mode' | 'http'>): boolean {
  return config.http.enabled === 'auto' ? config.mode === 'paper' : config.http.enabled;
}
