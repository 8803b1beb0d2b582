// Pure batching and dispatch planning.
import type { Batch, CancelIntent, OrderIntent, PlaceIntent } from '../core/types.js';

/**
 * Groups intents by (market, symbol, kind) in first-seen order, into batches of 1..max in
 * input order. Futures has no batch endpoints, so futures intents always travel alone.
 */
export function toBatches(intents: readonly OrderIntent[], maxPerBatch = 10): Batch[] {
  const groups = new Map<string, OrderIntent[]>();
  for (const i of intents) {
    const key = `${i.market}:${i.symbol}:${i.kind}`;
    const g = groups.get(key) ?? [];
    g.push(i);
    groups.set(key, g);
  }
  const batches: Batch[] = [];
  for (const items of groups.values()) {
    const first = items[0]!;
    const size = first.market === 'futures' ? 1 : maxPerBatch;
    for (let k = 0; k < items.length; k += size) {
      batches.push({ market: first.market, symbol: first.symbol, kind: first.kind, items: items.slice(k, k + size) as PlaceIntent[] | CancelIntent[] });
    }
  }
  return batches;
}

export interface DispatchPlan {
  /** Batches to send now (a batch of one goes to the single endpoint). */
  send: Batch[];
  /** Intents that wait for capacity, in their original order. */
  wait: OrderIntent[];
}

/**
 * Chooses what to send now for batches of one kind and market, given free requests on the
 * single endpoint and on the batch endpoint. Full batches use the batch endpoint (10 orders
 * per request); single capacity then takes the remaining intents one by one; what is left
 * waits. Under saturation both endpoints run full: 50 batches of 10 + 100 singles per 2 s.
 */
export function planDispatch(batches: readonly Batch[], capacity: { single: number; batch: number }): DispatchPlan {
  let { single, batch } = capacity;
  const send: Batch[] = [];
  const wait: OrderIntent[] = [];
  for (const b of batches) {
    if (b.items.length > 1 && batch > 0 && (b.items.length > single || b.items.length >= 3)) {
      batch--;
      send.push(b);
      continue;
    }
    const now = b.items.slice(0, single);
    single -= now.length;
    for (const item of now) send.push({ ...b, items: [item] as PlaceIntent[] | CancelIntent[] });
    wait.push(...b.items.slice(now.length));
  }
  return { send, wait };
}
