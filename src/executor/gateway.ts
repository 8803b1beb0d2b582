// Sends batches of intents to the right endpoints and says, per intent, what the venue did.
// The one rule that matters: an intent whose fate is ambiguous is reported `unknown`, never
// `rejected` or `not_sent`, so nothing that may be live on the venue is ever sent again blindly.
import {
  AuthError,
  BannedError,
  ClockSkewError,
  isOutcomeUnknown,
  OrderRejectedError,
  RateLimitedError,
  TemporaryError,
  UnknownOrderError,
  type SluiceError,
  errorText,
} from '../core/errors.js';
import type { VenueOrderId } from '../core/ids.js';
import type { Log } from '../core/log.js';
import { BoundedMap } from '../core/bounded.js';
import { dec, type Decimal } from '../core/decimal.js';
import type { Batch, CancelIntent, ClientIdCarrier, OrderStatus, PlaceIntent } from '../core/types.js';
import type { OrderAck } from '../exchange/codec.js';
import { VenueCode } from '../exchange/codes.js';
import { ClientIdPolicy, type PlacingEndpoint } from './client-ids.js';
import type { Executor } from './executor.js';

export type PlaceOutcome =
  /** The venue holds the order under `venueOrderId`; `executedQty` where its answer says it already executed some. */
  | { kind: 'accepted'; venueOrderId: VenueOrderId; status: OrderStatus; executedQty?: Decimal }
  /** The venue refused it: it does not exist there. */
  | { kind: 'rejected'; error: SluiceError }
  /** Not acted on by the venue (ban, rate limit, auth, clock, unreachable): safe to treat as never sent. */
  | { kind: 'not_sent'; error: SluiceError }
  /** May or may not exist on the venue: only the reconciler settles it. */
  | { kind: 'unknown'; error: SluiceError };

export type CancelOutcome =
  | { kind: 'accepted' }
  /** The venue does not know the order, or it is already final. */
  | { kind: 'gone'; error?: SluiceError }
  | { kind: 'rejected'; error: SluiceError }
  | { kind: 'not_sent'; error: SluiceError }
  | { kind: 'unknown'; error: SluiceError };

export interface PlaceResult {
  intent: PlaceIntent;
  outcome: PlaceOutcome;
}

export interface CancelResult {
  intent: CancelIntent;
  outcome: CancelOutcome;
}

/** Every endpoint the gateway sends batches to. */
export const ORDER_ENDPOINTS = ['spot.order', 'spot.batchOrders', 'spot.cancel', 'spot.batchCancel', 'futures.order', 'futures.cancel'] as const;

/** Endpoint a batch will use; the dispatcher asks this to check pacer capacity. */
export function endpointForBatch(batch: Batch): (typeof ORDER_ENDPOINTS)[number] {
  if (batch.market === 'futures') return batch.kind === 'place' ? 'futures.order' : 'futures.cancel';
  if (batch.kind === 'place') return batch.items.length > 1 ? 'spot.batchOrders' : 'spot.order';
  return batch.items.length > 1 ? 'spot.batchCancel' : 'spot.cancel';
}

/** Orders whose outcome was unknown kept with how their client order id travelled; a storm's worth. */
const UNKNOWN_CARRIERS_KEPT = 10_000;

export class OrderGateway {
  /**
   * Whether orders carry client order ids, per endpoint: until the venue refuses them (batch
   * items carry them too, though the notes' item shape shows none: the venue's order query names
   * them, which binds a lost answer exactly).
   */
  private readonly clientIds: ClientIdPolicy;
  /** By client order id, for orders whose outcome this run could not tell (the reconciler's look-ups ask). */
  private readonly unknownCarriers = new BoundedMap<ClientIdCarrier>(UNKNOWN_CARRIERS_KEPT);

  constructor(
    private readonly executor: Executor,
    log?: Log,
  ) {
    this.clientIds = new ClientIdPolicy(log);
  }

