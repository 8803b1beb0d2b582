// The read ports over the executor, one implementation per market: the account (open orders,
// trades, one order, holdings) and public market data. The only place that knows which
// endpoint and which parameter names each market uses for a read.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { VenueOrderId } from '../core/ids.js';
import type { KlineInterval, SymbolInfo } from '../core/market.js';
import type { AccountReader, Holdings, MarketReader, OpenOrdersPage, TradesPage } from '../core/ports.js';
import { OrderRejectedError } from '../core/errors.js';
import type { Market } from '../core/types.js';
import type { Listing } from '../core/venue.js';
import { VenueCode } from '../exchange/codes.js';
import type { ContractInfo } from '../exchange/codec.js';
import type { Executor } from './executor.js';

/** The page size every venue of the family gives when not asked for more (the notes). */
export const DEFAULT_PAGE = 100;
/** The most any page may hold (the notes: `limit` up to 1000). */
export const MAX_PAGE = 1000;
/**
 * The largest futures trades page every venue of the family accepts: the notes give futures
 * myTrades `limit` a maximum of 1000, and 100 on FameEX, where a venue may refuse a larger
 * `limit` outright (a parameter error every pass, no futures fill ever read) rather than cut the
 * page. Full pages are read on (pageFull), so a venue that would give 1000 costs more requests.
 */
export const FUTURES_TRADES_PAGE = DEFAULT_PAGE;

/**
 * A page proves that what it lacks is gone only when it holds fewer than it could have: fewer
 * than asked, and not exactly the family's default page (a venue that ignores `limit` cuts
 * there). A full page may have been cut anywhere.
 */
export function pageComplete(listing: Listing<unknown>, asked: number): boolean {
  const n = listing.items.length + listing.skipped.length;
  return n < asked && n !== DEFAULT_PAGE;
}

/**
 * A trades page may continue when it reached the smallest page any venue of the family caps at
 * (futures pages of 100 on some venues, whatever `limit` asked): reading on costs one request
 * when it did not.
 */
export function pageFull(listing: Listing<unknown>): boolean {
  return listing.items.length + listing.skipped.length >= DEFAULT_PAGE;
}

/**
 * An open-orders read answered -1112, which the notes' code table gives as "no open orders on the
 * pair": an empty page, not a failed read (a venue answering so for every empty book would
 * otherwise leave every pass incomplete, and the start-up waiting for a complete one for ever).
 */
function noOpenOrders(err: unknown): Listing<never> {
  if (err instanceof OrderRejectedError && err.venue.venueCode === VenueCode.NO_DEPTH) return { items: [], skipped: [] };
  throw err;
}

function add(into: Map<string, Decimal>, name: string, v: Decimal): void {
  into.set(name, dec.add(into.get(name) ?? ZERO, v));
}

class SpotAccount implements AccountReader {
  readonly market = 'spot' as const;
  constructor(private readonly x: Executor) {}

  async openOrders(symbol: string): Promise<OpenOrdersPage> {
    const page = await this.x.call('spot.openOrders', { symbol, limit: MAX_PAGE }).catch(noOpenOrders);
    return { items: page.items, skipped: page.skipped, complete: pageComplete(page, MAX_PAGE) };
  }

  async trades(symbol: string, fromId?: string): Promise<TradesPage> {
    const page = await this.x.call('spot.myTrades', { symbol, fromId, limit: MAX_PAGE });
    return { items: page.items, skipped: page.skipped, full: pageFull(page) };
  }

  order(symbol: string, orderId: VenueOrderId) {
    return this.x.call('spot.queryOrder', { symbol, orderId });
  }

  orderByClientId(symbol: string, clientOrderId: string) {
    return this.x.call('spot.queryOrder', { symbol, newClientOrderId: clientOrderId });
  }

  async holdings(): Promise<Holdings> {
    const { items, skipped } = await this.x.call('spot.account', {});
    const amounts = new Map<string, Decimal>();
    for (const b of items) add(amounts, b.asset, dec.add(b.free, b.locked));
    return { market: 'spot', amounts, unreadable: new Set(skipped.map((s) => s.key ?? '*')), balances: items };
  }
}

