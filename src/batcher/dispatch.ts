// Which queued intents go out now, and on which endpoint. Pure: the engine passes the free
// capacity its pacer reports for one kind (spot places: spot.order + spot.batchOrders; spot
// cancels: spot.cancel + spot.batchCancel) and sends what the plan says.
//
// The venue allows 100 single requests and 50 batch requests (of up to 10) per 2 s, so the
// ceiling is 100 + 500 = 600 orders per 2 s (300/s), reachable only by using both. The plan
// sends as many intents as the capacity allows (it is optimal; see the proof sketch below)
// while spending batch requests only when singles alone cannot carry the load:
//
//   1. Full batches (maxPerBatch items of one symbol) go to the batch endpoint, first seen
//      first: no request carries more.
//   2. If the rest does not fit the free singles, the largest remaining group (< maxPerBatch
//      items left, or phase 1 would have taken it) goes as one batch, until the rest fits
//      the singles or the batch capacity is used up.
//   3. Singles take the remaining intents, each group from its head, first seen first.
//   4. Whatever is left waits, re-chunked into batches in order.
//
// Why singles first when they suffice: a batch answers with one error for all its items, so a
// single request keeps one bad order from failing nine others, and an unused batch request
// is worth up to 10 orders in the next burst. A batch of one therefore only uses the batch
// endpoint when single capacity is gone (sending now beats waiting).
//
// Optimal: any plan sends at most S + (sum of what its batch requests carry), and a batch
// request carries at most min(maxPerBatch, what its group has left). Phase 1 gives every batch
// request the most it can carry; phase 2 gives the remaining ones the largest groups left, so
// no choice of batches carries more, and singles then take min(S, rest).
//
// Order within a symbol is kept: what is sent now is a prefix of each group, what waits is
// the suffix, in order. Futures groups never use the batch endpoint (it does not exist there).
import type { Batch, CancelIntent, OrderIntent, PlaceIntent } from '../core/types.js';
import { batchOf, chunk, groupIntents, toBatches, VENUE_BATCH_MAX } from './batches.js';

export interface DispatchCapacity {
  /** Requests the single endpoint (spot.order or spot.cancel) can take now. */
  single: number;
  /** Requests the batch endpoint (spot.batchOrders or spot.batchCancel) can take now. */
  batch: number;
}

export interface DispatchPlan {
  /** One batch request each (1..maxPerBatch items of one symbol). */
  viaBatch: Batch[];
  /** One single request each. */
  viaSingle: (PlaceIntent | CancelIntent)[];
  /** Waits for capacity: batches in order, per symbol after everything sent now. */
  leftover: Batch[];
}

/** Capacity from a pacer may be fractional, negative or NaN after a pause: whole and >= 0. */
const whole = (n: number): number => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/**
 * Plans one dispatch round for batches of one kind (all places or all cancels) against the
 * free capacity of that kind's single and batch endpoints. See the header for the method.
 */
export function planDispatch(batches: readonly Batch[], capacity: DispatchCapacity, maxPerBatch = VENUE_BATCH_MAX): DispatchPlan {
  if (!Number.isInteger(maxPerBatch) || maxPerBatch < 1 || maxPerBatch > VENUE_BATCH_MAX) {
    throw new RangeError(`maxPerBatch must be a whole number from 1 to ${VENUE_BATCH_MAX} (got ${maxPerBatch})`);
  }
  let single = whole(capacity.single);
  let batch = whole(capacity.batch);
  // Queues per (market, symbol, kind); `next` is the index of the first intent not yet planned.
  const queues = groupIntents(batches.flatMap((b) => b.items)).map((items) => ({ items, next: 0, batchable: items[0]!.market === 'spot' }));
  const left = (q: (typeof queues)[number]) => q.items.length - q.next;
  const viaBatch: Batch[] = [];
  const viaSingle: OrderIntent[] = [];
  const take = (q: (typeof queues)[number], n: number) => q.items.slice(q.next, (q.next += n));

  // 1. Full batches.
  for (const q of queues) {
    while (q.batchable && batch > 0 && left(q) >= maxPerBatch) {
      viaBatch.push(batchOf(take(q, maxPerBatch)));
      batch--;
    }
  }
  // 2. Largest remainders as batches, only while the singles cannot carry the rest.
  let rest = queues.reduce((n, q) => n + left(q), 0);
  while (batch > 0 && rest > single) {
    let best: (typeof queues)[number] | undefined;
    for (const q of queues) if (q.batchable && left(q) > 0 && (!best || left(q) > left(best))) best = q;
    if (!best) break;
    const n = Math.min(left(best), maxPerBatch);
    viaBatch.push(batchOf(take(best, n)));
    batch--;
    rest -= n;
  }
  // 3. Singles, each group from its head.
  for (const q of queues) {
    const n = Math.min(single, left(q));
    viaSingle.push(...take(q, n));
    single -= n;
  }
  // 4. The rest waits.
  const leftover = queues.flatMap((q) => chunk(q.items.slice(q.next), q.batchable ? maxPerBatch : 1).map(batchOf));
  return {
    viaBatch,
    viaSingle: viaSingle as (PlaceIntent | CancelIntent)[],
    leftover,
  };
}

/** The single and batch endpoints each kind of intent is sent to (futures has no batch endpoint). */
const ENDPOINTS = {
  spot: { place: ['spot.order', 'spot.batchOrders'], cancel: ['spot.cancel', 'spot.batchCancel'] },
  futures: { place: ['futures.order', undefined], cancel: ['futures.cancel', undefined] },
} as const;

/** The free capacity of the endpoints an intent's kind (market, place or cancel) is sent to. */
function capacityOf(market: OrderIntent['market'], kind: OrderIntent['kind'], free: (endpoint: string) => number): DispatchCapacity {
  const [single, batch] = ENDPOINTS[market][kind];
  return { single: free(single), batch: batch === undefined ? 0 : free(batch) };
}

/**
 * The most intents of one group (a symbol and kind) a round can send now: a plan sends a prefix
 * of each group, so it needs no more than that many of the group's oldest, and a backlog of
 * hundreds is not re-planned each time one slot comes back.
 */
export function mostPerRound(intent: OrderIntent, free: (endpoint: string) => number): number {
  const { single, batch } = capacityOf(intent.market, intent.kind, free);
  return whole(single) + whole(batch) * VENUE_BATCH_MAX;
}

/**
 * One dispatch round over every kind: spot places and cancels share the capacity of their
 * single and batch endpoints, futures goes one by one. `free` is what the pacer has left per
 * endpoint id (spot.order, spot.batchOrders, ...). What does not fit waits, in order.
 */
export function planRound(intents: readonly OrderIntent[], free: (endpoint: string) => number): { send: Batch[]; wait: OrderIntent[] } {
  const batches = toBatches(intents);
  const send: Batch[] = [];
  const wait: OrderIntent[] = [];
  for (const market of ['spot', 'futures'] as const) {
    for (const kind of ['place', 'cancel'] as const) {
      const plan = planDispatch(
        batches.filter((b) => b.market === market && b.kind === kind),
        capacityOf(market, kind, free),
      );
      send.push(...plan.viaBatch, ...plan.viaSingle.map((i) => batchOf([i])));
      wait.push(...plan.leftover.flatMap((b) => b.items));
    }
  }
  return { send, wait };
}
