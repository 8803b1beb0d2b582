// The rolling windows the gate remembers between calls. An entry stamped `at` is inside a window
// of `w` ms at time `now` while now - at < w. Entries stamped after `now` (a clock that stepped
// back) stay in: dropping them would let more through than the limit allows.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { RiskLimits, RiskState } from './types.js';

export const ORDER_RATE_WINDOW_MS = 1_000;
export const NOTIONAL_WINDOW_MS = 60_000;

export function emptyRiskState(): RiskState {
  return { placedAt: [], notional: [], notionalTotal: {}, recent: {} };
}

const inside = (at: number, now: number, windowMs: number) => now - at < windowMs;

/** The state with every entry that has left its window dropped. */
export function pruneRiskState(state: RiskState, limits: Pick<RiskLimits, 'duplicateWindowMs'>, now: number): RiskState {
  const recent: Record<string, number> = {};
  if (limits.duplicateWindowMs > 0) {
    for (const [fingerprint, at] of Object.entries(state.recent)) if (inside(at, now, limits.duplicateWindowMs)) recent[fingerprint] = at;
  }
  const notional: RiskState['notional'][number][] = [];
  const notionalTotal: Record<string, Decimal> = { ...state.notionalTotal };
  const stillHeld = new Set<string>();
  for (const n of state.notional) {
    if (inside(n.at, now, NOTIONAL_WINDOW_MS)) {
      notional.push(n);
      stillHeld.add(n.asset);
    } else {
      notionalTotal[n.asset] = dec.sub(notionalTotal[n.asset] ?? ZERO, n.value);
    }
  }
  // An asset with nothing left in the window sums to 0 by definition.
  for (const asset of Object.keys(notionalTotal)) if (!stillHeld.has(asset)) delete notionalTotal[asset];
  return {
    placedAt: state.placedAt.filter((at) => inside(at, now, ORDER_RATE_WINDOW_MS)),
    notional,
    notionalTotal,
    recent,
  };
}
