// The rolling windows the gate remembers between calls. An entry stamped `at` is inside a window
// of `w` ms at time `now` while now - at < w. Entries stamped after `now` (a clock that stepped
// back) stay in: dropping them would let more through than the limit allows.
import type { RiskLimits, RiskState } from './types.js';

export const ORDER_RATE_WINDOW_MS = 1_000;
export const NOTIONAL_WINDOW_MS = 60_000;

export function emptyRiskState(): RiskState {
  return { placedAt: [], notional: [], recent: {} };
}

const inside = (at: number, now: number, windowMs: number) => now - at < windowMs;

/** The state with every entry that has left its window dropped. */
export function pruneRiskState(state: RiskState, limits: Pick<RiskLimits, 'duplicateWindowMs'>, now: number): RiskState {
  const recent: Record<string, number> = {};
  if (limits.duplicateWindowMs > 0) {
    for (const [fingerprint, at] of Object.entries(state.recent)) if (inside(at, now, limits.duplicateWindowMs)) recent[fingerprint] = at;
  }
  return {
    placedAt: state.placedAt.filter((at) => inside(at, now, ORDER_RATE_WINDOW_MS)),
    notional: state.notional.filter((n) => inside(n.at, now, NOTIONAL_WINDOW_MS)),
    recent,
  };
}
