// Protective exits (a strategy entry's `exits`), the decision alone: from the strategy's own
// position, the trailing best price so far and the last price, whether to close the position and
// why, and the new best. Pure, on decimal strings; exit-monitor.ts acts on it.
import { dec, ONE, type Decimal } from '../core/decimal.js';
import type { ExitReason, ExitSettings } from '../core/types.js';

export type { ExitReason, ExitSettings } from '../core/types.js';

/** The best price since the position opened, with the side it was tracked for (a flip starts again). */
export interface Best {
  side: 'long' | 'short';
  price: Decimal;
}

export interface ExitInput {
  /** Signed: positive long, negative short; zero flat. */
  quantity: Decimal;
  /** The booked average entry price; zero while no fill of the position is booked. */
  entry: Decimal;
  /** As the last judgement left it (undefined: none yet, or the position was flat). */
  best: Best | undefined;
  /** The symbol's last price. */
  price: Decimal;
  settings: ExitSettings;
}

export interface Exit {
  reason: ExitReason;
  /** The price at which the exit fires (the threshold `price` reached). */
  trigger: Decimal;
}

export interface ExitJudgement {
  /** What to keep for the next judgement: undefined when flat or not judged yet (no booked entry). */
  best: Best | undefined;
  exit?: Exit;
}

const HUNDRED = '100' as Decimal;
const below = (p: Decimal, pct: Decimal) => dec.mul(p, dec.sub(ONE, dec.div(pct, HUNDRED)));
const above = (p: Decimal, pct: Decimal) => dec.mul(p, dec.add(ONE, dec.div(pct, HUNDRED)));

/**
 * Long: stop-loss when price <= entry x (1 - stopLossPct/100), take-profit when price >= entry x
 * (1 + takeProfitPct/100), trailing stop when price <= best x (1 - trailingStopPct/100), where
 * best is the highest price since the position opened (starting at the entry, and including this
 * price). Short: mirrored (best is the lowest). Thresholds count as reached. When more than one
 * fires, the first of stop-loss, take-profit, trailing stop names the exit. Flat, or no booked
 * entry yet: nothing, and no best.
 */
export function judgeExit(input: ExitInput): ExitJudgement {
  const { quantity, entry, price, settings } = input;
  if (dec.isZero(quantity) || !dec.isPositive(entry)) return { best: dec.isZero(quantity) ? undefined : input.best };
  const side = dec.isPositive(quantity) ? 'long' : 'short';
  const was = input.best?.side === side ? input.best.price : entry;
  const best: Best = { side, price: side === 'long' ? dec.max(was, price) : dec.min(was, price) };
  const { stopLossPct: sl, takeProfitPct: tp, trailingStopPct: ts } = settings;
  const exit = (reason: ExitReason, trigger: Decimal): ExitJudgement => ({ best, exit: { reason, trigger } });
  if (side === 'long') {
    if (sl !== undefined && dec.lte(price, below(entry, sl))) return exit('stop_loss', below(entry, sl));
    if (tp !== undefined && dec.gte(price, above(entry, tp))) return exit('take_profit', above(entry, tp));
    if (ts !== undefined && dec.lte(price, below(best.price, ts))) return exit('trailing_stop', below(best.price, ts));
  } else {
    if (sl !== undefined && dec.gte(price, above(entry, sl))) return exit('stop_loss', above(entry, sl));
    if (tp !== undefined && dec.lte(price, below(entry, tp))) return exit('take_profit', below(entry, tp));
    if (ts !== undefined && dec.gte(price, above(best.price, ts))) return exit('trailing_stop', above(best.price, ts));
  }
  return { best };
}

/** Whether any exit is configured (cooldownMs alone guards nothing). */
export function hasExits(s: ExitSettings | undefined): s is ExitSettings {
  return s !== undefined && (s.stopLossPct !== undefined || s.takeProfitPct !== undefined || s.trailingStopPct !== undefined);
}
