// The venue's answers to one batch, journaled: synchronous, so a batch's answers share a commit.
import { amend } from '../core/amend.js';
import { dec } from '../core/decimal.js';
import { BannedError } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { Journal } from '../core/ports.js';
import { FINAL_STATUSES, type CancelIntent, type Order, type OrderStatus, type PlaceIntent } from '../core/types.js';
import type { CancelResult, PlaceResult } from '../executor/index.js';
import type { BalanceHolds } from '../risk/index.js';
import { pendingOrder, withStatus } from './orders.js';
import type { PipelineStats } from './pipeline-types.js';

/**
 * How far an order has come. The reconciler may learn of an order before the answer to its place
 * arrives (a venue that echoes client ids in its open orders, then its fills): the answer, taken
 * when the venue booked the order, is older than that and never takes the order back.
 */
const STAGE: Readonly<Record<OrderStatus, number>> = { pending: 0, unknown: 0, open: 1, partially_filled: 2, pending_cancel: 3, filled: 4, canceled: 4, rejected: 4 };
const further = (known: OrderStatus, said: OrderStatus): OrderStatus => (FINAL_STATUSES.has(known) || STAGE[known] > STAGE[said] ? known : said);

/** The order as the venue's answer to its place leaves it, journaled. */
export function journalPlaced(parts: { journal: Journal; holds: BalanceHolds; stats: PipelineStats }, { intent, outcome }: PlaceResult, now: number): Order {
  const { journal, holds, stats } = parts;
  const order = journal.order(intent.clientOrderId) ?? pendingOrder(intent, now);
  // A pass found it on the venue before this answer came: the venue has it, whatever it says.
  const found = order.venueOrderId !== undefined;
  const refused = (outcome.kind === 'rejected' || outcome.kind === 'not_sent') && !found;
  // Refused orders lock nothing; the others are in the balances of the next account read.
  if (refused) holds.release(intent.clientOrderId);
  else if (outcome.kind === 'unknown') holds.lost(intent.clientOrderId, now);
  else holds.answered(intent.clientOrderId, now);
  let next: Order;
  switch (outcome.kind) {
    case 'accepted': {
      stats.accepted++;
      // Cancelled on arrival without saying what it executed first (a futures answer gives a
      // status alone): how much it traded is unknown, not nothing. It is left ending, for the
      // reconciler to settle from its fills; until then it counts as resting (risk, the strategy's
      // open orders), so a strategy waiting for "no open order" does not send it again.
      const unsaid = outcome.status === 'canceled' && outcome.executedQty === undefined;
      next = withStatus(order, further(order.status, unsaid ? 'pending_cancel' : outcome.status === 'pending' ? 'open' : outcome.status), now, order.venueOrderId ?? outcome.venueOrderId);
      // What the answer says it executed (a marketable order can fill at once); its fills, read later, take the larger, never the sum.
      if (outcome.executedQty !== undefined) next = amend(next, { executedVolume: dec.max(next.executedVolume, outcome.executedQty) });
      journal.updateOrder(next, outcome.status === 'canceled' ? endedOnArrival(intent, unsaid) : 'acknowledged');
      break;
    }
    case 'unknown':
      stats.unknown++;
      next = withStatus(order, further(order.status, 'unknown'), now);
      journal.updateOrder(next, outcome.error.message);
      break;
    case 'rejected':
    case 'not_sent':
      if (!refused) {
        next = order;
        journal.updateOrder(next, `answered refused (${outcome.error.message}), but the venue lists it: kept`);
        break;
      }
      stats.rejected++;
      next = withStatus(order, 'rejected', now);
      journal.updateOrder(next, outcome.error.message);
      if (outcome.error instanceof BannedError) journal.setBanUntil(outcome.error.untilMs);
      break;
  }
  return next;
}

/** Why the venue cancelled an order in its answer to the place, as far as the order says. */
function endedOnArrival(intent: PlaceIntent, unsaid: boolean): string {
  const why =
    intent.timeInForce === 'POST_ONLY'
      ? 'POST_ONLY: it would have taken liquidity'
      : intent.timeInForce === 'IOC'
        ? 'IOC: what did not trade at once is cancelled'
        : intent.timeInForce === 'FOK'
          ? 'FOK: it could not trade in full at once'
          : intent.type === 'MARKET'
            ? 'MARKET: what the book could not take is cancelled'
            : 'the venue gave no reason';
  return `cancelled by the venue on arrival (${why})${unsaid ? '; what it traded first shows with its fills' : ''}`;
}

/**
 * A cancel the venue took (or answered as already ended) leaves its order pending_cancel until
 * the reconciler sees how it ended: it can still fill meanwhile, and is never cancelled twice.
 * Returns the orders changed, and the cancels that failed (refused, or not confirmed) with why.
 */
export function journalCancelled(parts: { journal: Journal; log: Log }, results: readonly CancelResult[], now: number): { changed: Order[]; failed: { intent: CancelIntent; reason: string }[] } {
  const { journal, log } = parts;
  const changed: Order[] = [];
  const failed: { intent: CancelIntent; reason: string }[] = [];
  for (const { intent, outcome } of results) {
    if (outcome.kind !== 'accepted' && outcome.kind !== 'gone') {
      log.warn({ clientOrderId: intent.clientOrderId, outcome: outcome.kind, reason: outcome.error.message }, 'cancel not confirmed');
      if (outcome.error instanceof BannedError) journal.setBanUntil(outcome.error.untilMs);
      failed.push({ intent, reason: `${outcome.kind === 'rejected' ? 'refused' : 'not confirmed'}: ${outcome.error.message}` });
      continue;
    }
    const order = journal.order(intent.clientOrderId);
    if (!order || FINAL_STATUSES.has(order.status) || order.status === 'pending_cancel') continue;
    const next = withStatus(order, 'pending_cancel', now);
    journal.updateOrder(next, outcome.kind === 'accepted' ? 'cancel accepted' : 'cancel answered: already ended, or unknown to the venue');
    changed.push(next);
  }
  return { changed, failed };
}
