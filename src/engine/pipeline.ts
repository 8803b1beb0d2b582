// The order pipeline: accepted intents wait in one queue until the limiter has room, leave as
// batches the dispatcher plans, and their answers become order states in the journal. Intents
// that waited too long are dropped, not sent stale; cancels of orders without a venue id yet
// wait for it; a replacement that must follow the order it replaces waits for that one to end.
// During a ban orders are dropped and cancels wait for its end. A cancel that ends without
// effect (refused, not confirmed, dropped unsent) is reported, so it may be asked for again.
import { amend } from '../core/amend.js';
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { ClientOrderId, VenueOrderId } from '../core/ids.js';
import type { Log } from '../core/log.js';
import type { Journal, Pacer } from '../core/ports.js';
import { FINAL_STATUSES, type Batch, type CancelIntent, type Order, type OrderIntent, type PlaceIntent } from '../core/types.js';
import type { CancelResult, PlaceResult } from '../executor/index.js';
import { groupKey, mostPerRound, planRound } from '../batcher/index.js';
import type { BalanceHolds, RiskGate, RiskInputs } from '../risk/index.js';
import { journalCancelled, journalPlaced } from './answers.js';
import { withStatus } from './orders.js';
import { headOfGroups, newestMark, type Queued } from './queue.js';
import { INTENT_TO_WIRE_KEPT, type Gateway, type PipelineStats } from './pipeline-types.js';

export type { Gateway, PipelineStats };

/** Sends batches and says, per intent, what the venue did (executor/gateway.ts is the one that talks to it). */
export interface PipelineDeps {
  gateway: Gateway;
  pacer: Pacer;
  clock: Clock;
  log: Log;
  journal: Journal;
  risk: Pick<RiskGate, 'atSend' | 'killSwitch'>;
  holds: BalanceHolds;
  /** What risk judges against; `leaving` are orders about to be sent, not counted as resting. */
  riskInputs(leaving: ReadonlySet<string>): RiskInputs;
  /** An order changed: the engine tells its strategy (after the pipeline's own bookkeeping). */
  notify(order: Order): Promise<void>;
  /** A cancel ended without effect and its order is still open: whoever asked for it may ask again. */
  cancelFailed?(intent: CancelIntent, reason: string): void;
  /** An intent unsent after this long is dropped rather than sent stale. */
  maxQueueMs: number;
  /** The venue acknowledged an order, so it took it between `from` and `to` (our clock): the reconciler learns the venue's stamps from it. */
  placedBetween?(venueOrderId: VenueOrderId, from: number, to: number): void;
  /** How long a backlog waits before the dispatcher looks at capacity again. */
  dispatchRetryMs?: number;
}

export class OrderPipeline {
  readonly stats: PipelineStats = { sent: 0, cancelsSent: 0, accepted: 0, rejected: 0, unknown: 0, expired: 0, intentToWire: [] };
  private queue: Queued[] = [];
  /** Cancels asked for orders without a venue id yet (in flight, or whose answer was lost): sent once the id is known. */
  private readonly cancelWanted = new Set<string>();
  /** Orders with a cancel queued or awaiting its answer: one at a time (a second earns -1145). */
  private readonly cancelling = new Set<string>();
  /** Places that wait for the order they replace to end (a futures close: the venue holds its volume until then). */
  private readonly held = new Map<string, PlaceIntent[]>();
  private readonly inFlight = new Set<Promise<void>>();
  private dispatching = false;
  /** While open, a backlog left by one dispatch round starts the next. */
  open = false;

  constructor(private readonly deps: PipelineDeps) {}

  /** Accepted intents (places already journaled `pending`): they go out as capacity allows. */
  submit(intents: readonly OrderIntent[]): void {
    const at = this.deps.clock.now();
    const withdrawn: PlaceIntent[] = [];
    for (const intent of intents) {
      if (intent.kind === 'place') {
        if (intent.after !== undefined) this.hold(intent as PlaceIntent & { after: ClientOrderId });
        else this.queue.push(this.queued(intent, at));
        continue;
      }
      const target = this.deps.journal.order(intent.clientOrderId);
      // Already ended, or already being cancelled (a second cancel earns -1145): nothing to send.
      if (target && (FINAL_STATUSES.has(target.status) || target.status === 'pending_cancel')) continue;
      if (this.cancelling.has(intent.clientOrderId)) continue;
      const waiting = this.queue.find((q) => q.intent.kind === 'place' && q.intent.clientOrderId === intent.clientOrderId);
      const held = waiting ? undefined : this.unhold(intent.clientOrderId);
      if (waiting || held) {
        // Never sent: withdrawing it is the cancel.
        if (waiting) this.queue = this.queue.filter((q) => q !== waiting);
        withdrawn.push(held ?? (waiting!.intent as PlaceIntent));
        continue;
      }
      const venueOrderId = intent.venueOrderId ?? target?.venueOrderId;
      if (venueOrderId) {
        this.cancelling.add(intent.clientOrderId);
        this.queue.push(this.queued(amend(intent, { venueOrderId }), at));
      }
      else if (target) {
        if (this.cancelWanted.has(intent.clientOrderId)) continue;
        this.cancelWanted.add(intent.clientOrderId);
        this.deps.log.info({ clientOrderId: intent.clientOrderId, status: target.status }, 'cancel waits for the venue id of its order (in flight, or its answer was lost)');
      } else this.deps.log.warn({ clientOrderId: intent.clientOrderId }, 'cancel skipped: no such order');
    }
    if (withdrawn.length > 0) void this.drop(withdrawn, 'cancelled before it was sent');
    this.kick();
  }

