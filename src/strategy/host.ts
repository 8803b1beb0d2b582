// Runs one plugin safely: every call into plugin code is caught, and a plugin that throws, or
// whose handler misses its deadline, is disabled (and reported, with where it threw or which
// handler hung) while the others run on. Plugins only queue intents; the host hands them to the
// engine after each call.
import { CUT, LATE } from '../core/deadlines.js';
import { StrategyError, errorText } from '../core/errors.js';
import { closest } from '../core/spelling.js';
import { FINAL_STATUSES, type Fill, type Order } from '../core/types.js';
import type { MarketEvent, MarketSubscription, OrderEvent, StrategyDefinition, StrategyHandlers, TimerId } from './api.js';
import { Cancelling } from './cancelling.js';
import { buildContext } from './context.js';
import type { HostDeps, HostInternals, HostOutput, StrategySetup } from './host-types.js';
import { IndicatorFeed } from './indicator-feed.js';
import { OrderEvents } from './order-events.js';

export type { EngineView, HandlerDeadline, HostDeps, HostOutput, InvalidRequest, StrategySetup } from './host-types.js';

export class StrategyHost {
  private handlers: StrategyHandlers = {};
  private failure: StrategyError | undefined;
  private failedWhy: string | undefined;
  private readonly internals: HostInternals;
  private readonly events = new OrderEvents();
  private readonly timers = new Map<TimerId, () => void>();
  private timerSeq = 0;
  private stopped = false;
  readonly subscriptions: MarketSubscription[];
  readonly apiVersion: 1 | 2;

  constructor(
    readonly setup: StrategySetup,
    definition: StrategyDefinition,
    params: unknown,
    private readonly deps: HostDeps,
  ) {
    this.apiVersion = definition.apiVersion;
    // subscribe() runs after the internals exist: a throw there disables the plugin through them.
    const subscriptions: MarketSubscription[] = [];
    this.internals = {
      outbox: [],
      invalid: [],
      indicators: new IndicatorFeed(),
      canceling: new Cancelling(),
      subscriptions,
      setTimer: (delayMs, fn) => this.setTimer(delayMs, fn),
      clearTimer: (id) => this.clearTimer(id),
    };
    subscriptions.push(...(this.guardSync('subscribe', (): readonly MarketSubscription[] => definition.subscribe?.(params) ?? [{ kind: 'ticker' }]) ?? []));
    this.subscriptions = subscriptions;
    this.guardSync('create', () => {
      this.handlers = definition.create(buildContext(setup, params, deps, this.internals));
    });
    this.strayHandler = unknownHandler(this.handlers);
    if (this.strayHandler) this.fail(this.strayHandler);
  }

  /** A handler name create() returned that sluice never calls (`onTik`), said with the likely one; the strategy is disabled for it. */
  readonly strayHandler: string | undefined;

  get id(): string {
    return this.setup.id;
  }

  get enabled(): boolean {
    return this.failure === undefined;
  }

  /** Why the strategy was disabled, if it was. */
  get disabledBy(): StrategyError | undefined {
    return this.failure;
  }

  /** The same, said on its own: the handler and what it threw, the deadline it missed. */
  get disabledReason(): string | undefined {
    return this.failedWhy;
  }

  /** Whether it listens for typed order events (their reasons cost the engine a look at the journal). */
  get wantsOrderEvents(): boolean {
    return this.handlers.onOrderEvent !== undefined;
  }

  start = () => this.invoke('onStart', (h) => h.onStart?.());
  tick = () => this.invoke('onTick', (h) => h.onTick?.());
  fill = (fill: Fill, order: Order) => this.invoke('onFill', (h) => h.onFill?.(fill, order));
  load = (state: unknown) => this.invoke('onLoad', (h) => h.onLoad?.(state));

  marketData = (event: MarketEvent) =>
    this.invoke('onMarketData', (h) => {
      // Indicators first, so a handler reading them sees this candle.
      if (event.kind === 'klines') this.internals.indicators.feed(event.symbol, event.interval, event.klines);
      return h.onMarketData?.(event);
    });

  orderUpdate = (order: Order, reason?: string) => {
    // Its cancel has an outcome the strategy sees: taken (pending_cancel), or the order ended.
    if (order.status === 'pending_cancel' || FINAL_STATUSES.has(order.status)) this.internals.canceling.forget(order.clientOrderId);
    return this.invoke('onOrderUpdate', async (h) => {
      await h.onOrderUpdate?.(order);
      const event = this.events.next(order, reason);
      if (event) await h.onOrderEvent?.(event);
    });
  };

  /**
   * A cancel ended without effect (refused or not confirmed by the venue, or dropped unsent): its
   * order may still be open. The strategy may ask again, and hears it as `cancel_failed` when it
   * had asked for this cancel (not for one the engine made, such as the stop's).
   */
  cancelFailed = (order: Order, reason: string) => {
    const asked = this.internals.canceling.forget(order.clientOrderId);
    return this.invoke('onOrderEvent', async (h) => {
      if (asked) await h.onOrderEvent?.({ kind: 'cancel_failed', order, reason });
    });
  };

  /** sluice is closing a position of this strategy (its `exits`): heard as an `exit` order event. */
  exited = (event: Extract<OrderEvent, { kind: 'exit' }>) => this.invoke('onOrderEvent', async (h) => h.onOrderEvent?.(event));

  /**
   * Stops its timers, then onStop, whose requests are the last it makes: it still hears how its
   * orders end, but what it asks for then is refused. The stop settles its orders as
   * engine.shutdown says; a strategy that re-placed what the stop cancelled would leave orders
   * resting after the daemon exited.
   */
  stop = async () => {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    const out = await this.invoke('onStop', (h) => h.onStop?.());
    this.stopped = true;
    return out;
  };

