// The reconciler's I/O: polls the venue's open orders, trades and accounts, applies what the
// pure diff decides, and watches position drift. The engine gives it callbacks to tell
// strategies about order changes and fills.
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { UnknownOrderError } from '../core/errors.js';
import { parseClientOrderId, type ClientOrderId, type VenueOrderId } from '../core/ids.js';
import type { SymbolInfo } from '../core/market.js';
import type { Journal } from '../core/ports.js';
import { FINAL_STATUSES, type Balance, type Fill, type Market, type Order, type PlaceIntent } from '../core/types.js';
import type { ReconcileConfig } from '../config/index.js';
import type { FuturesAccount, VenueOrder, VenueTrade } from '../core/venue.js';
import type { Executor } from '../executor/index.js';
import type { PositionBook } from '../positions/index.js';
import { compareIds, diffVenue, ownOrderId } from '../reconciler/diff.js';
import { describeDrift, driftOf, DriftWatch, type DriftLine } from '../reconciler/drift.js';
import { mergeVenueOrder, withStatus } from './orders.js';

/** Order look-ups (queryOrder, 20 per 2 s) per symbol and pass. */
const QUERIES_PER_PASS = 4;
/**
 * Every this many passes a symbol's trades are read without a cursor (the latest page): a fill
 * the venue shows late can carry a trade id below trades already seen, and the cursor has
 * moved past it.
 */
const FULL_SCAN_EVERY = 5;
/** Trades per myTrades page (the venue's maximum). */
const TRADES_PAGE = 1000;
/** Start-up reads at most this many pages of trades per symbol before strategies run. */
const CATCH_UP_PAGES = 50;
/** Trade ids given up on (matching no order) that are remembered, so a full scan does not revive them. */
const GIVEN_UP_KEPT = 10_000;
/** A foreign order we asked to cancel is asked again only after this long. */
const RECANCEL_AFTER_MS = 10_000;
/**
 * A trade of our account that matches no order we know is kept this long and matched again
 * each pass: it may fill an order whose placement answer has not arrived yet (still pending,
 * so without a venue id), and the cursor has already moved past it.
 */
const ORPHAN_KEEP_MS = 300_000;

/** The strategy id of adopted orders that no running strategy placed. */
export const ADOPTED = 'adopted';

export interface ReconcilerDeps {
  executor: Executor;
  journal: Journal;
  positions: PositionBook;
  clock: Clock;
  log: Logger;
  instruments: ReadonlyMap<string, SymbolInfo>;
  settings: ReconcileConfig;
  /** Ids of the running strategies: an order with one of their client-id tags is theirs. */
  strategyIds: readonly string[];
  onOrder(order: Order): Promise<void>;
  /** A new fill, already journaled and applied to positions. */
  onFill(fill: Fill, order: Order | undefined): Promise<void>;
  cancelForeign(order: VenueOrder, market: Market): void;
  /** Drift lasted past its grace period ('act') or is gone ('clear'). */
  onDrift(verdict: 'act' | 'clear', lines: readonly DriftLine[]): void;
}

const key = (market: Market, symbol: string) => `${market}:${symbol}`;

/** A fill just journaled, with its order as it was and as the fill left it (if it changed). */
interface JournaledFill {
  fill: Fill;
  order: Order | undefined;
  next?: Order;
}

export class Reconciler {
  balances = new Map<string, Balance>();
  /** When the request behind `balances` was sent: orders acknowledged before it are in them. */
  balancesAskedAt = Number.NEGATIVE_INFINITY;
  futuresAccounts: FuturesAccount[] = [];
  lastDrift: DriftLine[] = [];
  private passes = 0;
  /** Fill volume per venue order, built from the journal on first use. */
  private filledByOrder: Map<string, Decimal> | undefined;
  private readonly cancelAsked = new Map<string, number>();
  /** Per market and symbol: unmatched trades of our account by trade id, with when first seen. */
  private readonly orphans = new Map<string, Map<string, { trade: VenueTrade; seenAt: number }>>();
  /** market:symbol:tradeId of orphans given up on, oldest first (bounded). */
  private readonly givenUp = new Set<string>();
  private readonly driftWatch: DriftWatch;

  constructor(private readonly deps: ReconcilerDeps) {
    this.driftWatch = new DriftWatch(deps.settings.drift.graceMs);
  }