  /**
   * An order changed (an answer, a fill, a reconcile): a cancel waiting for its venue id goes
   * out, and a replacement waiting for it to end is sent (or dropped, if it filled).
   */
  orderChanged(order: Order): void {
    const id = order.clientOrderId;
    const ended = FINAL_STATUSES.has(order.status);
    if (this.cancelWanted.has(id) && (ended || order.status === 'pending_cancel' || order.venueOrderId)) {
      this.cancelWanted.delete(id);
      if (!ended && order.status !== 'pending_cancel') {
        this.submit([{ kind: 'cancel', intentId: `${id}:cancel`, strategyId: order.strategyId, market: order.market, symbol: order.symbol, clientOrderId: order.clientOrderId, venueOrderId: order.venueOrderId }]);
      }
    }
    const held = this.held.get(id);
    if (held && ended) {
      this.held.delete(id);
      this.release(id, order.status, held);
    }
  }

  /** Drops what is queued (and held) unsent: their orders end `canceled` with `reason`. */
  async dropAll(reason: string, opts: { heldOnly?: boolean } = {}): Promise<void> {
    const held = [...this.held.values()].flat();
    this.held.clear();
    await this.drop(held, 'not sent: the daemon stopped before the order it replaces ended');
    if (opts.heldOnly) return;
    const dropped = this.queue;
    this.queue = [];
    await this.drop(
      dropped.map((q) => q.intent),
      reason,
    );
  }

