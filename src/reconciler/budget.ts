// How often the reconciler may pass: each pass reads open orders and trades once per symbol,
// and those reads may take at most `budgetShare` of their endpoints' limits. The engine and the
// doctor both ask this, so the doctor reports the interval the daemon will use.
import type { Market } from '../core/types.js';

/** The venue's rate window (exchange-rest-api.md: limits count per 2 s). */
const WINDOW_MS = 2000;

export function reconcileInterval(
  configuredMs: number,
  symbols: number,
  markets: Iterable<Market>,
  /** Requests per window of an endpoint id (spot.openOrders, futures.myTrades, ...). */
  limitOf: (endpoint: string) => number,
  budgetShare: number,
): number {
  const limits = [...markets].flatMap((m) => [limitOf(`${m}.openOrders`), limitOf(`${m}.myTrades`)]);
  if (limits.length === 0 || symbols === 0) return configuredMs;
  const perWindow = Math.max(1, Math.floor(Math.min(...limits) * budgetShare));
  return Math.max(configuredMs, Math.ceil((symbols * WINDOW_MS) / perWindow));
}
