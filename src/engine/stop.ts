// The end of a stop, after strategies have stopped and the queue is settled: cancel our open
// orders when the config says so, and reconcile until the journal agrees with the venue, so the
// daemon exits with its journal settled rather than leaving that to the next start. What it
// could not settle (a venue that stopped answering) is said loudly: an alert, and the outcome.
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { Journal } from '../core/ports.js';
import type { CancelIntent, Order } from '../core/types.js';
import { PURGED_REASON } from '../reconciler/settle.js';
import type { UnbookedExecutions } from './unbooked.js';
import type { AlertKind } from './parts.js';
import type { OrderPipeline } from './pipeline.js';

/** Reconcile passes at shutdown are this far apart (FINAL_PASSES of them is the slack on the stop's bound). */
export const FINAL_PASSES = 8;
const FINAL_PASS_GAP_MS = 300;

export interface StopSettlement {
  journal: Journal;
  clock: Clock;
  log: Log;
  pipeline: OrderPipeline;
  /** Ids of our strategies: an adopted order belongs to whoever placed it by hand. */
  ours: ReadonlySet<string>;
  /** engine.shutdown.cancelOpenOrders. */
  cancel: boolean;
  /** reconcile.unknownTimeoutMs: how long a lost answer may take to settle. */
  unknownTimeoutMs: number;
  /** reconcile.drift.graceMs: how late the venue may show a fill. */
  graceMs: number;
  /** Executions the venue told of whose fills are not journaled (unbooked.ts). */
  unbooked: Pick<UnbookedExecutions, 'any'>;
  /** One pass reading everything (all open orders, trades to the end). */
  reconcile(): Promise<void>;
  /** True once a second signal asked the stop to end its waits: the pass under way is the last. */
  hurried?: () => boolean;
  alert?: (kind: AlertKind, message: string, details: Record<string, unknown>) => void;
}

export interface StopOutcome {
  /**
   * Our orders the stop left that may still rest at the venue: open when it was to cancel them
   * (the cancel not confirmed), or their answer lost. One whose cancel the venue took is not
   * among them: it only waits for the venue to settle it.
   */
  unsettled: readonly Order[];
}

/** Why the stop ended with orders unsettled, as the alert says it. */
const WHY = {
  unreadable: 'the venue could not be read',
  hurried: 'a second signal hurried the stop',
  deadline: 'the venue did not settle them within the stop\'s bound (is it unreachable?)',
} as const;

/** Client order ids the alert names (it counts them all). */
const IDS_LISTED = 20;

/**
 * A venue settles a cancel a moment after accepting it, an order whose answer was lost shows (or
 * is given up) only on a pass, and fills may show up to graceMs after the venue booked them. So
 * passes go on until no order of ours is unsettled (nor open, when cancelling) and, when
 * cancelling, while fills may still come, for at most the grace after that, so every fill of the
 * orders that ended is journaled. Bounded by unknownTimeoutMs while a lost answer is open, and by
 * twice the grace: cancels beyond the few a pass asks about settle only once their fills have had
 * the grace to show (settle.ts), then late fills may take the grace. A venue that cannot answer
 * leaves the rest to the next start.
 */