  /**
   * The pass interval that keeps openOrders and myTrades within budgetShare of their limits:
   * each pass makes one of each per symbol.
   */
  intervalMs(configuredMs: number, symbols: number, limitPer2s: number): number {
    const perWindow = Math.max(1, Math.floor(limitPer2s * this.deps.settings.budgetShare));
    return Math.max(configuredMs, Math.ceil((symbols * 2000) / perWindow));
  }

  /**
   * One pass over every active symbol; a failure in one symbol does not stop the others. The
   * FULL_SCAN_EVERY-th pass reads the latest trades without a cursor; `fullScan` forces that
   * (the last pass at shutdown). `catchUp` (start-up) pages forward from the cursor until the
   * venue has no more trades, so positions are whole before any strategy runs.
   */
  async pass(symbols: readonly { market: Market; symbol: string }[], opts: { fullScan?: boolean; catchUp?: boolean } = {}): Promise<void> {
    const fullScan = this.passes++ % FULL_SCAN_EVERY === FULL_SCAN_EVERY - 1 || opts.fullScan === true;
    for (const { market, symbol } of symbols) {
      try {
        for (let page = 1; ; page++) {
          const more = await this.symbol(market, symbol, fullScan);
          if (!more || !opts.catchUp || fullScan || page >= CATCH_UP_PAGES) break;
        }
      } catch (err) {
        this.deps.log.warn({ err: errText(err), market, symbol }, 'reconcile failed; will retry');
      }
    }
  }

  /** One symbol's reconcile; true when the trades page was full and the cursor moved (more may follow). */
  private async symbol(market: Market, symbol: string, fullScan: boolean): Promise<boolean> {
    const { executor, journal, clock } = this.deps;
    const cursorKey = `trades:${market}:${symbol}`;
    const cursor = journal.cursor(cursorKey);
    const fromId = fullScan ? undefined : cursor;
    const venueOpen = (
      market === 'spot' ? await executor.call('spot.openOrders', { symbol }) : await executor.call('futures.openOrders', { contractName: symbol })
    ).items;
    const trades = (
      market === 'spot'
        ? await executor.call('spot.myTrades', { symbol, fromId, limit: TRADES_PAGE })
        : await executor.call('futures.myTrades', { contractName: symbol, fromId, limit: TRADES_PAGE })
    ).items;
    // fromId is inclusive; a full scan re-reads seen trades on purpose (fills apply once by trade id).
    const fresh = fromId ? trades.filter((t) => compareIds(t.tradeId, fromId) > 0) : trades;
    await this.takeForeign(market, symbol, venueOpen);
    const lookup = (id: VenueOrderId) => journal.ordersByVenueId(id).find((o) => o.market === market && o.symbol === symbol);
    const orphans = this.orphans.get(cursorKey) ?? new Map<string, { trade: VenueTrade; seenAt: number }>();
    this.orphans.set(cursorKey, orphans);
    const freshIds = new Set(fresh.map((t) => t.tradeId));
    const retried = [...orphans.values()].filter((o) => !freshIds.has(o.trade.tradeId)).map((o) => o.trade);
    const compare = () => {
      const ours = journal.orders({ openOnly: true }).filter((o) => o.market === market && o.symbol === symbol);
      return diffVenue({ market, symbol, ours, venueOpen, trades: [...fresh, ...retried], now: clock.now(), lookup });
    };
    let diff = compare();
    // Orders whose outcome is unknown first: found by client id, their fills in this page are
    // theirs in this pass (the last pass at shutdown has no next one to match them).
    if (diff.unresolved.length > 0) {
      for (const o of diff.unresolved.slice(0, QUERIES_PER_PASS)) await this.resolveUnknown(o);
      diff = compare();
    }
    this.keepOrphans(orphans, diff.fills, diff.foreignTrades, market, symbol);
    // One commit for the pass (under load, hundreds of fills): a commit each stalled the event
    // loop for seconds and starved the dispatcher.
    let journaled: JournaledFill[];
    try {
      journaled = journal.transaction(() => {
        for (const c of diff.changes) journal.updateOrder(c.order, c.reason);
        return diff.fills.flatMap((fill) => this.journalFill(fill));
      });
    } catch (err) {
      this.filledByOrder = undefined; // it counted fills the failed commit did not keep
      throw err;
    }
    // Positions take every fill before anyone hears of one: a strategy (and risk) told of the
    // first must not see its order gone from the open ones while the rest are not yet counted.
    const applied = journaled.filter((f) => this.deps.positions.apply(f.fill));
    for (const c of diff.changes) await this.deps.onOrder(c.order);
    for (const f of journaled) if (f.next) await this.deps.onOrder(f.next);
    for (const f of applied) await this.deps.onFill(f.fill, f.order);
    // A full scan sees only the latest page: it moves the cursor only when that page reaches
    // back to it, or trades between the two would never be read.
    const reachesCursor = !cursor || trades.length < TRADES_PAGE || trades.some((t) => compareIds(t.tradeId, cursor) <= 0);
    const moved = diff.cursor !== undefined && (!cursor || compareIds(diff.cursor, cursor) > 0) && (!fullScan || reachesCursor);
    if (moved) journal.setCursor(cursorKey, diff.cursor!);
    // Orders our fills already show as filled need no query; the rest share a small query
    // budget per pass, so order queries never crowd out the other endpoints.
    const toQuery = diff.closedOnVenue.filter((o) => !FINAL_STATUSES.has(journal.order(o.clientOrderId)?.status ?? o.status));
    for (const o of toQuery.slice(0, QUERIES_PER_PASS)) await this.settleClosed(journal.order(o.clientOrderId) ?? o);
    return moved && trades.length >= TRADES_PAGE;
  }

