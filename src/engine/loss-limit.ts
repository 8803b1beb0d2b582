// The daily loss limit (strategies[].lossLimit.daily, README: loss limit). After each market-data
// poll, each strategy with a limit has its PnL measured from its own books: over its symbols,
// realised PnL less quote fees plus the open quantity's PnL at the last price (futures: times the
// contract size, as the books count it). The day is the UTC day on the engine's clock; the day's
// reference is the PnL at its first measurement. When the day's PnL (now less the reference)
// reaches -daily, the strategy is blocked until the next UTC midnight: its open orders are
// cancelled and its orders that would add to its position are refused (reducing ones, and its
// protective exits' closes, go). The day's reference and the block are kept in the journal (as
// the exits keep theirs), so a restart the same day keeps both.
// Choices where the issue is silent: a strategy is measured only when every execution of it is
// booked and the engine has a positive last price for each of its symbols with a position (a
// flat symbol needs none, unless fees were paid in its base coin); a fee paid in the symbol's base
// coin (a spot buy's) costs its amount at the last price, a fee in any other coin is not in the
// measure (no price for it here); the day's losses before the first measurement of the day are
// not counted.
import { dec, toDecimal, ZERO, type Decimal } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import type { Log } from '../core/log.js';
import type { SymbolInfo } from '../core/market.js';
import type { Journal } from '../core/ports.js';
import type { AlertKind, LossLimitSettings, Market, Order, OrderIntent, PlaceIntent, StrategyPosition } from '../core/types.js';
import type { EngineView, HostOutput, LoadedStrategy, StrategyHost } from '../strategy/index.js';
import { priceFresh } from './exit-blind.js';

export interface LossLimitStrategy {
  id: string;
  market: Market;
  symbols: readonly string[];
  lossLimit?: LossLimitSettings;
}

export interface LossLimitDeps {
  clock: Clock;
  log: Log;
  journal: Pick<Journal, 'cursor' | 'setCursor' | 'orders'>;
  strategies: readonly LossLimitStrategy[];
  position(strategyId: string, market: Market, symbol: string): StrategyPosition;
  lastPrice(market: Market, symbol: string): Decimal | undefined;
  instrument(market: Market, symbol: string): SymbolInfo | undefined;
  /** Hands the strategy's cancels to the pipeline, as its own. */
  submit(strategyId: string, intents: OrderIntent[]): Promise<void>;
  alert?: ((kind: AlertKind, message: string, details: Record<string, unknown>) => void) | undefined;
}

/** One strategy's day, as kept in the journal. */
export interface LossLimitDay {
  /** The UTC day (YYYY-MM-DD) the reference is of. */
  day: string;
  reference: Decimal;
  /** Blocked until this time (ms, the next UTC midnight) after a breach. */
  blockedUntil?: number;
  /** The day's PnL that breached. */
  breachPnl?: Decimal;
}

const DAY_MS = 86_400_000;
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
export const nextUtcMidnight = (ms: number): number => (Math.floor(ms / DAY_MS) + 1) * DAY_MS;

/**
 * The strategy's PnL in its quote currency, or undefined when it cannot be judged now: an
 * execution not booked yet, or no price for a symbol it holds or paid fees in the base coin of.
 * `baseAsset`: the symbol's base coin, whose fees cost their amount at the last price (the
 * position counts the coins bought; the account holds that less the fee, as report/valuation.ts).
 */
export function strategyPnl(
  positions: readonly StrategyPosition[],
  lastPrice: (symbol: string) => Decimal | undefined,
  multiplier: (symbol: string) => Decimal | undefined,
  baseAsset: (symbol: string) => string | undefined = () => undefined,
): Decimal | undefined {
  let pnl = ZERO;
  for (const p of positions) {
    if (!dec.isZero(p.unbookedQuantity)) return undefined;
    pnl = dec.sub(dec.add(pnl, p.realizedPnl), p.fees);
    const base = baseAsset(p.symbol);
    const baseFee = base === undefined ? ZERO : (p.otherFees[base] ?? ZERO);
    if (dec.isZero(p.quantity) && dec.isZero(baseFee)) continue;
    const last = lastPrice(p.symbol);
    if (last === undefined || !dec.isPositive(last)) return undefined;
    const open = dec.mul(dec.mul(dec.sub(last, p.avgEntryPrice), p.quantity), multiplier(p.symbol) ?? ('1' as Decimal));
    pnl = dec.sub(dec.add(pnl, open), dec.mul(baseFee, last));
  }
  return pnl;
}

/**
 * Would this place add to the strategy's position (`held`: its quantity, signed)? Reducing orders
 * only go while blocked. `working`: what its open orders, and the places let through before this
 * one in the same handler call, on the same side in the symbol have still to trade, so that
 * several sells that each fit cannot together sell past the holding.
 */
