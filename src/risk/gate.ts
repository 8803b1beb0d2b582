// The imperative shell around checkIntents for the engine: it holds the rolling windows and the
// live kill-switch mode between calls. All decisions stay in the pure function.
import { amend } from '../core/amend.js';
import { dec, isDecimal, ZERO, type Decimal } from '../core/decimal.js';
import type { Order, OrderIntent, PlaceIntent } from '../core/types.js';
import { checkIntents, isQuoteSized, killSwitchVerdicts } from './check.js';
import { emptyRiskState } from './state.js';
import { symbolKey, type KillSwitchMode, type RiskLimits, type RiskOpenOrder, type RiskRejection, type RiskSnapshot, type RiskState, type RiskVerdict } from './types.js';

/**
 * A snapshot whose open orders may still be journal `Order`s; the gate converts them. `offBook`:
 * client order ids of those the venue's book no longer lists (see RiskOpenOrder.offBook).
 */
export type RiskInputs = Omit<RiskSnapshot, 'openOrders'> & { openOrders: readonly (Order | RiskOpenOrder)[]; offBook?: ReadonlySet<string> };

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

/**
 * Each order version converted once: orders are values (a change is a new object; the journal's
 * copies are frozen), and a busy daemon checks risk against the same thousand open orders many
 * times a second. A quote-sized order depends on the last price, so it is converted each time.
 */
const converted = new WeakMap<Order, RiskOpenOrder>();

function riskOpenOrder(order: Order, lastPrices: ReadonlyMap<string, Decimal>): RiskOpenOrder {
  if (isQuoteSized(order)) return toRiskOpenOrder(order, lastPrices);
  let r = converted.get(order);
  if (!r) converted.set(order, (r = toRiskOpenOrder(order, lastPrices)));
  return r;
}

export function toRiskSnapshot(inputs: RiskInputs): RiskSnapshot {
  const { offBook, ...snapshot } = inputs;
  const convert = (o: Order) => (offBook?.has(o.clientOrderId) ? amend(riskOpenOrder(o, inputs.lastPrices), { offBook: true }) : riskOpenOrder(o, inputs.lastPrices));
  return { ...snapshot, openOrders: inputs.openOrders.map((o) => ('remaining' in o ? o : convert(o))) };
}

const STRICTNESS: Readonly<Record<KillSwitchMode, number>> = { off: 0, reduce_only: 1, halted: 2 };

/** The stricter of two kill-switch modes. */
export function stricter(a: KillSwitchMode, b: KillSwitchMode | undefined): KillSwitchMode {
  return b !== undefined && STRICTNESS[b] > STRICTNESS[a] ? b : a;
}

/**
 * The gate's state between calls: the rolling windows, and the kill switch. The switch in force
 * is the stricter of the operator's mode (config, SIGUSR2, the kill-switch file) and drift's
 * (while a drift lasts): neither can loosen what the other holds.
 */
export class RiskGate {
  private windows: RiskState = emptyRiskState();
  private operator: KillSwitchMode;
  private drift: KillSwitchMode | undefined;

  constructor(private readonly limits: RiskLimits) {
    this.operator = limits.killSwitch.mode;
  }

  /** The largest notional one order may have (in the quote currency): a close bigger than it goes in parts. */
  get maxNotionalPerOrder(): Decimal {
    return this.limits.maxNotionalPerOrder;
  }

  /** The mode in force. */
  killSwitch(): KillSwitchMode {
    return stricter(this.operator, this.drift);
  }

  /** The operator's mode (the kill-switch file, or a test). */
  setKillSwitch(mode: KillSwitchMode): void {
    this.operator = mode;
  }

  /** Drift's mode while a drift lasts; undefined once it is gone. */
  setDriftMode(mode: KillSwitchMode | undefined): void {
    this.drift = mode;
  }

  /** Drift's mode, while a drift lasts. */
  driftMode(): KillSwitchMode | undefined {
    return this.drift;
  }

  /** SIGUSR2: the operator's mode between halted and the configured one (off when that is itself halted). Returns the mode in force. */
  toggleHalt(): KillSwitchMode {
    const configured = this.limits.killSwitch.mode;
    this.operator = this.operator === 'halted' ? (configured === 'halted' ? 'off' : configured) : 'halted';
    return this.killSwitch();
  }

  check(intents: readonly OrderIntent[], inputs: RiskInputs, now: number): RiskVerdict {
    const limits = { ...this.limits, killSwitch: { mode: this.killSwitch() } };
    const { accepted, rejected, holds, nextState } = checkIntents(intents, toRiskSnapshot(inputs), limits, this.windows, now);
    this.windows = nextState;
    return { accepted, rejected, holds };
  }

  /**
   * The kill switch again, when accepted places are about to leave: a halt, or reduce-only,
   * that came after they were accepted stops them too. `inputs` must not count them as open.
   */
  atSend(intents: readonly PlaceIntent[], inputs: RiskInputs): { allowed: PlaceIntent[]; refused: RiskRejection[] } {
    return killSwitchVerdicts(intents, toRiskSnapshot(inputs), this.killSwitch());
  }

  /** The rolling windows as of the last check (for metrics, or to persist across a restart). */
  state(): RiskState {
    return this.windows;
  }
}