  /** Forgets orphans that became fills, keeps new ones, and gives up on old ones (logged once). */
  private keepOrphans(orphans: Map<string, { trade: VenueTrade; seenAt: number }>, fills: readonly Fill[], foreign: readonly VenueTrade[], market: Market, symbol: string): void {
    const now = this.deps.clock.now();
    for (const f of fills) orphans.delete(f.tradeId);
    for (const t of foreign) {
      const k = `${market}:${symbol}:${t.tradeId}`;
      if (!orphans.has(t.tradeId) && !this.givenUp.has(k)) orphans.set(t.tradeId, { trade: t, seenAt: now });
    }
    for (const [id, o] of orphans) {
      if (now - o.seenAt < ORPHAN_KEEP_MS) continue;
      orphans.delete(id);
      this.givenUp.add(`${market}:${symbol}:${id}`);
      if (this.givenUp.size > GIVEN_UP_KEPT) this.givenUp.delete(this.givenUp.values().next().value!);
      this.deps.log.warn({ market, symbol, tradeId: id, venueOrderId: ownOrderId(o.trade) }, 'a trade of this account matches no order sluice knows; it does not count toward positions');
    }
  }

  /**
   * Open orders on the venue that no open order of ours matches. One we gave up on (an unknown
   * outcome the venue then denied) is ours after all; anything else is adopted or cancelled.
   */
  private async takeForeign(market: Market, symbol: string, venueOpen: readonly VenueOrder[]): Promise<void> {
    const { journal, clock, log, settings } = this.deps;
    for (const v of venueOpen) {
      if (journal.ordersByVenueId(v.orderId).some((o) => o.market === market && o.symbol === symbol)) continue;
      const clientId = v.clientOrderId && v.clientOrderId !== '0' ? v.clientOrderId : undefined;
      const known = clientId ? journal.order(clientId) : undefined;
      if (known && known.market === market && known.symbol === symbol) {
        if (!FINAL_STATUSES.has(known.status)) continue; // the diff matches it by client id
        const revived = mergeVenueOrder(known, v, clock.now());
        journal.updateOrder(revived, 'open on the venue after it was given up');
        log.warn({ clientOrderId: known.clientOrderId, venueOrderId: v.orderId }, 'an order we had given up on is open on the venue; tracking it again');
        await this.deps.onOrder(revived);
        continue;
      }
      if (settings.foreignOrders === 'cancel') {
        const askedAt = this.cancelAsked.get(v.orderId);
        if (askedAt !== undefined && clock.now() - askedAt < RECANCEL_AFTER_MS) continue;
        this.cancelAsked.set(v.orderId, clock.now());
        log.warn({ market, symbol, venueOrderId: v.orderId, clientOrderId: clientId }, 'an open order on the venue that sluice did not place: cancelling it (reconcile.foreignOrders: cancel)');
        this.deps.cancelForeign(v, market);
        continue;
      }
      const adopted = adoptedOrder(v, market, clientId, this.deps.strategyIds, clock.now());
      journal.recordIntent(adopted.intent, adopted.order);
      log.warn(
        { market, symbol, venueOrderId: v.orderId, clientOrderId: adopted.order.clientOrderId, strategy: adopted.order.strategyId },
        'adopted an open order on the venue that the journal did not know; its fills count toward positions',
      );
      await this.deps.onOrder(adopted.order);
    }
  }

