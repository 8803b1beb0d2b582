// Protective exits in action: after each market-data poll, each strategy with `exits` has each of
// its symbols judged (exits.ts) from its own position and the last price, when that price is fresh
// (exit-blind.ts: read within a few poll intervals; a stale one judges nothing). An exit cancels the
// strategy's open orders in the symbol, then, once none is open, sends one MARKET order that
// closes the position, as the strategy's own order through risk, the journal and the pipeline.
// What each line needs to survive a restart (the trailing best, an exit under way, the cooldown)
// is kept in the journal, as strategy state is. While an exit is under way or cooling down, the
// strategy's new orders in that symbol are refused (refusal()).
import { closingOrder } from '../core/closing.js';
import { dec, type Decimal } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import { clientOrderId, type ClientOrderId } from '../core/ids.js';
import type { Log } from '../core/log.js';
import type { SymbolInfo } from '../core/market.js';
import type { Journal } from '../core/ports.js';
import { FINAL_STATUSES, type AlertKind, type ExitReason, type ExitSettings, type Market, type Order, type OrderIntent, type PlaceIntent, type StrategyPosition } from '../core/types.js';
import type { SequenceAllocator } from '../store/sequences.js';
import type { EngineView, HostOutput, LoadedStrategy, StrategyHost } from '../strategy/index.js';
import { BlindPrices } from './exit-blind.js';
import { hasExits, judgeExit, type Best } from './exits.js';

export interface ExitStrategy {
  id: string;
  market: Market;
  symbols: readonly string[];
  exits?: ExitSettings;
}

/** What the strategy is told of an exit (its onOrderEvent's `exit`, and the log line and alert). */
export interface ExitNotice {
  symbol: string;
  reason: ExitReason;
  entry: Decimal;
  trigger: Decimal;
  last: Decimal;
  order: Order;
}

export interface ExitMonitorDeps {
  clock: Clock;
  log: Log;
  journal: Journal;
  strategies: readonly ExitStrategy[];
  /** The strategy's own position, unbooked executions included (ctx.ownPosition()). */
  position(strategyId: string, market: Market, symbol: string): StrategyPosition;
  lastPrice(market: Market, symbol: string): Decimal | undefined;
  /** When that price was read (engine clock); undefined when none was. */
  lastPriceAt(market: Market, symbol: string): number | undefined;
  /** engine.marketDataEveryMs: how old a price may be to be judged (exit-blind.ts). */
  pollEveryMs: number;
  instrument(market: Market, symbol: string): SymbolInfo | undefined;
  /** The strategy judged now: enabled, and the engine trading. */
  active(strategyId: string): boolean;
  /** The next client order id of the strategy (its journaled sequence). */
  nextId(strategyId: string): ClientOrderId;
  /** Hands the strategy's intents to risk, the journal and the pipeline, as its own. */
  submit(strategyId: string, intents: OrderIntent[]): Promise<void>;
  /** When the latest spot account read was asked (risk's balances are as of then). */
  balancesAskedAt(): number;
  /** risk.maxNotionalPerOrder: a close worth more goes in parts, each under it. */
  maxNotionalPerOrder(): Decimal;
  /** Tells the strategy (through its inbox). */
  tell(strategyId: string, notice: ExitNotice): void;
  alert?: ((kind: AlertKind, message: string, details: Record<string, unknown>) => void) | undefined;
}

/** An exit under way: cancelling the strategy's orders, or its closing order sent. */
interface Under {
  reason: ExitReason;
  entry: Decimal;
  trigger: Decimal;
  last: Decimal;
  /** The closing order, once sent. */
  order?: ClientOrderId;
  /** The strategy's orders it cancelled (spot: the close waits for an account read after they ended). */
  cancelled?: ClientOrderId[];
  /** Closing orders that ended unfilled so far; the next waits until `retryAt`. */
  failed: number;
  /** Closing orders sent so far (a close above risk.maxNotionalPerOrder goes in parts). */
  sent?: number;
  retryAt?: number;
}

/** One strategy and symbol, as kept in the journal. */
interface Line {
  best?: Best;
  exit?: Under;
  cooldownUntil?: number;
}

/** A refused or unfilled closing order is sent again after 1 s, 2 s, 4 s ..., at most this far apart. */
const MAX_RETRY_MS = 60_000;
/** After this many closing orders ended unfilled, an alert says the exit is not closing the position. */
const ALERT_AFTER_FAILURES = 3;