class FuturesAccount implements AccountReader {
  readonly market = 'futures' as const;
  constructor(private readonly x: Executor) {}

  async openOrders(symbol: string): Promise<OpenOrdersPage> {
    // The notes give futures openOrders no `limit`: the venue's own page (100) is all there is.
    const page = await this.x.call('futures.openOrders', { contractName: symbol }).catch(noOpenOrders);
    return { items: page.items, skipped: page.skipped, complete: pageComplete(page, DEFAULT_PAGE) };
  }

  async trades(symbol: string, fromId?: string): Promise<TradesPage> {
    const page = await this.x.call('futures.myTrades', { contractName: symbol, fromId, limit: FUTURES_TRADES_PAGE });
    return { items: page.items, skipped: page.skipped, full: pageFull(page) };
  }

  order(symbol: string, orderId: VenueOrderId) {
    return this.x.call('futures.queryOrder', { contractName: symbol, orderId });
  }

  orderByClientId(symbol: string, clientOrderId: string) {
    return this.x.call('futures.queryOrder', { contractName: symbol, clientOrderId });
  }

  async holdings(): Promise<Holdings> {
    const { items, skipped } = await this.x.call('futures.account', {});
    const amounts = new Map<string, Decimal>();
    for (const p of items.flatMap((a) => a.positions)) add(amounts, p.contractName, p.side === 'BUY' ? p.volume : dec.neg(p.volume));
    // A position we could not read makes its contract unknown; a margin account we could not
    // read at all may hold any contract, so then nothing can be trusted.
    const unreadable = new Set(skipped.map((s) => (s.path.includes('positionVos') && s.key ? s.key : '*')));
    const margins = items.map((a) => ({
      coin: a.marginCoin,
      ...(a.available !== undefined ? { available: a.available } : {}),
      ...(a.locked !== undefined ? { locked: a.locked } : {}),
      ...(a.unrealizedPnl !== undefined ? { unrealizedPnl: a.unrealizedPnl } : {}),
      ...(a.realizedPnl !== undefined ? { realizedPnl: a.realizedPnl } : {}),
    }));
    return { market: 'futures', amounts, unreadable, balances: [], margins };
  }
}

class SpotMarket implements MarketReader {
  readonly market = 'spot' as const;
  constructor(private readonly x: Executor) {}
  instruments() {
    return this.x.call('spot.symbols', {});
  }
  ticker(symbol: string) {
    return this.x.call('spot.ticker', { symbol });
  }
  depth(symbol: string, limit?: number) {
    return this.x.call('spot.depth', { symbol, limit });
  }
  trades(symbol: string, limit?: number) {
    return this.x.call('spot.trades', { symbol, limit });
  }
  klines(symbol: string, interval: KlineInterval, limit?: number) {
    // Spot names the hour 60min (the notes: a venue answered 1h with an empty list).
    return this.x.call('spot.klines', { symbol, interval: interval === '1h' ? '60min' : interval, limit });
  }
}

