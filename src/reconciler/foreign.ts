// Open orders on the venue that no journal order claims and none of ours awaiting an answer
// could be: someone else's (the account's owner trading by hand, another program), as pure
// functions. They are adopted (tracked, their fills counted) or cancelled, as configured.
import { parseClientOrderId, type ClientOrderId } from '../core/ids.js';
import type { Market, Order, PlaceIntent } from '../core/types.js';
import type { VenueOrder } from '../core/venue.js';

/** The strategy id of adopted orders that no running strategy placed. */
export const ADOPTED = 'adopted';

/** A foreign order asked to be cancelled is asked again only after this long. */
export const RECANCEL_AFTER_MS = 10_000;

export type ForeignAction = 'adopt' | 'cancel' | 'skip';

/** What to do with a foreign open order now; `askedAt` is when we last asked to cancel it. */
export function foreignAction(policy: 'adopt' | 'cancel', askedAt: number | undefined, now: number): ForeignAction {
  if (policy === 'adopt') return 'adopt';
  return askedAt !== undefined && now - askedAt < RECANCEL_AFTER_MS ? 'skip' : 'cancel';
}

/**
 * The journal record of an adopted order: ours from now on. A client id one of our running
 * strategies would make (our tag) gives it to that strategy; anything else is `adopted`.
 */
export function adoptedOrder(v: VenueOrder, market: Market, strategyIds: readonly string[], now: number): { intent: PlaceIntent; order: Order } {
  const clientId = v.clientOrderId && v.clientOrderId !== '0' ? v.clientOrderId : undefined;
  const tag = clientId ? parseClientOrderId(clientId)?.strategyTag : undefined;
  const strategyId = tag && strategyIds.includes(tag) ? tag : ADOPTED;
  const clientOrderId = (clientId ?? `venue-${v.orderId}`) as ClientOrderId;
  const price = v.price !== undefined ? { price: v.price } : {};
  const intent: PlaceIntent = { kind: 'place', intentId: `adopt:${v.orderId}`, strategyId, clientOrderId, market, symbol: v.symbol, side: v.side, type: v.type, volume: v.origQty, ...price };
  const order: Order = {
    clientOrderId,
    strategyId,
    market,
    symbol: v.symbol,
    side: v.side,
    type: v.type,
    volume: v.origQty,
    executedVolume: v.executedQty,
    status: v.status,
    venueOrderId: v.orderId,
    createdAt: now,
    updatedAt: now,
    ...price,
  };
  return { intent, order };
}