export class ExitMonitor {
  /** Exits made, per reason (a backtest's report). */
  readonly counts: Partial<Record<ExitReason, number>> = {};
  private readonly lines = new Map<string, Line>();
  private readonly configured = new Map<string, ExitStrategy & { exits: ExitSettings }>();
  /** Per line, the quantity last found too small to close (said once). */
  private readonly dust = new Map<string, Decimal>();
  private readonly blind: BlindPrices;

  constructor(private readonly deps: ExitMonitorDeps) {
    this.blind = new BlindPrices({ clock: deps.clock, log: deps.log, pollEveryMs: deps.pollEveryMs, alert: deps.alert });
    for (const s of deps.strategies) if (hasExits(s.exits)) this.configured.set(s.id, s as ExitStrategy & { exits: ExitSettings });
  }

  get any(): boolean {
    return this.configured.size > 0;
  }

  /** The symbols whose last price exits judge, per market (each gets a ticker feed). */
  symbols(): { market: Market; symbol: string }[] {
    return [...this.configured.values()].flatMap((s) => s.symbols.map((symbol) => ({ market: s.market, symbol })));
  }

  /** Judges every configured strategy's symbols against the last prices, and moves exits under way on. */
  async check(): Promise<void> {
    this.blind.begin();
    for (const s of this.configured.values()) {
      if (!this.deps.active(s.id)) continue;
      for (const symbol of s.symbols) await this.checkLine(s, symbol);
    }
    this.blind.end((market, symbol) => this.blind.fresh(this.deps.lastPriceAt(market, symbol)));
  }

  /**
   * Why the strategy may not place `intent` now, if it may not: an exit of its symbol is under
   * way (its own closing order aside), or the exit's cooldown has not ended. Cancels always go.
   */
  refusal(intent: OrderIntent): string | undefined {
    if (intent.kind !== 'place') return undefined;
    const s = this.configured.get(intent.strategyId);
    if (!s || intent.market !== s.market) return undefined;
    const line = this.line(keyOf(s.id, s.market, intent.symbol));
    if (line.exit?.order === intent.clientOrderId) return undefined;
    if (line.exit) return `exits: a ${line.exit.reason} exit of ${intent.symbol} is under way; new orders in it are refused until it ends`;
    const until = line.cooldownUntil ?? 0;
    if (until > this.deps.clock.now()) return `exits: ${intent.symbol} cools down after an exit until ${new Date(until).toISOString()} (exits.cooldownMs ${s.exits.cooldownMs}); new orders in it are refused until then`;
    return undefined;
  }

  private async checkLine(s: ExitStrategy & { exits: ExitSettings }, symbol: string): Promise<void> {
    const { deps } = this;
    const k = keyOf(s.id, s.market, symbol);
    const line = this.line(k);
    const price = deps.lastPrice(s.market, symbol);
    const pos = deps.position(s.id, s.market, symbol);
    const at = deps.lastPriceAt(s.market, symbol);
    const fresh = price !== undefined && dec.isPositive(price) && this.blind.fresh(at);
    if (line.exit) {
      if (fresh && dec.isZero(pos.unbookedQuantity)) this.relabel(s, symbol, line, k, pos, price);
      return this.advance(s, symbol, line, k);
    }
    if (!fresh) {
      // No price read lately (the venue failing ticker reads): neither an exit nor a best moves on an old one.
      if (s.market === 'futures' ? !dec.isZero(pos.quantity) : dec.isPositive(pos.quantity)) this.blind.note(s.market, symbol, s.id, price, at);
      return;
    }
    // An execution not booked yet: the position's entry price does not count it, so judging now
    // would measure the move from an older entry (a re-buy on top of a remainder, an add). It is
    // judged once its fills are booked (the next reconcile pass).
    if (!dec.isZero(pos.unbookedQuantity)) return;
    const closable = this.closable(s, symbol, pos, price);
    // A position too small to close is judged as flat: a dust remainder neither exits nor keeps a best.
    const quantity = typeof closable === 'string' ? ('0' as Decimal) : pos.quantity;
    const j = judgeExit({ quantity, entry: pos.avgEntryPrice, best: line.best, price, settings: s.exits });
    // (A spot strategy that sold more than it bought, from the account's own holdings, holds nothing to close.)
    if (typeof closable === 'string' && (s.market === 'futures' ? !dec.isZero(pos.quantity) : dec.isPositive(pos.quantity))) {
      const would = judgeExit({ quantity: pos.quantity, entry: pos.avgEntryPrice, best: line.best, price, settings: s.exits });
      if (would.exit && this.dust.get(k) !== pos.quantity) {
        this.dust.set(k, pos.quantity);
        deps.log.warn({ strategy: s.id, symbol, reason: would.exit.reason, quantity: pos.quantity, why: closable }, 'exit skipped: the position is below what one order can close');
      }
    }
    let changed = !sameBest(j.best, line.best);
    if (j.best) line.best = j.best;
    else delete line.best;
    if (j.exit) {
      line.exit = { reason: j.exit.reason, entry: pos.avgEntryPrice, trigger: j.exit.trigger, last: price, failed: 0 };
      changed = true;
      const message = `${s.id}: ${j.exit.reason} of ${symbol}: last ${price} reached ${j.exit.trigger} (entry ${pos.avgEntryPrice}); closing ${pos.quantity}`;
      const details = { strategy: s.id, market: s.market, symbol, reason: j.exit.reason, entry: pos.avgEntryPrice, trigger: j.exit.trigger, last: price, quantity: pos.quantity };
      deps.log.warn(amendFields(details, { alert: 'exit' }), 'exit triggered');
      deps.alert?.('exit', message, details);
    }
    if (changed) this.save(k, line);
    if (line.exit) await this.advance(s, symbol, line, k);
  }