class FuturesMarket implements MarketReader {
  readonly market = 'futures' as const;
  constructor(private readonly x: Executor) {}
  async instruments(): Promise<Listing<SymbolInfo>> {
    const listing = await this.x.call('futures.contracts', {});
    // What sluice cannot trade is left out with the reason: a contract not open for trading, and
    // an inverse one (its PnL is in the base coin, its notional contracts x multiplier in the
    // quote, not x price), which positions and risk would value as linear.
    const cannot = (c: ContractInfo) => (c.status !== 1 ? `not tradable (status ${c.status}; the notes: 1 is tradable)` : c.side === 0 ? 'an inverse contract (side 0): sluice values futures as linear contracts only' : undefined);
    const skipped = [...listing.skipped];
    const items: ContractInfo[] = [];
    for (const c of listing.items) {
      const problem = cannot(c);
      if (problem === undefined) items.push(c);
      else skipped.push({ path: `contracts[${c.symbol}]`, problem, key: c.symbol });
    }
    return {
      skipped,
      items: items.map((c) => ({
        symbol: c.symbol,
        // What one contract is made of (its multiplier's coin: BTC for E-BTC-USDT), else read from the name.
        baseAsset: c.multiplierCoin || (/^[A-Z]+-([A-Z0-9]+)-[A-Z0-9]+$/.exec(c.symbol)?.[1] ?? c.symbol),
        // The contract list names no margin coin: take it from the name (E-BTC-USDT).
        quoteAsset: /-([A-Z0-9]+)$/.exec(c.symbol)?.[1] ?? 'USDT',
        pricePrecision: c.pricePrecision,
        quantityPrecision: c.minOrderVolume.includes('.') ? c.minOrderVolume.split('.')[1]!.length : 0,
        limitVolumeMin: c.minOrderVolume,
        limitPriceMin: ZERO,
        multiplier: c.multiplier,
      })),
    };
  }
  ticker(symbol: string) {
    return this.x.call('futures.ticker', { contractName: symbol });
  }
  depth(symbol: string, limit?: number) {
    return this.x.call('futures.depth', { contractName: symbol, limit });
  }
  trades(): Promise<never> {
    return Promise.reject(new Error(notServed('trades')));
  }
  klines(symbol: string, interval: KlineInterval, limit?: number) {
    // Futures names the hour 1h (the notes: 1h instead of spot's 60min).
    return this.x.call('futures.klines', { contractName: symbol, interval: interval === '60min' ? '1h' : interval, limit });
  }
}

/** Why a futures feed cannot be polled (the notes list no futures public trades). */
export function notServed(kind: 'trades'): string {
  return `futures ${kind} are not served by the venue's REST API; subscribe to ticker, depth or klines`;
}

/** The most a market-data page holds, per kind (the notes: depth 100, trades 1000, klines 300). */
export const FEED_PAGE_MAX = { depth: 100, trades: 1000, klines: 300 } as const;
/**
 * The kline intervals both markets serve (the notes): the hour is 60min on spot and 1h on
 * futures; a strategy may name it either way and each market is asked in its own spelling.
 */
export const KLINE_INTERVALS: readonly KlineInterval[] = ['1min', '5min', '15min', '30min', '60min', '1h', '1day', '1week', '1month'];

/**
 * Why a subscription of `market` cannot be polled as asked, or undefined: a page larger than the
 * venue gives, a warm-up longer than one page holds, an interval the market does not serve.
 */
export function feedProblem(market: Market, s: { kind: string; limit?: number; interval?: KlineInterval; history?: number }): string | undefined {
  if (s.kind !== 'depth' && s.kind !== 'trades' && s.kind !== 'klines') return undefined;
  const max = FEED_PAGE_MAX[s.kind];
  if (s.limit !== undefined && !(Number.isInteger(s.limit) && s.limit >= 1 && s.limit <= max)) return `${s.kind} limit ${s.limit}: the venue gives 1 to ${max} a request; ask for ${max} or fewer`;
  if (s.kind !== 'klines') return undefined;
  if (s.history !== undefined && !(Number.isInteger(s.history) && s.history >= 0 && s.history < max)) {
    return `klines history ${s.history}: one request gives at most ${max} candles, the forming one among them; ask for ${max - 1} or fewer`;
  }
  if (s.interval !== undefined && !KLINE_INTERVALS.includes(s.interval)) return `klines interval ${s.interval}: ${market} serves ${KLINE_INTERVALS.join(', ')}`;
  return undefined;
}

export function accountReaders(executor: Executor): Record<Market, AccountReader> {
  return { spot: new SpotAccount(executor), futures: new FuturesAccount(executor) };
}

export function marketReaders(executor: Executor): Record<Market, MarketReader> {
  return { spot: new SpotMarket(executor), futures: new FuturesMarket(executor) };
}
