// Polls market data once per (market, symbol, subscription) however many strategies want it,
// through the market's read port, so polling is paced by the same limiters as everything else;
// keeps the last price of each symbol (risk's price band and the strategies' lastPrice).
import { amend } from '../core/amend.js';
import { dec, type Decimal } from '../core/decimal.js';
import type { Depth, KlineInterval, Ticker } from '../core/market.js';
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { MarketReader } from '../core/ports.js';
import type { Market } from '../core/types.js';
import type { Candle, MarketEvent, MarketSubscription } from '../strategy/api.js';
import { CandleFeed, candlesChanged } from './candles.js';
import { TradeFeed } from './trade-feed.js';

const key = (market: Market, symbol: string) => `${market}:${symbol}`;

export interface Feed {
  market: Market;
  symbol: string;
  subscription: MarketSubscription;
}

function feedKey(f: Feed): string {
  const s = f.subscription;
  return `${f.market}:${f.symbol}:${s.kind}:${s.kind === 'klines' ? s.interval : ''}`;
}

/** Depth, trades and klines without a `limit` get the venue's default page of 100 (exchange-api-notes.md). */
const VENUE_DEFAULT_PAGE = 100;

const asked = (s: MarketSubscription) => ('limit' in s && s.limit !== undefined ? s.limit : VENUE_DEFAULT_PAGE);

/**
 * Merges subscriptions: one feed per key, with the largest page anyone asked for (no limit
 * means the venue's default) and the shortest period (`everyMs`, else `defaultEveryMs`), which
 * each merged feed then carries.
 */
export function mergeFeeds(feeds: readonly Feed[], defaultEveryMs: number): Feed[] {
  const byKey = new Map<string, Feed>();
  for (const f of feeds) {
    const prev = byKey.get(feedKey(f));
    const everyMs = Math.min(f.subscription.everyMs ?? defaultEveryMs, prev?.subscription.everyMs ?? Infinity);
    const widest = !prev || asked(f.subscription) > asked(prev.subscription) ? f : prev;
    byKey.set(feedKey(f), { ...widest, subscription: amend(widest.subscription, { everyMs }) });
  }
  return [...byKey.values()];
}

/**
 * Venue time now as a lower bound (our clock plus the measured offset, less its error), or
 * undefined while the venue clock is not measured.
 */
export type VenueTimeFloor = (market: Market) => number | undefined;

/** Most trades one waiting event holds: past this, the oldest go and the event says `gap`. */
export const MAX_JOINED_TRADES = 10_000;

/**
 * A feed's event still waiting for a strategy, and a newer one of the same feed: what the
 * strategy hears instead of both. The newer one, except for trades, which are what each poll
 * found new: both polls' trades, oldest first, at most MAX_JOINED_TRADES (the oldest go), with
 * `gap` if either had one or trades went.
 */
export function joinEvents(waiting: MarketEvent, newer: MarketEvent): MarketEvent {
  if (waiting.kind !== 'trades' || newer.kind !== 'trades') return newer;
  const all = [...waiting.trades, ...newer.trades];
  const over = all.length - MAX_JOINED_TRADES;
  const trades = over > 0 ? all.slice(over) : all;
  return waiting.gap || newer.gap || over > 0 ? { kind: 'trades', symbol: newer.symbol, trades, gap: true } : { kind: 'trades', symbol: newer.symbol, trades };
}

/** Depth, trades and ticker of every traded symbol: what a recording needs to replay the market. */
export function recordingFeeds(symbols: readonly { market: Market; symbol: string }[]): Feed[] {
  return symbols.flatMap(({ market, symbol }) => {
    const kinds: MarketSubscription[] = market === 'spot' ? [{ kind: 'depth', limit: 20 }, { kind: 'trades', limit: 100 }, { kind: 'ticker' }] : [{ kind: 'depth', limit: 20 }, { kind: 'ticker' }];
    return kinds.map((subscription) => ({ market, symbol, subscription }));
  });
}

export class MarketDataPoller {
  /** The last price seen per `market:symbol`. */
  readonly lastPrices = new Map<string, Decimal>();
  /** When each last price was read (engine clock, `now`): a price not read again for a while is no longer the market. */
  private readonly lastPricesAt = new Map<string, number>();
  /** The latest event of each feed (by feedKey): strategies read them, and a strategy that starts hears them first. */
  private readonly latestByFeed = new Map<string, MarketEvent>();
  /** Each klines feed's candles as handed on (by feedKey). */
  private readonly candleFeeds = new Map<string, CandleFeed>();
  /** Each trades feed's trades handed on (by feedKey): a page's trades are handed on once. */
  private readonly tradeFeeds = new Map<string, TradeFeed>();

  constructor(
    private readonly readers: Readonly<Record<Market, MarketReader>>,
    private readonly log: Log,
    /** The venue's clock, for whether the newest kline has closed with no newer one beside it. */
    private readonly venueTime: VenueTimeFloor,
    /** The engine clock: when a price was read. */
    private readonly now: () => number,
  ) {}

