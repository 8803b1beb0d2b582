// What the engine is given (its parts and settings, built by the composition root) and what it announces.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';
import type { Journal, Pacer } from '../core/ports.js';
import type { AlertKind, Fill, Order } from '../core/types.js';
import type { ReconcileConfig } from '../config/index.js';
import type { PositionBook } from '../positions/index.js';
import type { Reconciler, ReconcilerHooks } from '../reconciler/poller.js';
import type { BalanceHolds, RiskGate, RiskRejection } from '../risk/index.js';
import type { LoadedStrategy } from '../strategy/index.js';
import type { SequenceAllocator } from '../store/sequences.js';
import type { InstrumentCatalog } from './instruments.js';
import type { MarketDataPoller } from './market-data.js';
import type { OrderPipeline, PipelineDeps } from './pipeline.js';

export interface EngineSettings {
  marketDataEveryMs: number;
  reconcileEveryMs: number;
  summaryEveryMs: number;
  /** How long an awaited plugin handler may take (engine clock) before its strategy is disabled and nothing waits for it. */
  handlerTimeoutMs: number;
  shutdown: { queued: 'flush' | 'drop'; cancelOpenOrders: boolean };
  /** What becomes of a strategy's open orders once it is disabled while the engine runs. */
  onStrategyFailure: 'cancel' | 'leave';
  /** Poll depth, trades and ticker of every active symbol (a recording then holds a market a backtest can replay). */
  recordMarketData?: boolean;
  reconcile: ReconcileConfig;
}

export type { AlertKind } from '../core/types.js';

/** The parts the engine schedules, built by the composition root. */
export interface EngineParts {
  clock: Clock;
  log: Logger;
  journal: Journal;
  pacer: Pacer;
  strategies: readonly LoadedStrategy[];
  risk: RiskGate;
  holds: BalanceHolds;
  positions: PositionBook;
  /** The order pipeline, told how to report an order change and a failed cancel, and what risk judges against. */
  pipeline: (hooks: Pick<PipelineDeps, 'notify' | 'riskInputs' | 'cancelFailed'>) => OrderPipeline;
  /** The reconciler, given the engine's hooks (what it learns goes to strategies and risk). */
  reconciler: (hooks: ReconcilerHooks) => Reconciler;
  instruments: InstrumentCatalog;
  marketData: MarketDataPoller;
  sequences: SequenceAllocator;
  settings: EngineSettings;
  /** Sets a futures contract's leverage on the venue (strategies' `leverage`); the dry-run gateway sends nothing. */
  setLeverage?: (contract: string, level: number) => Promise<void>;
  /** Where strategies' ctx.log goes, when not the engine's log (a backtest shows them on their own). */
  pluginLog?: Logger;
  /** Operator notifications (ban, halt, drift, a disabled plugin, a stop that left orders unsettled; the daemon adds the venue's reachability); the log has them too. */
  alert?: (kind: AlertKind, message: string, details: Record<string, unknown>) => void;
}

/** What the engine announces, for the ops endpoint and for tests that wait on events, not time. */
export interface EngineEvents {
  reconciled: [];
  order: [Order];
  fill: [Fill];
  /** An intent risk refused (or that could not be formed), with the rule and the reason. */
  rejected: [RiskRejection];
}
