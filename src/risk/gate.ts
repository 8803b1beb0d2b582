// The imperative shell around checkIntents for the engine: it holds the rolling windows and the
// live kill-switch mode between calls. All decisions stay in the pure function.
import { dec, isDecimal, ZERO, type Decimal } from '../core/decimal.js';
import type { Order, OrderIntent } from '../core/types.js';
import { checkIntents, isQuoteSized } from './check.js';
import { emptyRiskState } from './state.js';
import { symbolKey, type KillSwitchMode, type RiskLimits, type RiskOpenOrder, type RiskSnapshot, type RiskState, type RiskVerdict } from './types.js';

/** A snapshot whose open orders may still be journal `Order`s; the gate converts them. */
export type RiskInputs = Omit<RiskSnapshot, 'openOrders'> & { openOrders: readonly (Order | RiskOpenOrder)[] };

/**
 * An open order as the gate counts it: the base volume still to fill. A spot market buy is
 * sized in quote, so its whole amount is converted at the last price (0 if none is known yet;
 * market orders rarely rest long enough for this to matter).
 */
export function toRiskOpenOrder(order: Order, lastPrices: ReadonlyMap<string, Decimal>): RiskOpenOrder {
  let remaining: Decimal;
  if (isQuoteSized(order)) {
    const last = lastPrices.get(symbolKey(order.market, order.symbol));
    remaining = last && isDecimal(last) && dec.isPositive(last) ? dec.div(order.volume, last) : ZERO;
  } else {
    remaining = dec.max(ZERO, dec.sub(order.volume, order.executedVolume));
  }
  return { strategyId: order.strategyId, market: order.market, symbol: order.symbol, side: order.side, remaining };
}

export function toRiskSnapshot(inputs: RiskInputs): RiskSnapshot {
  return {
    ...inputs,
    openOrders: inputs.openOrders.map((o) => ('remaining' in o ? o : toRiskOpenOrder(o, inputs.lastPrices))),
  };
}

export class RiskGate {
  private windows: RiskState = emptyRiskState();
  private mode: KillSwitchMode;

  constructor(private readonly limits: RiskLimits) {
    this.mode = limits.killSwitch.mode;
  }

  killSwitch(): KillSwitchMode {
    return this.mode;
  }

  setKillSwitch(mode: KillSwitchMode): void {
    this.mode = mode;
  }

  /** SIGUSR2: halted <-> the configured mode (off when the configured mode is itself halted). */
  toggleHalt(): KillSwitchMode {
    const configured = this.limits.killSwitch.mode;
    this.mode = this.mode === 'halted' ? (configured === 'halted' ? 'off' : configured) : 'halted';
    return this.mode;
  }

  check(intents: readonly OrderIntent[], inputs: RiskInputs, now: number): RiskVerdict {
    const limits = { ...this.limits, killSwitch: { mode: this.mode } };
    const { accepted, rejected, holds, nextState } = checkIntents(intents, toRiskSnapshot(inputs), limits, this.windows, now);
    this.windows = nextState;
    return { accepted, rejected, holds };
  }

  /** The rolling windows as of the last check (for metrics, or to persist across a restart). */
  state(): RiskState {
    return this.windows;
  }
}