  lastPrice(market: Market, symbol: string): Decimal | undefined {
    return this.lastPrices.get(key(market, symbol));
  }

  /** When the symbol's last price was read (engine clock), undefined when none was. */
  lastPriceAt(market: Market, symbol: string): number | undefined {
    return this.lastPricesAt.get(key(market, symbol));
  }

  private setPrice(k: string, price: Decimal): void {
    this.lastPrices.set(k, price);
    this.lastPricesAt.set(k, this.now());
  }

  ticker(market: Market, symbol: string): Ticker | undefined {
    const e = this.latest({ market, symbol, subscription: { kind: 'ticker' } });
    return e?.kind === 'ticker' ? e.ticker : undefined;
  }

  depth(market: Market, symbol: string): Depth | undefined {
    const e = this.latest({ market, symbol, subscription: { kind: 'depth' } });
    return e?.kind === 'depth' ? e.depth : undefined;
  }

  klines(market: Market, symbol: string, interval: KlineInterval): readonly Candle[] | undefined {
    const e = this.latest({ market, symbol, subscription: { kind: 'klines', interval } });
    return e?.kind === 'klines' ? e.klines : undefined;
  }

  /** The latest event of a feed, if it was polled. */
  latest(feed: Feed): MarketEvent | undefined {
    return this.latestByFeed.get(feedKey(feed));
  }

  /** Polls each feed once, in order; a feed that fails is logged and the others go on. */
  async poll(feeds: readonly Feed[], deliver: (feed: Feed, event: MarketEvent) => Promise<void>): Promise<void> {
    for (const feed of feeds) {
      let event: MarketEvent | undefined;
      try {
        event = await this.read(feed);
      } catch (err) {
        this.log.warn({ err: errorText(err), symbol: feed.symbol, kind: feed.subscription.kind }, 'market data poll failed');
        continue;
      }
      if (!event) continue;
      const fresh = this.observe(feed.market, event, this.latest(feed));
      // A trades event is what one poll found new: the latest is the last that found any.
      if (fresh || event.kind !== 'trades') this.latestByFeed.set(feedKey(feed), event);
      if (fresh) await deliver(feed, event);
    }
  }

  /** One read of a feed; undefined when the answer is older than one already read (klines). */
  private async read(f: Feed): Promise<MarketEvent | undefined> {
    const reader = this.readers[f.market];
    const s = f.subscription;
    switch (s.kind) {
      case 'ticker':
        return { kind: 'ticker', symbol: f.symbol, ticker: await reader.ticker(f.symbol) };
      case 'depth':
        return { kind: 'depth', symbol: f.symbol, depth: await reader.depth(f.symbol, s.limit) };
      case 'trades': {
        const page = await reader.trades(f.symbol, s.limit);
        const k = feedKey(f);
        let trades = this.tradeFeeds.get(k);
        if (!trades) this.tradeFeeds.set(k, (trades = new TradeFeed()));
        const added = trades.take(page);
        return added.gap ? { kind: 'trades', symbol: f.symbol, trades: added.trades, gap: true } : { kind: 'trades', symbol: f.symbol, trades: added.trades };
      }
      case 'klines': {
        // Taken before the request: the venue answered no earlier than this.
        const venueAsOf = this.venueTime(f.market);
        const klines = await reader.klines(f.symbol, s.interval, s.limit);
        const k = feedKey(f);
        let candles = this.candleFeeds.get(k);
        if (!candles) this.candleFeeds.set(k, (candles = new CandleFeed()));
        const read = candles.read(klines, s.interval, venueAsOf);
        if (read.revised.length > 0) {
          const err = `the venue changed ${read.revised.length} candle(s) after they were handed on closed (open time ${new Date(read.revised[0]!).toISOString()}${read.revised.length > 1 ? ' and more' : ''}); strategies keep the values they were handed`;
          this.log.warn({ err, symbol: f.symbol, interval: s.interval }, 'klines: a closed candle changed');
        }
        return read.candles && { kind: 'klines', symbol: f.symbol, interval: s.interval, klines: read.candles };
      }
    }
  }

  /** Notes the last price; false for klines that changed nothing since `prev` and trades that found none new (not delivered). */
  private observe(market: Market, e: MarketEvent, prev: MarketEvent | undefined): boolean {
    const k = key(market, e.symbol);
    if (e.kind === 'klines') {
      if (e.klines.length > 0) this.setPrice(k, e.klines.at(-1)!.close);
      return candlesChanged(prev?.kind === 'klines' ? prev.klines : undefined, e.klines);
    }
    if (e.kind === 'ticker') this.setPrice(k, e.ticker.last);
    else if (e.kind === 'trades') {
      if (e.trades.length === 0) return false;
      // Oldest first: the last is the latest.
      this.setPrice(k, e.trades.at(-1)!.price);
    } else if (e.kind === 'depth' && e.depth.bids[0] && e.depth.asks[0] && !this.lastPrices.has(k)) {
      this.setPrice(k, dec.div(dec.add(e.depth.bids[0][0], e.depth.asks[0][0]), '2' as Decimal));
    }
    return true;
  }
}

export { feedKey };