  /**
   * A trigger of another kind while an exit is under way (a take-profit's close not done when the
   * price falls through the stop-loss) names the exit from now on: the log and an alert say so,
   * its count moves, and the close under way goes on; no second one is sent.
   */
  private relabel(s: ExitStrategy & { exits: ExitSettings }, symbol: string, line: Line, k: string, pos: StrategyPosition, price: Decimal): void {
    const under = line.exit!;
    const j = judgeExit({ quantity: pos.quantity, entry: pos.avgEntryPrice, best: line.best, price, settings: s.exits });
    if (!j.exit || j.exit.reason === under.reason) return;
    const was = under.reason;
    if (under.sent) {
      this.counts[was] = (this.counts[was] ?? 1) - 1;
      if (this.counts[was] === 0) delete this.counts[was];
      this.counts[j.exit.reason] = (this.counts[j.exit.reason] ?? 0) + 1;
    }
    line.exit = Object.assign(under, { reason: j.exit.reason, trigger: j.exit.trigger, last: price });
    this.save(k, line);
    const message = `${s.id}: the ${was} exit of ${symbol} under way is now a ${j.exit.reason}: last ${price} reached ${j.exit.trigger} (entry ${pos.avgEntryPrice}); the close under way goes on, no second one is sent`;
    const details = { strategy: s.id, market: s.market, symbol, reason: j.exit.reason, was, entry: pos.avgEntryPrice, trigger: j.exit.trigger, last: price, quantity: pos.quantity };
    this.deps.log.warn(amendFields(details, { alert: 'exit' }), 'exit relabelled');
    this.deps.alert?.('exit', message, details);
  }