export function increases(intent: PlaceIntent, held: Decimal, working: Decimal = ZERO): boolean {
  // Futures: a CLOSE only reduces; anything else opens.
  if (intent.market === 'futures') return intent.open !== 'CLOSE';
  const total = dec.add(intent.volume, working);
  // Spot: a SELL of at most what it holds, or a LIMIT BUY of at most its short, reduces (a MARKET BUY's volume is a quote amount: refused).
  if (intent.side === 'SELL') return !(dec.isPositive(held) && dec.lte(total, held));
  return intent.type === 'MARKET' || !(dec.isNegative(held) && dec.lte(total, dec.neg(held)));
}

/** What the strategy's open orders and `earlier` places on the intent's side in its symbol have still to trade. */
function workingVolume(orders: readonly Order[], earlier: readonly PlaceIntent[], intent: PlaceIntent): Decimal {
  const same = (o: { strategyId: string; market: Market; symbol: string; side: string }) => o.strategyId === intent.strategyId && o.market === intent.market && o.symbol === intent.symbol && o.side === intent.side;
  return dec.add(dec.sum(orders.filter(same).map((o) => dec.sub(o.volume, o.executedVolume))), dec.sum(earlier.filter(same).map((i) => i.volume)));
}

export class LossLimits {
  /** Strategies that hit their limit, each day once (a backtest's report). */
  readonly hits: { strategy: string; day: string; pnl: Decimal }[] = [];
  private readonly days = new Map<string, LossLimitDay | undefined>();
  private readonly configured: (LossLimitStrategy & { lossLimit: LossLimitSettings })[];

  constructor(private readonly deps: LossLimitDeps) {
    this.configured = deps.strategies.filter((s): s is LossLimitStrategy & { lossLimit: LossLimitSettings } => s.lossLimit !== undefined);
  }

  get any(): boolean {
    return this.configured.length > 0;
  }

  /** The symbols whose last price the measure needs, per market (each gets a ticker feed). */
  symbols(): { market: Market; symbol: string }[] {
    return this.configured.flatMap((s) => s.symbols.map((symbol) => ({ market: s.market, symbol })));
  }

  /** Until when the strategy is blocked (ms), if it is now. */
  blockedUntil(strategyId: string): number | undefined {
    return this.blockedDay(strategyId)?.blockedUntil;
  }

  /** The strategy's day as journaled, when it blocks the strategy now (`sluice status` shows it): its breach and until when. */
  blockedDay(strategyId: string): Readonly<LossLimitDay & { blockedUntil: number }> | undefined {
    const day = this.day(strategyId);
    return day?.blockedUntil !== undefined && day.blockedUntil > this.deps.clock.now() ? (day as LossLimitDay & { blockedUntil: number }) : undefined;
  }

  /** The daily limit the strategy's config sets, if any. */
  limitOf(strategyId: string): Decimal | undefined {
    return this.configured.find((s) => s.id === strategyId)?.lossLimit.daily;
  }

  /**
   * Why the strategy may not place `intent` now: blocked by its limit, and the order would add to
   * its position. `earlier`: the places let through before it in the same handler call (not
   * journaled yet).
   */
  refusal(intent: OrderIntent, earlier: readonly PlaceIntent[] = []): string | undefined {
    if (intent.kind !== 'place') return undefined;
    const s = this.configured.find((c) => c.id === intent.strategyId);
    const until = s && this.blockedUntil(s.id);
    if (!s || until === undefined) return undefined;
    const held = this.deps.position(s.id, intent.market, intent.symbol);
    // Spot sells what the fills left held (a buy's fee in the base coin is not there to sell).
    const quantity = intent.market === 'spot' ? held.netQuantity : held.quantity;
    if (!increases(intent, quantity, workingVolume(this.deps.journal.orders({ openOnly: true, strategyId: s.id }), earlier, intent))) return undefined;
    return `lossLimit: ${s.id} lost ${this.day(s.id)?.breachPnl ?? '?'} today, past its daily loss limit of ${s.lossLimit.daily}; orders that add to its position are refused until ${new Date(until).toISOString()} (only reducing ones go)`;
  }

  /** Measures every strategy with a limit; sets each day's reference, blocks on a breach, lifts at the next UTC day. */
  async check(): Promise<void> {
    for (const s of this.configured) await this.checkOne(s);
  }

