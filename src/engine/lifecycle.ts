// When a strategy starts, and what it keeps: its klines warm-up holds the start, then its saved
// state, onStart, the market data polled so far, the events that came before (held in its inbox
// until then) and its ticks; it stops in its inbox too; its onSave state goes to the journal
// every minute, after each fill it hears and at stop. And the leverage strategies ask for, set before any order.
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { Journal } from '../core/ports.js';
import type { HostOutput, LoadedStrategy, StrategyHost } from '../strategy/index.js';
import { Inbox, MAX_WAITING_EVENTS, type FeedEvent } from './inbox.js';
import type { Loops } from './loops.js';
import { feedKey, type MarketDataPoller } from './market-data.js';
import { feedsOf, warmUpLacking } from './strategies.js';

const stateKey = (strategyId: string) => `strategy:${strategyId}:state`;
/** How often strategies' onSave state goes to the journal (and at stop). */
const SAVE_EVERY_MS = 60_000;

export interface LifecycleParts {
  journal: Journal;
  log: Log;
  marketData: MarketDataPoller;
  loops: Loops;
  hosts: readonly StrategyHost[];
  /** The engine's handling of a strategy's output (risk, journal, pipeline). */
  handle(host: StrategyHost, out: HostOutput): Promise<void>;
  reportOnce(key: string, report: () => void): void;
}

export class StrategyLifecycle {
  /** Strategies whose start has begun (onLoad, onStart, then ticks); the others wait for their klines warm-up. */
  readonly started = new Set<StrategyHost>();
  private readonly inboxes: ReadonlyMap<StrategyHost, Inbox>;

  constructor(private readonly parts: LifecycleParts) {
    this.inboxes = new Map(
      parts.hosts.map((h) => [
        h,
        new Inbox(h.id, parts.log, (waiting, started) => {
          h.fail(
            started
              ? `${waiting} events waited for it (at most ${MAX_WAITING_EVENTS}): it handles them slower than they come`
              : `${waiting} events came for it before it started (at most ${MAX_WAITING_EVENTS} wait for onLoad and onStart): it would start on an incomplete picture`,
          );
          void parts.handle(h, { intents: [], invalid: [] });
        }),
      ]),
    );
  }

  /** Hands `run` (an event for `h` that is no market data: an order update, a fill) to its inbox. */
  post(h: StrategyHost, run: () => Promise<void>): void {
    this.inboxes.get(h)!.post(run);
  }

  /** Hands a market-data event to `h`'s inbox, where it joins a waiting one of its feed. */
  postFeed(h: StrategyHost, feed: FeedEvent): void {
    this.inboxes.get(h)!.postFeed(feed);
  }

  /** Resolves once no started strategy has an event waiting or running (what waits for a start does not count). */
  async idle(): Promise<void> {
    await Promise.all([...this.inboxes.values()].map((i) => i.idle()));
  }

  /**
   * Starts the strategies whose warm-up is done, each on its own (one whose onStart hangs holds
   * up no other); resolves once those have started (or were disabled).
   */
  startWarm(): Promise<void> {
    const starting: Promise<void>[] = [];
    for (const h of this.parts.hosts) {
      if (this.started.has(h)) continue;
      const lacking = warmUpLacking(h, this.parts.marketData);
      if (lacking.length > 0) {
        this.parts.reportOnce(`warm:${h.id}`, () => this.parts.log.info({ strategy: h.id, lacking }, 'strategy waits for its klines warm-up before it starts'));
        continue;
      }
      starting.push(this.begin(h, true));
    }
    return Promise.all(starting).then(() => undefined);
  }

  /**
   * Its saved state and onStart; then its inbox opens: the market data polled so far, then the
   * events that came for it before (a fill the start-up reconcile found), in order; then (when
   * `tick`) a tick every everyMs, the first at once. No event reaches it before onLoad and onStart.
   */
  async begin(h: StrategyHost, tick: boolean): Promise<void> {
    const { journal, marketData, handle, loops } = this.parts;
    this.started.add(h);
    try {
      const state = journal.cursor(stateKey(h.id));
      if (state !== undefined) await handle(h, await h.load(JSON.parse(state)));
      await handle(h, await h.start());
    } finally {
      // Opened even when the start failed, so a stop never waits on a closed inbox.
      const latest = feedsOf(h).flatMap((feed): FeedEvent[] => {
        const event = marketData.latest(feed);
        return event ? [{ key: feedKey(feed), event, deliver: async (e) => handle(h, await h.marketData(e)) }] : [];
      });
      await this.inboxes.get(h)!.open(latest);
    }
    if (tick) loops.every(h.setup.everyMs, async () => handle(h, await h.tick()));
  }

  /**
   * Every strategy's onStop at once, each after the events handed to it before; what they ask
   * for is handled. One that never started (its klines warm-up) hears none of what waited for it.
   */
  async stopAll(): Promise<void> {
    const { hosts, handle, log } = this.parts;
    await Promise.all(
      hosts.map(async (h) => {
        const inbox = this.inboxes.get(h)!;
        if (this.started.has(h)) return inbox.run(async () => handle(h, await h.stop()));
        const dropped = inbox.discard();
        if (dropped > 0) log.info({ strategy: h.id, dropped }, 'stopping a strategy that never started: the events that waited for its start are dropped');
        await handle(h, await h.stop());
      }),
    );
  }

  saveEvery(): void {
    this.parts.loops.every(SAVE_EVERY_MS, async () => this.saveStates(), true);
  }

  /** Each strategy's onSave state, to the journal. */
  saveStates(): void {
    for (const h of this.parts.hosts) this.saveState(h);
  }

  /**
   * A strategy's onSave state, to the journal: every minute, at stop, and after each fill it
   * hears, so a state that counts fills (strategies/README.md) is not a minute behind them after
   * a crash. A strategy whose onSave failed is disabled and reported.
   */
  saveState(h: StrategyHost): void {
    const text = h.save();
    if (text !== undefined) this.parts.journal.setCursor(stateKey(h.id), text);
    if (!h.enabled) void this.parts.handle(h, { intents: [], invalid: [] });
  }
}

/**
 * The leverage strategies ask for, per contract, before any order: a refusal stops the start
 * (trading at another leverage than configured is a risk nobody chose), unless an earlier run
 * set this very level (journaled): the venue may refuse even an unchanged level while orders
 * are open, as after a kill -9 with orders resting, and the level it keeps is the one asked for.
 */
export async function applyLeverage(parts: { strategies: readonly LoadedStrategy[]; log: Log; journal: Journal; setLeverage?: (contract: string, level: number) => Promise<void> }): Promise<void> {
  const { journal, log, setLeverage } = parts;
  if (!setLeverage) return;
  const wanted = new Map<string, number>();
  for (const s of parts.strategies) if (s.entry.market === 'futures' && s.entry.leverage !== undefined) for (const symbol of s.entry.symbols) wanted.set(symbol, s.entry.leverage);
  for (const [contract, level] of wanted) {
    const key = `leverage:${contract}`;
    try {
      await setLeverage(contract, level);
    } catch (err) {
      if (journal.cursor(key) === String(level)) {
        log.warn({ contract, leverage: level, err: errorText(err) }, 'the venue refused to set the leverage again; an earlier run set this level, so trading goes on at it');
        continue;
      }
      throw new Error(`could not set the leverage of ${contract} to ${level}x: ${errorText(err)}; fix strategies[].leverage or the account (the venue refuses a change while orders are open)`, { cause: err });
    }
    journal.setCursor(key, String(level));
    log.info({ contract, leverage: level }, 'leverage set');
  }
}
