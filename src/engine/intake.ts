// What a strategy asked for, admitted: invalid intents and risk's refusals are logged and
// journaled rejected, the rest journaled pending in one commit (a tick may place hundreds),
// still before any is sent, then queued on the order pipeline.
import type { Log } from '../core/log.js';
import type { Clock } from '../core/clock.js';
import type { Journal } from '../core/ports.js';
import type { Order } from '../core/types.js';
import type { BalanceHolds, RiskGate, RiskInputs, RiskRejection } from '../risk/index.js';
import type { HostOutput } from '../strategy/index.js';
import { pendingOrder, withStatus } from './orders.js';
import type { OrderPipeline } from './pipeline.js';

export interface IntakeParts {
  clock: Clock;
  log: Log;
  journal: Journal;
  risk: RiskGate;
  holds: BalanceHolds;
  pipeline: OrderPipeline;
  riskInputs(): RiskInputs;
  onRejected(r: RiskRejection): void;
  stats: { intents: number; riskRejections: number };
}

/** Admits one strategy output; returns the orders refused (and why), to report to their strategy once the rest is queued. */
export function admit(parts: IntakeParts, out: HostOutput): { order: Order; reason: string }[] {
  const { clock, risk, journal, holds, log, pipeline, stats } = parts;
  const now = clock.now();
  for (const bad of out.invalid) {
    pipeline.stats.rejected++;
    log.warn({ strategy: bad.strategyId, clientOrderId: bad.clientOrderId, rule: 'invalid', reason: bad.reason }, 'intent rejected');
  }
  if (out.intents.length === 0) return [];
  stats.intents += out.intents.length;
  const { accepted, rejected, holds: held } = risk.check(out.intents, parts.riskInputs(), now);
  holds.add(held);
  for (const r of rejected) {
    stats.riskRejections++;
    log.warn({ strategy: r.intent.strategyId, clientOrderId: r.intent.clientOrderId, rule: r.rule, reason: r.reason }, 'intent rejected');
    parts.onRejected(r);
  }
  const refused = rejected.flatMap((r) => (r.intent.kind === 'place' ? [{ intent: r.intent, order: withStatus(pendingOrder(r.intent, now), 'rejected', now), reason: r.reason }] : []));
  journal.transaction(() => {
    for (const intent of accepted) if (intent.kind === 'place') journal.recordIntent(intent, pendingOrder(intent, now));
    for (const { intent, order } of refused) journal.recordIntent(intent, order);
  });
  pipeline.submit(accepted);
  return refused.map(({ order, reason }) => ({ order, reason }));
}