export async function settleAtStop(s: StopSettlement): Promise<StopOutcome> {
  const { journal, clock, log, pipeline, ours, cancel, graceMs } = s;
  const ourOpen = () => journal.orders({ openOnly: true }).filter((o) => ours.has(o.strategyId));
  // An order without a venue id yet (its answer lost) gets its cancel once a pass finds it.
  const cancelOurs = async () => {
    pipeline.submit(ourOpen().map((o): CancelIntent => ({ kind: 'cancel', intentId: `${o.clientOrderId}:shutdown`, strategyId: o.strategyId, market: o.market, symbol: o.symbol, clientOrderId: o.clientOrderId })));
    await pipeline.drain();
  };
  // Resting orders may stay when not cancelling; any other open status is still to settle.
  const resting = (o: Order) => !cancel && (o.status === 'open' || o.status === 'partially_filled');
  const unsettled = () => ourOpen().filter((o) => !resting(o));
  // What the operator must see to: a cancel the venue took only waits for the venue to settle it.
  const mayRest = () => unsettled().filter((o) => o.status !== 'pending_cancel');
  // Fills may still come while the venue has told of executions not journaled (final orders'
  // too: a MARKET order answered filled), or an order the stop found open ended with no word on
  // what it executed (the venue forgot it: -2013).
  const found = ourOpen().map((o) => o.clientOrderId);
  const fillsToCome = () => s.unbooked.any(ours) || found.some((id) => journal.history(id).at(-1)?.reason === PURGED_REASON);
  const deadline = () => startedAt + (ourOpen().some((o) => o.status === 'unknown' || o.status === 'pending') ? s.unknownTimeoutMs : 0) + 2 * graceMs + FINAL_PASSES * FINAL_PASS_GAP_MS;
  if (cancel) await cancelOurs();
  // The bound counts from when the cancels were sent: at the venue's pace, hundreds take a while.
  const startedAt = clock.now();
  let settledAt: number | undefined;
  for (let pass = 0; ; pass++) {
    if (pass > 0) await clock.sleep(FINAL_PASS_GAP_MS);
    try {
      await s.reconcile();
    } catch (err) {
      log.warn({ reason: errorText(err) }, 'final reconcile failed; the next start settles it');
      return left(s, mayRest, 'unreadable');
    }
    const now = clock.now();
    if (unsettled().length > 0) settledAt = undefined;
    else settledAt ??= now;
    if (settledAt !== undefined && (!cancel || !fillsToCome() || now >= settledAt + graceMs)) return { unsettled: [] };
    const hurried = s.hurried?.() === true;
    if (hurried || now >= deadline()) {
      // Everything settled, the passes only waiting out the grace for late fills: nothing is left to say unsettled.
      const n = unsettled().length;
      if (n === 0) {
        log.info({ graceMs, settledAt }, 'the stop ends before the grace for late fills did: a fill the venue shows later is journaled at the next start');
        return { unsettled: [] };
      }
      if (hurried) log.warn({ unsettled: n }, 'the stop was hurried: no more settling passes; the next start settles what is left');
      else log.warn({ unsettled: n }, 'stopping with orders still unsettled; the next start settles them');
      return left(s, mayRest, hurried ? 'hurried' : 'deadline');
    }
    if (cancel && ourOpen().length > 0) await cancelOurs();
  }
}

/**
 * Orders that may still rest at the venue are the operator's to see to before anything else
 * trades them: an alert (the daemon waits for its delivery before it exits) saying how many,
 * where, and what to do. Cancels already released are answered first, so one the venue took
 * does not count.
 */
async function left(s: StopSettlement, mayRest: () => Order[], why: keyof typeof WHY): Promise<StopOutcome> {
  await s.pipeline.drain();
  const unsettled = mayRest();
  if (unsettled.length === 0) return { unsettled };
  const n = unsettled.length;
  const symbols = [...new Set(unsettled.map((o) => o.symbol))].sort();
  const byStatus: Record<string, number> = {};
  for (const o of unsettled) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
  const statuses = Object.entries(byStatus).map(([status, count]) => `${count} ${status}`).join(', ');
  const message =
    `sluice stopped with ${n} order${n === 1 ? '' : 's'} of ours that may still be resting at the venue (${statuses}) on ${symbols.join(', ')}: ${WHY[why]}. ` +
    'Check them with `sluice status`, cancel them on the venue by hand, or start sluice again to reconcile them';
  const clientOrderIds = unsettled.slice(0, IDS_LISTED).map((o) => o.clientOrderId);
  s.log.error({ alert: 'stop_unsettled', orders: n, symbols, byStatus }, message);
  s.alert?.('stop_unsettled', message, { orders: n, symbols, byStatus, clientOrderIds, reason: why, cancelOpenOrders: s.cancel });
  return { unsettled };
}
