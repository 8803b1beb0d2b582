// The risk gate: a pure check (checkIntents) and the small stateful shell the engine holds (RiskGate).
export { checkIntents, fingerprint, isQuoteSized } from './check.js';
export { emptyRiskState, pruneRiskState, NOTIONAL_WINDOW_MS, ORDER_RATE_WINDOW_MS } from './state.js';
export { RiskGate, toRiskOpenOrder, toRiskSnapshot, type RiskInputs } from './gate.js';
export {
  DEFAULT_FEE_ALLOWANCE,
  RISK_RULES,
  symbolKey,
  type KillSwitchMode,
  type RiskLimits,
  type RiskOpenOrder,
  type RiskRejection,
  type RiskResult,
  type RiskRule,
  type RiskSnapshot,
  type RiskState,
  type RiskVerdict,
  type BalanceHold,
} from './types.js';
export { BalanceHolds } from './holds.js';