  /** The state to keep (onSave's JSON), or undefined when it keeps none or onSave failed (the strategy is then disabled). */
  save(): string | undefined {
    if (!this.enabled || !this.handlers.onSave) return undefined;
    return this.guardSync('onSave', () => {
      const text = JSON.stringify(this.handlers.onSave!());
      if (text !== undefined && text.length > MAX_STATE_CHARS) throw new RangeError(`onSave returned ${text.length} characters of JSON; keep it under ${MAX_STATE_CHARS}`);
      return text;
    });
  }

  private setTimer(delayMs: number, fn: () => void | Promise<void>): TimerId {
    if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`setTimer needs a delay of 0 ms or more, got ${delayMs}`);
    const id = ++this.timerSeq as TimerId;
    const cancel = this.deps.setTimer(delayMs, () => {
      this.timers.delete(id);
      return this.invoke('timer', () => fn());
    });
    this.timers.set(id, cancel);
    return id;
  }

  private clearTimer(id: TimerId): void {
    this.timers.get(id)?.();
    this.timers.delete(id);
  }

  /** Disables the strategy for `why` (a handler that threw or hung, events it could not keep up with); what it queued is dropped. */
  fail(why: string, cause?: unknown): void {
    // The first reason stands: a handler abandoned after the strategy was disabled is no news.
    if (this.failure) return;
    this.failedWhy = why;
    this.failure = new StrategyError(this.id, `${why}; the strategy is disabled, the others run on`, cause === undefined ? undefined : { cause });
    // Intents queued by a call that then failed are dropped: the plugin's state is suspect.
    this.internals.outbox = [];
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  private async invoke(name: string, call: (h: StrategyHandlers) => void | Promise<void>): Promise<HostOutput> {
    if (this.enabled) {
      try {
        const work = (async () => {
          await call(this.handlers);
          await this.reportInvalid();
        })();
        const { deadline } = this.deps;
        const outcome = deadline ? await deadline.within(work) : await work;
        if (outcome === LATE) this.fail(`${name} did not finish within ${deadline!.ms} ms (${deadline!.setting}); nothing waits for it any more`);
        if (outcome === CUT) this.fail(`${name} was abandoned unfinished: a second signal hurried the stop`);
      } catch (err) {
        this.disable(name, err);
      }
    }
    return this.drain(name);
  }

  /**
   * Requests that could not be formed, as `rejected` events (API 2). Those the event handler
   * itself then makes are only logged (by the engine), so a handler that answers a rejection
   * with another bad request cannot loop.
   */
  private async reportInvalid(): Promise<void> {
    const { onOrderEvent } = this.handlers;
    if (!onOrderEvent || this.internals.invalid.length === 0) return;
    const invalid = [...this.internals.invalid];
    for (const r of invalid) await onOrderEvent({ kind: 'rejected', clientOrderId: r.clientOrderId, reason: r.reason });
  }

  private guardSync<T>(name: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      this.disable(name, err);
      return undefined;
    }
  }

  private disable(name: string, err: unknown): void {
    const where = thrownAt(err);
    this.fail(`${name} threw: ${errorText(err)}${where ? ` (at ${where})` : ''}`, err);
  }

  private drain(name: string): HostOutput {
    // A handler abandoned at its deadline may still run on and queue requests: none is sent.
    const out = { intents: this.enabled ? this.internals.outbox : [], invalid: this.internals.invalid };
    this.internals.outbox = [];
    this.internals.invalid = [];
    if (this.stopped && out.intents.length > 0) {
      const reason = `not sent: the strategy has stopped (${name} after onStop); the stop settles its orders as engine.shutdown says`;
      out.invalid = [...out.invalid, ...out.intents.map((i) => ({ strategyId: this.id, clientOrderId: i.clientOrderId, reason }))];
      out.intents = [];
    }
    return out;
  }
}

const HANDLERS: readonly (keyof StrategyHandlers)[] = ['onStart', 'onTick', 'onMarketData', 'onFill', 'onOrderUpdate', 'onOrderEvent', 'onStop', 'onSave', 'onLoad'];

/**
 * A handler name sluice never calls (`onTik`, another framework's `onBar`): the plugin would run
 * without it and say nothing, a strategy that never trades. Named, with the likely one.
 */
function unknownHandler(handlers: StrategyHandlers | undefined): string | undefined {
  const stray = Object.keys(handlers ?? {}).find((k) => /^on[A-Z]/.test(k) && !(HANDLERS as readonly string[]).includes(k));
  if (stray === undefined) return undefined;
  const guess = closest(stray, HANDLERS);
  return `create returned ${stray}, a handler sluice never calls${guess ? ` (did you mean ${guess}?)` : ''}; the handlers are ${HANDLERS.join(', ')}`;
}

/** onSave's JSON is kept in the journal: bounded, so a runaway state cannot bloat it. */
const MAX_STATE_CHARS = 1_000_000;

/** The first frame of a stack that is not in node's internals: file:line:column of the throw. */
export function thrownAt(err: unknown): string | undefined {
  const stack = err instanceof Error ? err.stack : undefined;
  for (const line of stack?.split('\n').slice(1) ?? []) {
    const m = /\(?((?:file:\/\/)?\/[^()]+:\d+:\d+)\)?\s*$/.exec(line.trim());
    if (m && !m[1]!.includes('node:')) return m[1]!.replace(/^file:\/\//, '');
  }
  return undefined;
}
