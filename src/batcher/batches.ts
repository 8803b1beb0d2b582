// Grouping accepted intents into the venue's batch shape. Pure; input order is kept.
import type { Batch, CancelIntent, OrderIntent, PlaceIntent } from '../core/types.js';

/** The venue's batchOrders and batchCancel take at most 10 items. */
export const VENUE_BATCH_MAX = 10;

/** The grouping key: one batch request serves one market, one symbol and one kind. */
export const groupKey = (i: Pick<OrderIntent, 'market' | 'symbol' | 'kind'>): string => `${i.market}:${i.symbol}:${i.kind}`;

/** Intents per (market, symbol, kind), groups in first-seen order, items in input order. */
export function groupIntents(intents: readonly OrderIntent[]): OrderIntent[][] {
  const groups = new Map<string, OrderIntent[]>();
  for (const intent of intents) {
    const key = groupKey(intent);
    const group = groups.get(key);
    if (group) group.push(intent);
    else groups.set(key, [intent]);
  }
  return [...groups.values()];
}

/** A batch of `items`, all of one market, symbol and kind (the caller guarantees it). */
export function batchOf(items: readonly OrderIntent[]): Batch {
  const first = items[0];
  if (!first) throw new RangeError('a batch needs at least one intent');
  return { market: first.market, symbol: first.symbol, kind: first.kind, items: items as readonly PlaceIntent[] | readonly CancelIntent[] };
}

/** Consecutive slices of at most `size` items. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let k = 0; k < items.length; k += size) out.push(items.slice(k, k + size));
  return out;
}

/**
 * Groups accepted intents by (market, symbol, kind) in first-seen order, into batches of
 * 1..maxPerBatch in input order. Futures intents always become batches of one: the futures
 * API has no batch endpoints, so every futures order and cancel is its own request.
 */
export function toBatches(intents: readonly OrderIntent[], maxPerBatch = VENUE_BATCH_MAX): Batch[] {
  if (!Number.isInteger(maxPerBatch) || maxPerBatch < 1 || maxPerBatch > VENUE_BATCH_MAX) {
    throw new RangeError(`maxPerBatch must be a whole number from 1 to ${VENUE_BATCH_MAX} (got ${maxPerBatch})`);
  }
  return groupIntents(intents).flatMap((group) => chunk(group, group[0]!.market === 'spot' ? maxPerBatch : 1).map(batchOf));
}
