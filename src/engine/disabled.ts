// A strategy disabled while the engine runs (a handler threw or missed its deadline, it fell
// behind its events) manages its orders no more: engine.onStrategyFailure says whether they are
// cancelled (the default) or left resting. The cancels go through the order pipeline as any
// (paced, journaled, past the kill switch), and again after each reconcile pass while one is
// still open (a cancel a ban outlasted, or one the venue refused); the pipeline never sends a
// second cancel of an order whose cancel is on its way. Only the strategy's own orders: adopted
// ones and other strategies' are untouched. Each disabling is logged and alerted once, and kept
// with when and why for the backtest report.
import type { Clock } from '../core/clock.js';
import type { Log } from '../core/log.js';
import type { Journal } from '../core/ports.js';
import type { CancelIntent } from '../core/types.js';
import type { StrategyHost } from '../strategy/index.js';
import type { AlertKind } from './parts.js';
import type { OrderPipeline } from './pipeline.js';

export interface DisabledStrategy {
  strategy: string;
  /** When the engine learned of it (engine clock). */
  at: number;
  /** What disabled it: the handler and what it threw, the deadline it missed. */
  reason: string;
  /** What became of its open orders (engine.onStrategyFailure). */
  openOrders: 'cancel' | 'leave';
}

export interface DisabledParts {
  clock: Clock;
  journal: Journal;
  log: Log;
  alert?: (kind: AlertKind, message: string, details: Record<string, unknown>) => void;
  /** engine.onStrategyFailure. */
  onStrategyFailure: 'cancel' | 'leave';
  pipeline(): OrderPipeline;
}

export class DisabledStrategies {
  /** Each disabled strategy, in the order they were disabled. */
  readonly list: DisabledStrategy[] = [];
  private readonly ids = new Set<string>();

  constructor(private readonly parts: DisabledParts) {}

  /**
   * Notes `h` if it is disabled, once: logged, alerted and kept; while `running`, its open
   * orders are cancelled now (when engine.onStrategyFailure says so), else at the first
   * reconcile pass of a run (a strategy whose create threw, on a restart with orders resting).
   */
  note(h: StrategyHost, running: boolean): void {
    if (h.enabled || this.ids.has(h.id)) return;
    this.ids.add(h.id);
    const { clock, log, alert, onStrategyFailure } = this.parts;
    const open = this.openOrders(h.id).length;
    const reason = h.disabledReason ?? 'disabled';
    const orders = `${open} open order${open === 1 ? '' : 's'}`;
    const fate = open === 0 ? 'it had no open order' : onStrategyFailure === 'cancel' ? `its ${orders} are cancelled` : `its ${orders} are left resting`;
    log.error({ strategy: h.id, reason: h.disabledBy?.message, stack: (h.disabledBy?.cause as Error | undefined)?.stack, openOrders: open, onStrategyFailure }, 'strategy disabled');
    alert?.('plugin_disabled', `strategy ${h.id} was disabled: ${reason}; ${fate} (engine.onStrategyFailure: ${onStrategyFailure})`, { strategy: h.id, reason, openOrders: open, onStrategyFailure });
    this.list.push({ strategy: h.id, at: clock.now(), reason, openOrders: onStrategyFailure });
    if (running) this.cancelOrders();
  }

  /** Asks to cancel every open order of a disabled strategy, when engine.onStrategyFailure is cancel. */
  cancelOrders(): void {
    if (this.parts.onStrategyFailure !== 'cancel' || this.ids.size === 0) return;
    const intents = this.parts.journal
      .orders({ openOnly: true })
      .filter((o) => this.ids.has(o.strategyId) && o.status !== 'pending_cancel')
      .map((o): CancelIntent => ({ kind: 'cancel', intentId: `${o.clientOrderId}:disabled`, strategyId: o.strategyId, market: o.market, symbol: o.symbol, clientOrderId: o.clientOrderId }));
    if (intents.length > 0) this.parts.pipeline().submit(intents);
  }

  private openOrders(strategyId: string) {
    return this.parts.journal.orders({ openOnly: true, strategyId });
  }
}