  /** Journals a fill and what it does to its order; nothing when the trade id is already journaled. */
  private journalFill(fill: Fill): JournaledFill[] {
    const { journal, clock } = this.deps;
    this.indexFills();
    if (!journal.recordFill(fill)) return [];
    const order = journal.ordersByVenueId(fill.venueOrderId).find((o) => o.market === fill.market && o.symbol === fill.symbol);
    // A spot market buy's volume is a quote amount, so its fills cannot tell when it is done.
    const quoteSized = order?.market === 'spot' && order.type === 'MARKET' && order.side === 'BUY';
    const filled = this.sumFill(fill);
    if (!order || FINAL_STATUSES.has(order.status) || quoteSized) return [{ fill, order }];
    // Venue answers already raised executedVolume for some of these fills: take the larger, never the sum of both.
    const executedVolume = dec.max(order.executedVolume, filled);
    const next = { ...order, executedVolume, status: dec.gte(executedVolume, order.volume) ? 'filled' : 'partially_filled', updatedAt: clock.now() } as Order;
    journal.updateOrder(next, `fill ${fill.tradeId}`);
    return [{ fill, order, next }];
  }


  /** Builds the fill volume per order from the journal, once (before the first new fill is journaled). */
  private indexFills(): void {
    if (this.filledByOrder) return;
    this.filledByOrder = new Map();
    for (const f of this.deps.journal.fills()) this.sumFill(f);
  }

  /** Adds a fill to its order's total; returns the total. */
  private sumFill(f: Fill): Decimal {
    const k = `${f.market}:${f.symbol}:${f.venueOrderId}`;
    const total = dec.add(this.filledByOrder!.get(k) ?? ZERO, f.volume);
    this.filledByOrder!.set(k, total);
    return total;
  }

  /** An order the venue no longer lists as open: ask for its final state. */
  private async settleClosed(order: Order): Promise<void> {
    const venue =
      order.market === 'spot'
        ? await this.deps.executor.call('spot.queryOrder', { symbol: order.symbol, orderId: order.venueOrderId })
        : await this.deps.executor.call('futures.queryOrder', { contractName: order.symbol, orderId: order.venueOrderId });
    const next = mergeVenueOrder(order, venue, this.deps.clock.now());
    if (next.status !== order.status || !dec.eq(next.executedVolume, order.executedVolume)) {
      this.deps.journal.updateOrder(next, 'venue order query');
      await this.deps.onOrder(next);
    }
  }

  /** An order whose placement answer was lost: look it up by its client order id. */
  private async resolveUnknown(order: Order): Promise<void> {
    try {
      const venue =
        order.market === 'spot'
          ? await this.deps.executor.call('spot.queryOrder', { symbol: order.symbol, newClientOrderId: order.clientOrderId })
          : await this.deps.executor.call('futures.queryOrder', { contractName: order.symbol, clientOrderId: order.clientOrderId });
      const next = mergeVenueOrder(order, venue, this.deps.clock.now());
      this.deps.journal.updateOrder(next, 'found by client order id');
      await this.deps.onOrder(next);
    } catch (err) {
      if (!(err instanceof UnknownOrderError)) throw err;
      // The venue never took it. It is final for us (never re-sent: the strategy decides); if it
      // turns up open later after all, takeForeign tracks it again.
      const next = withStatus(order, 'rejected', this.deps.clock.now());
      this.deps.journal.updateOrder(next, 'never reached the venue');
      await this.deps.onOrder(next);
    }
  }