  /** Moves an exit on: its strategy's open orders cancelled first, then the closing order, then its outcome. */
  private async advance(s: ExitStrategy & { exits: ExitSettings }, symbol: string, line: Line, k: string): Promise<void> {
    const { deps } = this;
    const under = line.exit!;
    const now = deps.clock.now();
    if (under.order !== undefined) {
      const order = deps.journal.order(under.order);
      if (order && !FINAL_STATUSES.has(order.status)) return;
      const left = deps.position(s.id, s.market, symbol);
      if (order?.status === 'filled' && typeof this.closable(s, symbol, left) !== 'string') {
        // One part of a close above risk.maxNotionalPerOrder: the next part once its fills are booked.
        delete under.order;
        this.save(k, line);
        return;
      }
      if (order?.status === 'filled') {
        // Done: its fill may be unbooked yet, and the position counts it all the same.
        delete line.exit;
        delete line.best;
        this.save(k, line);
        return;
      }
      // Refused, cancelled, or partly filled and cancelled: what is left is closed again, a little later.
      under.failed++;
      under.retryAt = now + Math.min(MAX_RETRY_MS, 1000 * 2 ** (under.failed - 1));
      delete under.order;
      this.save(k, line);
      deps.log.warn({ strategy: s.id, symbol, reason: under.reason, clientOrderId: order?.clientOrderId, status: order?.status, retryAt: under.retryAt }, 'exit order ended unfilled; the exit tries again');
      if (under.failed === ALERT_AFTER_FAILURES) {
        const why = order ? deps.journal.history(order.clientOrderId).at(-1)?.reason : undefined;
        const message = `${s.id}: the ${under.reason} exit of ${symbol} has not closed the position: ${under.failed} closing orders ended unfilled (the last: ${order?.status ?? 'not journaled'}${why ? `, ${why}` : ''}); it keeps trying, at most a minute apart, and the strategy's new orders there stay refused. Check the risk limits, the kill switch and the venue`;
        deps.alert?.('exit', message, { strategy: s.id, market: s.market, symbol, reason: under.reason, failed: under.failed, lastStatus: order?.status ?? null, lastReason: why ?? null });
      }
      return;
    }
    if (under.retryAt !== undefined && under.retryAt > now) return;
    const open = deps.journal.orders({ openOnly: true, strategyId: s.id }).filter((o) => o.symbol === symbol && o.market === s.market);
    if (open.length > 0) {
      const cancels: OrderIntent[] = open
        .filter((o) => o.status !== 'pending_cancel')
        // The pipeline finds each order's venue id in the journal (or waits for it).
        .map((o) => ({ kind: 'cancel', intentId: `${o.clientOrderId}:exit`, strategyId: s.id, market: s.market, symbol, clientOrderId: o.clientOrderId }));
      under.cancelled = [...new Set([...(under.cancelled ?? []), ...open.map((o) => o.clientOrderId)])];
      this.save(k, line);
      if (cancels.length > 0) await deps.submit(s.id, cancels);
      return;
    }
    // Spot: what the cancelled orders held is free at the venue only in an account read asked after
    // they ended; risk's balance check would refuse the close before it (one pass, engine.reconcileEveryMs).
    const endedAt = Math.max(...(under.cancelled ?? []).map((id) => deps.journal.order(id)?.updatedAt ?? 0));
    if (s.market === 'spot' && under.cancelled && deps.balancesAskedAt() < endedAt) return;
    const pos = deps.position(s.id, s.market, symbol);
    // What the cancelled orders (or an earlier part) executed is sized in once booked: the close is of booked holdings.
    if (!dec.isZero(pos.unbookedQuantity)) return;
    const closing = this.closable(s, symbol, pos, deps.lastPrice(s.market, symbol));
    if (typeof closing === 'string') {
      // Flat by now (its own order closed it while the cancels went), or too little left to close.
      if (s.market === 'futures' ? !dec.isZero(pos.quantity) : dec.isPositive(pos.quantity)) deps.log.warn({ strategy: s.id, symbol, reason: under.reason, quantity: pos.quantity, why: closing }, 'exit skipped: the position is below what one order can close');
      delete line.exit;
      delete line.best;
      this.save(k, line);
      return;
    }
    const id = deps.nextId(s.id);
    const intent: PlaceIntent = { kind: 'place', intentId: id, clientOrderId: id, strategyId: s.id, market: s.market, symbol, side: closing.side, type: 'MARKET', volume: closing.volume };
    if (s.market === 'futures') {
      intent.open = 'CLOSE';
      // As the position was opened: cross (1) or isolated (2), by its latest opening order.
      const opened = deps.journal.latestOrders(s.id, 100).findLast((o) => o.symbol === symbol && o.open === 'OPEN');
      intent.positionType = opened?.positionType ?? 1;
    }
    // Kept before it leaves: a restart finds the exit sent and waits for its order, never sends a second.
    under.order = id;
    if (!under.sent) this.counts[under.reason] = (this.counts[under.reason] ?? 0) + 1;
    under.sent = (under.sent ?? 0) + 1;
    if (s.exits.cooldownMs > 0) line.cooldownUntil = now + s.exits.cooldownMs;
    this.save(k, line);
    deps.log.info({ strategy: s.id, symbol, reason: under.reason, entry: under.entry, trigger: under.trigger, last: under.last, side: closing.side, volume: closing.volume, clientOrderId: id }, 'exit order');
    await deps.submit(s.id, [intent]);
    const order = deps.journal.order(id);
    if (order) deps.tell(s.id, { symbol, reason: under.reason, entry: under.entry, trigger: under.trigger, last: under.last, order });
  }

