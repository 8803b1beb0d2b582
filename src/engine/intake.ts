// What a strategy asked for, admitted: invalid intents and risk's refusals are logged (a few times
// a period for each reason, then counted: repeats.ts) and journaled rejected, the rest journaled
// pending in one commit (a tick may place hundreds), still before any is sent, then queued on the
// order pipeline.
import type { Log } from '../core/log.js';
import type { Clock } from '../core/clock.js';
import { JournalError } from '../core/errors.js';
import type { Journal } from '../core/ports.js';
import type { Order, OrderIntent, PlaceIntent } from '../core/types.js';
import { symbolKey, type BalanceHolds, type RiskGate, type RiskInputs, type RiskRejection } from '../risk/index.js';
import type { Reconciler } from '../reconciler/poller.js';
import type { HostOutput } from '../strategy/index.js';
import { pendingOrder, withStatus } from './orders.js';
import { Repeats } from './repeats.js';
import type { OrderPipeline } from './pipeline.js';
import type { EngineParts } from './parts.js';
import type { UnbookedExecutions } from './unbooked.js';

export interface IntakeParts {
  clock: Clock;
  /** Refusals are logged a few times a period (refusals()): a plugin bug can have thousands refused a second. */
  repeats: Repeats;
  journal: Journal;
  risk: RiskGate;
  holds: BalanceHolds;
  pipeline: OrderPipeline;
  riskInputs(): RiskInputs;
  onRejected(r: RiskRejection): void;
  /**
   * Why a strategy may not place this now, outside risk's rules (an exit under way or cooling
   * down: exit-monitor.ts; a loss limit hit: loss-limit.ts). `earlier`: the places let through
   * before it from the same output, not journaled yet.
   */
  refusal?(intent: OrderIntent, earlier: readonly PlaceIntent[]): string | undefined;
  /** refusedBy: intents refused (invalid, or by a risk rule), per rule, with the first reason (a backtest's report). */
  stats: { intents: number; riskRejections: number; refusedBy: Record<string, RuleTally> };
}

/**
 * What risk judges against now; `leaving` are orders about to be sent, not counted as resting.
 * Executions the venue told of whose fills are not booked yet count in positions (unbooked.ts);
 * an order whose cancel the venue's book shows done counts its volume but not as an open order.
 */
export function riskInputs(parts: Pick<EngineParts, 'journal' | 'positions' | 'holds' | 'instruments' | 'marketData'>, engine: { reconciler: Reconciler; unbooked: UnbookedExecutions }, leaving?: ReadonlySet<string>): RiskInputs {
  const { journal, positions, holds, instruments, marketData } = parts;
  const { holdings } = engine.reconciler;
  const open = journal.orders({ openOnly: true });
  return {
    positions: engine.unbooked.addTo(new Map(positions.snapshot().map((p) => [symbolKey(p.market, p.symbol), p.quantity]))),
    openOrders: leaving ? open.filter((o) => !leaving.has(o.clientOrderId)) : open,
    offBook: engine.reconciler.cancelsOffBook(),
    balances: holds.free(holdings.balancesNow().values(), holdings.balancesAskedAt),
    lastPrices: marketData.lastPrices,
    instruments: instruments.byKey,
  };
}

/** Admits one strategy output; returns the orders refused (and why), to report to their strategy once the rest is queued. */
export function admit(parts: IntakeParts, out: HostOutput): { order: Order; reason: string }[] {
  const { clock, risk, journal, holds, pipeline, stats } = parts;
  const now = clock.now();
  for (const bad of out.invalid) {
    pipeline.stats.rejected++;
    tellRefusal(parts, bad.strategyId, 'invalid', bad.reason, { strategy: bad.strategyId, clientOrderId: bad.clientOrderId, rule: 'invalid', reason: bad.reason });
  }
  if (out.intents.length === 0) return [];
  stats.intents += out.intents.length;
  const { intents, exits } = screened(parts, out.intents);
  const { accepted, rejected, holds: held } = risk.check(intents, parts.riskInputs(), now);
  for (const r of rejected) {
    stats.riskRejections++;
    tellRefusal(parts, r.intent.strategyId, r.rule, r.reason, { strategy: r.intent.strategyId, clientOrderId: r.intent.clientOrderId, rule: r.rule, reason: r.reason });
    parts.onRejected(r);
  }
  const refused = [...exits, ...rejected].flatMap((r) => (r.intent.kind === 'place' ? [{ intent: r.intent, order: withStatus(pendingOrder(r.intent, now), 'rejected', now), reason: r.reason }] : []));
  try {
    journal.transaction(() => {
      for (const intent of accepted) if (intent.kind === 'place') journal.recordIntent(intent, pendingOrder(intent, now));
      for (const { intent, order } of refused) journal.recordIntent(intent, order);
    });
  } catch (err) {
    if (!(err instanceof JournalError)) throw err;
    // Nothing leaves unjournaled. Not the plugin's fault: it runs on, and what it asks once the
    // disk takes writes again goes out (the journal's health and alert say why meanwhile).
    const reason = `not sent: ${err.message}`;
    const unsent = accepted.flatMap((i) => (i.kind === 'place' ? [{ order: withStatus(pendingOrder(i, now), 'rejected', now), reason }] : []));
    for (const { order } of unsent) tellRefusal(parts, order.strategyId, 'journal', reason, { strategy: order.strategyId, clientOrderId: order.clientOrderId, rule: 'journal', reason });
    pipeline.stats.rejected += unsent.length;
    // Cancels are not journaled before they leave: they still go.
    pipeline.submit(accepted.filter((i) => i.kind !== 'place'));
    return [...refused.map(({ order, reason }) => ({ order, reason })), ...unsent];
  }
  holds.add(held);
  pipeline.submit(accepted);
  return refused.map(({ order, reason }) => ({ order, reason }));
}

/** The intents `parts.refusal` lets through, and those it refuses (told and journaled as risk's refusals are). */
function screened(parts: IntakeParts, all: OrderIntent[]): { intents: OrderIntent[]; exits: { intent: PlaceIntent; reason: string }[] } {
  if (!parts.refusal) return { intents: all, exits: [] };
  const intents: OrderIntent[] = [];
  const passed: PlaceIntent[] = [];
  const exits: { intent: PlaceIntent; reason: string }[] = [];
  for (const intent of all) {
    const reason = parts.refusal(intent, passed);
    if (reason === undefined || intent.kind !== 'place') {
      intents.push(intent);
      if (intent.kind === 'place') passed.push(intent);
    } else {
      exits.push({ intent, reason });
      // The rule is the reason's first word: exits, or lossLimit (engine/loss-limit.ts).
      const rule = reason.startsWith('lossLimit:') ? 'lossLimit' : 'exits';
      tellRefusal(parts, intent.strategyId, rule, reason, { strategy: intent.strategyId, clientOrderId: intent.clientOrderId, rule, reason });
    }
  }
  return { intents, exits };
}

/** Refusals logged in full a few times per period for each strategy, rule and reason (its figures aside), then counted. */
export const refusals = (log: Log, clock: Clock) => new Repeats(log, () => clock.now(), { everyMs: 10_000, full: 5 });

export interface RuleTally {
  count: number;
  first: string;
}

function tellRefusal(parts: IntakeParts, strategy: string, rule: string, reason: string, fields: object): void {
  const tally = (parts.stats.refusedBy[rule] ??= { count: 0, first: reason });
  tally.count++;
  parts.repeats.line('warn', `${strategy}\u0000${rule}\u0000${reason.replace(/\d+(\.\d+)?/g, '#')}`, fields, 'intent rejected');
}