  /** Balances and futures accounts, then the drift check. A failed read keeps the last values. */
  async refreshAccounts(markets: ReadonlySet<Market>): Promise<void> {
    if (markets.has('spot')) {
      try {
        const askedAt = this.deps.clock.now();
        const balances = (await this.deps.executor.call('spot.account', {})).items;
        this.balances = new Map(balances.map((b) => [b.asset, b]));
        this.balancesAskedAt = askedAt;
      } catch (err) {
        this.deps.log.warn({ err: errText(err) }, 'spot account refresh failed; keeping the last balances');
      }
    }
    if (markets.has('futures')) {
      try {
        this.futuresAccounts = (await this.deps.executor.call('futures.account', {})).items;
      } catch (err) {
        this.deps.log.warn({ err: errText(err) }, 'futures account refresh failed; keeping the last positions');
      }
    }
  }

  /** Drift of every traded asset and contract; baselines are taken (and journaled) the first time. */
  drift(symbols: readonly { market: Market; symbol: string }[], persistBaselines: boolean): DriftLine[] {
    const { journal, positions, instruments, settings } = this.deps;
    const tolerance = (syms: readonly string[]) => syms.reduce<Decimal>((t, s) => dec.max(t, settings.drift.tolerance[s] ?? ZERO), ZERO);
    const inputs: { market: Market; name: string; symbols: string[]; ours: Decimal; venue: Decimal }[] = [];
    const spotByBase = new Map<string, string[]>();
    for (const { market, symbol } of symbols) {
      if (market !== 'spot') continue;
      const base = instruments.get(key('spot', symbol))?.baseAsset;
      if (base && this.balances.size > 0) spotByBase.set(base, [...(spotByBase.get(base) ?? []), symbol]);
    }
    for (const [asset, syms] of spotByBase) {
      const ours = dec.sum(
        syms.map((s) => {
          const entry = positions.entry('spot', s);
          return dec.sub(entry.quantity, entry.otherFees[asset] ?? ZERO);
        }),
      );
      const b = this.balances.get(asset);
      inputs.push({ market: 'spot', name: asset, symbols: syms, ours, venue: b ? dec.add(b.free, b.locked) : ZERO });
    }
    const futuresSymbols = symbols.filter((s) => s.market === 'futures').map((s) => s.symbol);
    if (this.futuresAccounts.length > 0) {
      for (const contract of futuresSymbols) {
        const venue = dec.sum(
          this.futuresAccounts.flatMap((a) => a.positions.filter((p) => p.contractName === contract).map((p) => (p.side === 'BUY' ? p.volume : dec.neg(p.volume)))),
        );
        inputs.push({ market: 'futures', name: contract, symbols: [contract], ours: positions.position('futures', contract).quantity, venue });
      }
    }
    const lines = inputs.map((i) => {
      const baselineKey = `baseline:${i.market}:${i.name}`;
      const stored = journal.cursor(baselineKey);
      const line = driftOf({ ...i, baseline: stored as Decimal | undefined, tolerance: tolerance(i.symbols) });
      if (stored === undefined && persistBaselines) journal.setCursor(baselineKey, line.baseline);
      return line;
    });
    this.lastDrift = lines;
    return lines;
  }

  /** Checks drift and acts after its grace period; every act and recovery is logged. */
  watchDrift(symbols: readonly { market: Market; symbol: string }[]): void {
    const lines = this.drift(symbols, true);
    const verdict = this.driftWatch.observe(lines, this.deps.clock.now());
    if (verdict === 'wait') return;
    this.deps.onDrift(verdict, lines.filter((l) => l.beyond));
  }
}

function adoptedOrder(v: VenueOrder, market: Market, clientId: string | undefined, strategyIds: readonly string[], now: number): { intent: PlaceIntent; order: Order } {
  const tag = clientId ? parseClientOrderId(clientId)?.strategyTag : undefined;
  const strategyId = tag && strategyIds.includes(tag) ? tag : ADOPTED;
  const clientOrderId = (clientId ?? `venue-${v.orderId}`) as ClientOrderId;
  const intent: PlaceIntent = {
    kind: 'place',
    intentId: `adopt:${v.orderId}`,
    strategyId,
    clientOrderId,
    market,
    symbol: v.symbol,
    side: v.side,
    type: v.type,
    volume: v.origQty,
    ...(v.price !== undefined ? { price: v.price } : {}),
  };
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
    ...(v.price !== undefined ? { price: v.price } : {}),
  };
  return { intent, order };
}

export { describeDrift };

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