  /** How the client order id of an order whose outcome was unknown went to the venue; undefined when not sent by this run. */
  carrierOf(clientOrderId: string): ClientIdCarrier | undefined {
    return this.unknownCarriers.get(clientOrderId);
  }

  async place(batch: Batch<PlaceIntent>): Promise<PlaceResult[]> {
    const way: ClientIdCarrier = batch.market === 'futures' || batch.items.length === 1 ? 'order' : 'batch';
    // The last request sent says how the ids went: one refused for carrying them went again without.
    let carried = true;
    const results = await this.send(batch, (withIds) => (carried = withIds));
    const carrier: ClientIdCarrier = carried ? way : 'none';
    for (const { intent, outcome } of results) if (outcome.kind === 'unknown') this.unknownCarriers.set(intent.clientOrderId, carrier);
    return results;
  }

  private async send(batch: Batch<PlaceIntent>, sending: (withIds: boolean) => void): Promise<PlaceResult[]> {
    const items = batch.items;
    const withClientIds = <T>(endpoint: PlacingEndpoint, call: (withIds: boolean) => Promise<T>) =>
      this.clientIds.send(endpoint, (withIds) => {
        sending(withIds);
        return call(withIds);
      });
    try {
      if (batch.market === 'futures') {
        if (items.length !== 1) throw new RangeError('futures has no batch endpoint: send futures orders one by one');
        const i = items[0]!;
        const ack = await withClientIds('futures.order', (withIds) =>
          this.executor.call('futures.order', {
            contractName: i.symbol,
            side: i.side,
            type: i.type,
            volume: i.volume,
            price: i.price,
            open: i.open ?? 'OPEN',
            positionType: i.positionType ?? 1,
            timeInForce: i.timeInForce,
            clientOrderId: withIds ? i.clientOrderId : undefined,
          }),
        );
        return [{ intent: i, outcome: accepted(ack) }];
      }
      if (items.length === 1) {
        const i = items[0]!;
        const ack = await withClientIds('spot.order', (withIds) =>
          this.executor.call('spot.order', {
            symbol: i.symbol,
            side: i.side,
            type: i.type,
            volume: i.volume,
            price: i.price,
            newClientOrderId: withIds ? i.clientOrderId : undefined,
          }),
        );
        return [{ intent: i, outcome: accepted(ack) }];
      }
      const res = await withClientIds('spot.batchOrders', (withIds) =>
        this.executor.call('spot.batchOrders', {
          symbol: batch.symbol,
          orders: items.map((i) => ({ side: i.side, type: i.type, volume: i.volume, price: i.price, newClientOrderId: withIds ? i.clientOrderId : undefined })),
        }),
      );
      if (res.ids.length !== items.length) {
        // The venue placed something, but we cannot tell which id is which order.
        const error = new TemporaryError({ endpoint: 'spot.batchOrders' }, `answered ${res.ids.length} ids for ${items.length} orders`, true);
        return items.map((intent) => ({ intent, outcome: { kind: 'unknown', error } }));
      }
      return items.map((intent, k): PlaceResult => {
        const id = res.ids[k]!;
        // One item the answer does not say of: that order's outcome alone is unknown (the reconciler settles it).
        if (typeof id !== 'string') return { intent, outcome: { kind: 'unknown', error: id.unreadable } };
        return { intent, outcome: { kind: 'accepted', venueOrderId: id, status: 'open' } };
      });
    } catch (err) {
      const outcome = placeFailure(err);
      return items.map((intent) => ({ intent, outcome }));
    }
  }

  /** A futures contract's leverage (the notes' edit_lever); throws the venue's refusal. */
  async setLeverage(contract: string, level: number): Promise<void> {
    await this.executor.call('futures.editLever', { contractName: contract, nowLevel: level });
  }

