// Polls market data once per (market, symbol, subscription) however many strategies want it,
// through the market's read port, so polling is paced by the same limiters as everything else;
// keeps the last price of each symbol (risk's price band and the strategies' lastPrice).
import { dec, type Decimal } from '../core/decimal.js';
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { MarketReader } from '../core/ports.js';
import type { Market } from '../core/types.js';
import type { MarketEvent, MarketSubscription } from '../strategy/api.js';

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

/** Merges subscriptions: one feed per key, with the largest page anyone asked for (no limit means the venue's default). */
export function mergeFeeds(feeds: readonly Feed[]): Feed[] {
  const byKey = new Map<string, Feed>();
  for (const f of feeds) {
    const prev = byKey.get(feedKey(f));
    if (!prev || asked(f.subscription) > asked(prev.subscription)) byKey.set(feedKey(f), f);
  }
  return [...byKey.values()];
}

export async function pollFeed(reader: MarketReader, f: Feed): Promise<MarketEvent> {
  const s = f.subscription;
  switch (s.kind) {
    case 'ticker':
      return { kind: 'ticker', symbol: f.symbol, ticker: await reader.ticker(f.symbol) };
    case 'depth':
      return { kind: 'depth', symbol: f.symbol, depth: await reader.depth(f.symbol, s.limit) };
    case 'trades':
      return { kind: 'trades', symbol: f.symbol, trades: await reader.trades(f.symbol, s.limit) };
    case 'klines':
      return { kind: 'klines', symbol: f.symbol, interval: s.interval, klines: await reader.klines(f.symbol, s.interval, s.limit) };
  }
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

  constructor(
    private readonly readers: Readonly<Record<Market, MarketReader>>,
    private readonly log: Log,
  ) {}

  lastPrice(market: Market, symbol: string): Decimal | undefined {
    return this.lastPrices.get(key(market, symbol));
  }

  /** Polls each feed once, in order; a feed that fails is logged and the others go on. */
  async poll(feeds: readonly Feed[], deliver: (feed: Feed, event: MarketEvent) => Promise<void>): Promise<void> {
    for (const feed of feeds) {
      let event: MarketEvent;
      try {
        event = await pollFeed(this.readers[feed.market], feed);
      } catch (err) {
        this.log.warn({ err: errorText(err), symbol: feed.symbol, kind: feed.subscription.kind }, 'market data poll failed');
        continue;
      }
      this.observe(feed.market, event);
      await deliver(feed, event);
    }
  }

  private observe(market: Market, e: MarketEvent): void {
    const k = key(market, e.symbol);
    if (e.kind === 'ticker') this.lastPrices.set(k, e.ticker.last);
    else if (e.kind === 'trades' && e.trades.length > 0) this.lastPrices.set(k, [...e.trades].sort((a, b) => a.time - b.time).at(-1)!.price);
    else if (e.kind === 'klines' && e.klines.length > 0) this.lastPrices.set(k, [...e.klines].sort((a, b) => a.openTime - b.openTime).at(-1)!.close);
    else if (e.kind === 'depth' && e.depth.bids[0] && e.depth.asks[0] && !this.lastPrices.has(k)) {
      this.lastPrices.set(k, dec.div(dec.add(e.depth.bids[0][0], e.depth.asks[0][0]), '2' as Decimal));
    }
  }
}

export { feedKey };