  /**
   * The order that closes the position (core/closing.ts, the rule ctx.isFlat() shares): spot, a
   * SELL of what it holds (netQuantity) rounded down to the symbol's step; futures, a CLOSE of its
   * contracts on the other side; at most risk.maxNotionalPerOrder's worth. A string says why there
   * is none (flat, short on spot, below the minimum).
   */
  private closable(s: ExitStrategy, symbol: string, pos: StrategyPosition, price?: Decimal): { side: 'BUY' | 'SELL'; volume: Decimal } | string {
    const info = this.deps.instrument(s.market, symbol);
    if (!info) return `no instrument listing for ${symbol}`;
    // At most what one order may be worth (risk.maxNotionalPerOrder): a bigger close goes in parts.
    const cap = (unit: Decimal, places: number, volume: Decimal) => (price && dec.isPositive(price) ? dec.min(volume, dec.truncate(dec.div(this.deps.maxNotionalPerOrder(), dec.mul(price, unit)), places)) : volume);
    return closingOrder(s.market, info, pos, cap);
  }

  private line(k: string): Line {
    let line = this.lines.get(k);
    if (!line) {
      const text = this.deps.journal.cursor(`exits:${k}`);
      line = text === undefined ? {} : parseLine(text);
      this.lines.set(k, line);
    }
    return line;
  }

  private save(k: string, line: Line): void {
    this.deps.journal.setCursor(`exits:${k}`, JSON.stringify(line));
  }
}

const keyOf = (strategyId: string, market: Market, symbol: string) => `${strategyId}:${market}:${symbol}`;

const sameBest = (a: Best | undefined, b: Best | undefined) => a === b || (a !== undefined && b !== undefined && a.side === b.side && dec.eq(a.price, b.price));

function amendFields(base: object, more: object): Record<string, unknown> {
  return Object.assign({}, base, more) as Record<string, unknown>;
}

/** A line as journaled; one that does not read is started afresh (a best lost costs a later trailing stop, not a wrong one). */
function parseLine(text: string): Line {
  try {
    const v = JSON.parse(text) as Line;
    return v !== null && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

/** The monitor for the engine's strategies, or undefined when none has exits (nothing changes then). */
export function exitMonitor(
  parts: {
    clock: Clock;
    log: Log;
    journal: Journal;
    strategies: readonly LoadedStrategy[];
    sequences: Pick<SequenceAllocator, 'next'>;
    risk: { readonly maxNotionalPerOrder: Decimal };
    marketData: { lastPriceAt(market: Market, symbol: string): number | undefined };
    settings: { marketDataEveryMs: number };
    alert?: ExitMonitorDeps['alert'];
  },
  view: Pick<EngineView, 'ownPosition' | 'lastPrice' | 'instrument'>,
  engine: { hosts: readonly StrategyHost[]; running(): boolean; balancesAskedAt(): number; handle(h: StrategyHost, out: HostOutput): Promise<void>; post(h: StrategyHost, run: () => Promise<void>): void },
): ExitMonitor | undefined {
  const strategies = parts.strategies.map((s) => s.entry);
  if (!strategies.some((s) => hasExits(s.exits))) return undefined;
  const { clock, log, journal, sequences, alert } = parts;
  const hostOf = (id: string) => engine.hosts.find((h) => h.id === id)!;
  return new ExitMonitor({
    clock,
    log,
    journal,
    strategies,
    position: (id, market, symbol) => view.ownPosition(id, market, symbol),
    lastPrice: (market, symbol) => view.lastPrice(market, symbol),
    lastPriceAt: (market, symbol) => parts.marketData.lastPriceAt(market, symbol),
    pollEveryMs: parts.settings.marketDataEveryMs,
    instrument: (market, symbol) => view.instrument(market, symbol),
    nextId: (id) => clientOrderId(id, sequences.next(id)),
    // A strategy disabled by its plugin still holds its position: its exits go on guarding it.
    active: () => engine.running(),
    balancesAskedAt: engine.balancesAskedAt,
    maxNotionalPerOrder: () => parts.risk.maxNotionalPerOrder,
    submit: (id, intents) => engine.handle(hostOf(id), { intents, invalid: [] }),
    // Through its inbox, after what it was handed before: the strategy never waits on the poll, nor the poll on it.
    tell: (id, n) => {
      const h = hostOf(id);
      engine.post(h, async () => engine.handle(h, await h.exited({ kind: 'exit', symbol: n.symbol, reason: n.reason, entry: n.entry, trigger: n.trigger, last: n.last, order: n.order })));
    },
    alert,
  });
}