  private async checkOne(s: LossLimitStrategy & { lossLimit: LossLimitSettings }): Promise<void> {
    const { deps } = this;
    const now = deps.clock.now();
    const today = utcDay(now);
    let day = this.day(s.id);
    if (day?.blockedUntil !== undefined && day.blockedUntil <= now) {
      deps.log.info({ strategy: s.id, day: today, limit: s.lossLimit.daily }, 'loss limit lifted: a new UTC day; the strategy may open positions again');
      delete day.blockedUntil;
      delete day.breachPnl;
      this.save(s.id, day);
    }
    const pnl = strategyPnl(
      s.symbols.map((symbol) => deps.position(s.id, s.market, symbol)),
      (symbol) => deps.lastPrice(s.market, symbol),
      (symbol) => (s.market === 'futures' ? deps.instrument(s.market, symbol)?.multiplier : undefined),
      (symbol) => deps.instrument(s.market, symbol)?.baseAsset,
    );
    if (pnl === undefined) return;
    if (day?.day !== today) {
      day = { day: today, reference: pnl };
      this.save(s.id, day);
      return;
    }
    if (day.blockedUntil !== undefined) return;
    const dayPnl = dec.sub(pnl, day.reference);
    if (dec.gt(dayPnl, dec.neg(s.lossLimit.daily))) return;
    day.blockedUntil = nextUtcMidnight(now);
    day.breachPnl = dayPnl;
    this.save(s.id, day);
    this.hits.push({ strategy: s.id, day: today, pnl: dayPnl });
    const until = new Date(day.blockedUntil).toISOString();
    const details = { strategy: s.id, market: s.market, dayPnl, limit: s.lossLimit.daily, until };
    deps.log.warn(Object.assign({ alert: 'loss_limit' }, details), 'loss limit hit: the strategy opens nothing more today');
    deps.alert?.('loss_limit', `${s.id}: lost ${dayPnl} today (UTC ${today}), past its daily loss limit of ${s.lossLimit.daily}: its open orders are cancelled and orders that add to its position are refused until ${until}`, details);
    const open = deps.journal.orders({ openOnly: true, strategyId: s.id }).filter((o) => o.market === s.market && o.status !== 'pending_cancel');
    const cancels: OrderIntent[] = open.map((o) => ({ kind: 'cancel', intentId: `${o.clientOrderId}:losslimit`, strategyId: s.id, market: o.market, symbol: o.symbol, clientOrderId: o.clientOrderId }));
    if (cancels.length > 0) await deps.submit(s.id, cancels);
  }

  private day(strategyId: string): LossLimitDay | undefined {
    if (!this.days.has(strategyId)) this.days.set(strategyId, parseDay(this.deps.journal.cursor(`losslimit:${strategyId}`)));
    return this.days.get(strategyId);
  }

  private save(strategyId: string, day: LossLimitDay): void {
    this.days.set(strategyId, day);
    this.deps.journal.setCursor(`losslimit:${strategyId}`, JSON.stringify(day));
  }
}

/** A day as journaled; one that does not read starts afresh (the next measurement is the reference). */
function parseDay(text: string | undefined): LossLimitDay | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as LossLimitDay;
    if (v === null || typeof v !== 'object' || typeof v.day !== 'string') return undefined;
    // Every figure as the engine wrote it, or none of the day: a block until a time that does not
    // read would never lift (nor show: `sluice status` prints its time).
    if (v.blockedUntil !== undefined && !Number.isFinite(v.blockedUntil)) return undefined;
    toDecimal(v.reference, 'reference');
    if (v.breachPnl !== undefined) toDecimal(v.breachPnl, 'breachPnl');
    return v;
  } catch {
    return undefined;
  }
}

/** The loss limits of the engine's strategies, or undefined when none has one (nothing changes then). */
export function lossLimits(
  parts: {
    clock: Clock;
    log: Log;
    journal: Journal;
    strategies: readonly LoadedStrategy[];
    marketData: { lastPriceAt(market: Market, symbol: string): number | undefined };
    settings: { marketDataEveryMs: number };
    alert?: LossLimitDeps['alert'];
  },
  view: Pick<EngineView, 'ownPosition' | 'lastPrice' | 'instrument'>,
  engine: { hosts: readonly StrategyHost[]; handle(h: StrategyHost, out: HostOutput): Promise<void> },
): LossLimits | undefined {
  const strategies = parts.strategies.map((s) => s.entry);
  if (!strategies.some((s) => s.lossLimit)) return undefined;
  return new LossLimits({
    clock: parts.clock,
    log: parts.log,
    journal: parts.journal,
    strategies,
    position: (id, market, symbol) => view.ownPosition(id, market, symbol),
    // Judged on a fresh price only, as the exits are: a price the venue stopped giving is not the market.
    lastPrice: (market, symbol) => (priceFresh(parts.marketData.lastPriceAt(market, symbol), parts.clock.now(), parts.settings.marketDataEveryMs) ? view.lastPrice(market, symbol) : undefined),
    instrument: (market, symbol) => view.instrument(market, symbol),
    submit: (id, intents) => engine.handle(engine.hosts.find((h) => h.id === id)!, { intents, invalid: [] }),
    alert: parts.alert,
  });
}