  async cancel(batch: Batch<CancelIntent>): Promise<CancelResult[]> {
    const known = batch.items.filter((i) => i.venueOrderId !== undefined);
    const results: CancelResult[] = batch.items
      .filter((i) => i.venueOrderId === undefined)
      .map((intent) => ({
        intent,
        outcome: { kind: 'not_sent', error: new UnknownOrderError({ endpoint: 'cancel' }, `venue id of ${intent.clientOrderId} not known yet; cancel after its acknowledgement`) },
      }));
    if (known.length === 0) return results;
    try {
      if (known.length === 1 || batch.market === 'futures') {
        for (const i of known) {
          try {
            if (batch.market === 'futures') await this.executor.call('futures.cancel', { contractName: i.symbol, orderId: i.venueOrderId! });
            else await this.executor.call('spot.cancel', { symbol: i.symbol, orderId: i.venueOrderId! });
            results.push({ intent: i, outcome: { kind: 'accepted' } });
          } catch (err) {
            results.push({ intent: i, outcome: cancelFailure(err) });
          }
        }
        return results;
      }
      const res = await this.executor.call('spot.batchCancel', { symbol: batch.symbol, orderIds: known.map((i) => i.venueOrderId!) });
      const ok = new Set<string>(res.success);
      const failed = new Set<string>(res.failed);
      for (const i of known) {
        // `failed` means not found or already final. An id in neither list was not dealt with:
        // it may still be open, so it is not taken as gone (the reconciler settles it).
        const outcome: CancelOutcome = ok.has(i.venueOrderId!)
          ? { kind: 'accepted' }
          : failed.has(i.venueOrderId!)
            ? { kind: 'gone' }
            : { kind: 'unknown', error: new TemporaryError({ endpoint: 'spot.batchCancel' }, `the answer lists order ${i.venueOrderId} neither as cancelled nor as failed`, true) };
        results.push({ intent: i, outcome });
      }
      return results;
    } catch (err) {
      const outcome = cancelFailure(err);
      return [...results, ...known.map((intent) => ({ intent, outcome }))];
    }
  }
}

/** A single order's answer: an order that filled at once (a marketable one) comes with what it executed. */
function accepted(ack: OrderAck): PlaceOutcome {
  return { kind: 'accepted', venueOrderId: ack.orderId, status: ack.status, executedQty: ack.executedQty !== undefined && dec.isPositive(ack.executedQty) ? ack.executedQty : undefined };
}

function placeFailure(err: unknown): PlaceOutcome {
  const error = asSluiceError(err);
  if (isOutcomeUnknown(err)) return { kind: 'unknown', error };
  if (err instanceof OrderRejectedError) return { kind: 'rejected', error };
  if (
    err instanceof BannedError ||
    err instanceof RateLimitedError ||
    err instanceof AuthError ||
    err instanceof ClockSkewError ||
    (err instanceof TemporaryError && !err.outcomeUnknown)
  ) {
    return { kind: 'not_sent', error };
  }
  // Anything else (a bug, an unexpected throw) may have happened after sending: assume the worst.
  return { kind: 'unknown', error };
}

function cancelFailure(err: unknown): CancelOutcome {
  const error = asSluiceError(err);
  if (err instanceof UnknownOrderError) return { kind: 'gone', error };
  // Already final (-1145) or not found (-1112, as some venues word it): nothing left to cancel.
  const code = err instanceof OrderRejectedError ? err.venue.venueCode : undefined;
  if (code === VenueCode.ORDER_NOT_SUPPORT_CANCELLATION || code === VenueCode.NO_DEPTH) return { kind: 'gone', error };
  const placed = placeFailure(err);
  return placed.kind === 'accepted' ? { kind: 'unknown', error } : placed;
}

function asSluiceError(err: unknown): SluiceError {
  if (err instanceof Error && 'code' in err && typeof (err as SluiceError).code === 'string') return err as SluiceError;
  return new TemporaryError({ endpoint: 'gateway' }, errorText(err), true, { cause: err });
}