  /** Waits until nothing is queued or in flight. */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight.size > 0 || this.dispatching) {
      if (this.inFlight.size > 0) await Promise.race(this.inFlight);
      else await this.deps.clock.sleep(this.deps.dispatchRetryMs ?? 25);
      this.kick();
    }
  }

  /** Waits until everything queued has been handed to the gateway (answers may still be out). */
  async handedOff(): Promise<void> {
    while (this.queue.length > 0 || this.dispatching) {
      await this.deps.clock.sleep(this.deps.dispatchRetryMs ?? 25);
      this.kick();
    }
  }

  /** A place that waits for the order it replaces to end; sent (or dropped, if that filled) when it has. */
  private hold(intent: PlaceIntent & { after: ClientOrderId }): void {
    const target = this.deps.journal.order(intent.after);
    if (!target || FINAL_STATUSES.has(target.status)) {
      this.release(intent.after, target?.status, [intent]);
      return;
    }
    this.held.set(intent.after, [...(this.held.get(intent.after) ?? []), intent]);
  }

  /** Takes the held place `clientOrderId` out of its wait, if it is one. */
  private unhold(clientOrderId: string): PlaceIntent | undefined {
    for (const [after, list] of this.held) {
      const place = list.find((i) => i.clientOrderId === clientOrderId);
      if (!place) continue;
      const rest = list.filter((i) => i !== place);
      if (rest.length > 0) this.held.set(after, rest);
      else this.held.delete(after);
      return place;
    }
    return undefined;
  }

  private release(after: string, status: Order['status'] | undefined, intents: PlaceIntent[]): void {
    if (status === 'filled') void this.drop(intents, `not sent: the order it replaces (${after}) filled`);
    else this.submit(intents.map((i) => amend(i, { after: undefined })));
  }

  /** Intents that will never be sent: their orders are final (one commit) and their strategies hear so. */
  private async drop(intents: readonly OrderIntent[], reason: string | ((intent: PlaceIntent) => string)): Promise<void> {
    if (intents.length === 0) return;
    const now = this.deps.clock.now();
    const cancels: CancelIntent[] = [];
    const dropped = this.deps.journal.transaction(() =>
      intents.flatMap((intent) => {
        if (intent.kind !== 'place') {
          cancels.push(intent);
          return [];
        }
        this.deps.holds.release(intent.clientOrderId);
        const order = this.deps.journal.order(intent.clientOrderId);
        if (!order || FINAL_STATUSES.has(order.status)) return [];
        const next = withStatus(order, 'canceled', now);
        this.deps.journal.updateOrder(next, typeof reason === 'string' ? reason : reason(intent));
        return [next];
      }),
    );
    for (const order of dropped) await this.deps.notify(order);
    await this.cancelsFailed(cancels, typeof reason === 'string' ? reason : 'not sent');
  }

  /**
   * Cancels that ended without effect: their orders may still be open, so another cancel may go
   * (and whoever asked hears it); a replacement held for one of them to end is dropped, since
   * the order it replaces stays (a replace asked again would hold a second one).
   */
  private async cancelsFailed(cancels: readonly CancelIntent[], reason: string): Promise<void> {
    for (const intent of cancels) {
      this.cancelling.delete(intent.clientOrderId);
      const order = this.deps.journal.order(intent.clientOrderId);
      if (!order || FINAL_STATUSES.has(order.status) || order.status === 'pending_cancel') continue;
      const held = this.held.get(intent.clientOrderId);
      this.held.delete(intent.clientOrderId);
      if (held) await this.drop(held, `not sent: the cancel of the order it replaces (${intent.clientOrderId}) failed: ${reason}`);
      this.deps.cancelFailed?.(intent, reason);
    }
  }

  /** Drops intents that waited longer than maxQueueMs: the venue's limits are full, and a stale order is worse than none. */
  private async expire(): Promise<void> {
    const { clock, maxQueueMs, log } = this.deps;
    const now = clock.now();
    // Runs every dispatch round: look before building anything.
    if (!this.queue.some((q) => now - q.at > maxQueueMs)) return;
    const expired = this.queue.filter((q) => now - q.at > maxQueueMs);
    this.queue = this.queue.filter((q) => now - q.at <= maxQueueMs);
    this.stats.expired += expired.length;
    log.warn({ dropped: expired.length, maxQueueMs }, 'intents not sent in time were dropped (engine.maxQueueMs): the venue limits are full');
    await this.drop(
      expired.map((q) => q.intent),
      `not sent within ${maxQueueMs} ms (engine.maxQueueMs)`,
    );
  }

  // ---------- dispatch ----------

  private kick(): void {
    if (this.dispatching || this.queue.length === 0) return;
    this.dispatching = true;
    void this.dispatchLoop().finally(() => {
      this.dispatching = false;
      if (this.queue.length > 0 && this.open) this.kick();
    });
  }

  /** A queue entry; a place carries the journal's mark, so it leaves only once its intent is on disk. */
  private queued(intent: OrderIntent, at: number): Queued {
    return { intent, at, group: groupKey(intent), mark: intent.kind === 'place' ? this.deps.journal.mark() : 0 };
  }

  /**
   * Waits until the journal writes of everything queued survive power loss (one fsync off the
   * event loop covers them all); returns the mark reached. Entries queued meanwhile wait for
   * the next round. A disk that refuses is logged; nothing leaves until it syncs again, and
   * what waits expires after maxQueueMs.
   */
  private async durable(): Promise<number | undefined> {
    const newest = newestMark(this.queue);
    try {
      await this.deps.journal.durable(newest);
      return newest;
    } catch (err) {
      this.deps.log.error({ err: errorText(err) }, 'the journal could not be synced to disk: orders are not sent');
      return undefined;
    }
  }

  private async dispatchLoop(): Promise<void> {
    const { pacer, clock } = this.deps;
    while (this.queue.length > 0) {
      await this.expire();
      const durable = await this.durable();
      if (durable === undefined) {
        await this.capacity();
        continue;
      }
      const usage = pacer.usage();
      const free = (e: string) => {
        const u = usage[e];
        return u ? Math.max(0, u.limit - u.inWindow - u.queued) : 0;
      };
      // A ban refuses every request before it leaves: a cancel waits for its end (or maxQueueMs),
      // so one failed and asked again at once is not refused again at once, and again.
      const paused = pacer.pausedUntil() > clock.now();
      const { head, tail } = headOfGroups(this.queue, (q) => (paused && q.intent.kind === 'cancel' ? 0 : mostPerRound(q.intent, free)), durable);
      const planned = new Map(head.map((q) => [q.intent.intentId, q]));
      const arrivedAt = new Map(head.map((q) => [q.intent.intentId, q.at]));
      let send: Batch[] = [];
      if (head.length > 0) {
        const plan = planRound(head.map((q) => q.intent), free);
        send = plan.send;
        this.queue = [...plan.wait.map((intent) => planned.get(intent.intentId) ?? this.queued(intent, clock.now())), ...tail];
      }
      for (const batch of send) this.track(this.send(batch, arrivedAt));
      if (send.length === 0) {
        if (paused) {
          // Orders are not sent stale after it; cancels only lower risk.
          const dropped = this.queue.filter((q) => q.intent.kind === 'place');
          this.queue = this.queue.filter((q) => q.intent.kind !== 'place');
          await this.drop(
            dropped.map((q) => q.intent),
            'not sent: trading is paused by a venue ban',
          );
          if (this.queue.length === 0) return;
        }
        // Queued while the journal synced: their own sync comes next, not a slot.
        if (!this.queue.some((q) => q.mark > durable)) await this.capacity();
      }
    }
  }

  /** Waits until the pacer gives a slot back, at most dispatchRetryMs. */
  private capacity(): Promise<void> {
    return Promise.race([this.deps.pacer.released(), this.deps.clock.sleep(this.deps.dispatchRetryMs ?? 25)]);
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async send(planned: Batch, arrivedAt: Map<string, number>): Promise<void> {
    const { risk, log, gateway, clock } = this.deps;
    let batch = planned;
    try {
      // The kill switch as it is now, not as it was when the intents were accepted (judged only
      // when it is on: the inputs cost a look at every open order).
      if (batch.kind === 'place' && risk.killSwitch() !== 'off') {
        const places = batch.items as readonly PlaceIntent[];
        const { allowed, refused } = risk.atSend(places, this.deps.riskInputs(new Set(places.map((i) => i.clientOrderId))));
        if (refused.length > 0) {
          const why = new Map(refused.map((r) => [r.intent, r.reason]));
          log.warn({ dropped: refused.length, killSwitch: risk.killSwitch() }, 'queued orders not sent: the kill switch changed since they were accepted');
          await this.drop(
            refused.map((r) => r.intent as PlaceIntent),
            (i) => `not sent: ${why.get(i) ?? 'kill switch'}`,
          );
        }
        if (allowed.length === 0) return;
        batch = { ...batch, items: allowed };
      }
      if (batch.kind === 'place') this.stats.sent += batch.items.length;
      else this.stats.cancelsSent += batch.items.length;
      const sentAt = clock.now();
      const wire = this.stats.intentToWire;
      for (const i of batch.items) wire.push(sentAt - (arrivedAt.get(i.intentId) ?? sentAt));
      if (wire.length > 2 * INTENT_TO_WIRE_KEPT) wire.splice(0, wire.length - INTENT_TO_WIRE_KEPT);
      if (batch.kind === 'place') await this.placed(await gateway.place(batch as Batch<PlaceIntent>), sentAt);
      else await this.cancelled(await gateway.cancel(batch as Batch<CancelIntent>));
    } catch (err) {
      log.error({ err }, 'dispatch failed');
      if (batch.kind === 'cancel') await this.cancelsFailed(batch.items as readonly CancelIntent[], `not confirmed: ${errorText(err)}`);
    } finally {
      // Answered (or failed): whatever the order is now decides whether another cancel may go.
      if (batch.kind === 'cancel') for (const i of batch.items) this.cancelling.delete(i.clientOrderId);
    }
  }

  /** A batch's answers: journaled in one commit, then acted on and reported one by one. */
  private async placed(results: readonly PlaceResult[], sentAt: number): Promise<void> {
    const now = this.deps.clock.now();
    for (const { outcome } of results) if (outcome.kind === 'accepted') this.deps.placedBetween?.(outcome.venueOrderId, sentAt, now);
    const answered = { journal: this.deps.journal, holds: this.deps.holds, stats: this.stats };
    const orders = this.deps.journal.transaction(() => results.map((r) => journalPlaced(answered, r, now)));
    for (const [k, { intent, outcome }] of results.entries()) {
      if (outcome.kind === 'unknown') {
        this.deps.log.warn({ clientOrderId: intent.clientOrderId, reason: outcome.error.message }, 'order outcome unknown: the reconciler will settle it');
      } else if (outcome.kind === 'rejected' || outcome.kind === 'not_sent') {
        this.deps.log.warn({ clientOrderId: intent.clientOrderId, outcome: outcome.kind, reason: outcome.error.message }, 'order not placed');
      }
      await this.deps.notify(orders[k]!);
    }
  }

  /** A batch of cancels' answers: journaled in one commit, then reported (answers.ts). */
  private async cancelled(results: readonly CancelResult[]): Promise<void> {
    const { changed, failed } = this.deps.journal.transaction(() => journalCancelled(this.deps, results, this.deps.clock.now()));
    for (const order of changed) await this.deps.notify(order);
    for (const { intent, reason } of failed) await this.cancelsFailed([intent], reason);
  }
}
