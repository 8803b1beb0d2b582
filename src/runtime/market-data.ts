// Polls market data once per (market, symbol, subscription) however many strategies want it,
// through the market's read port, so polling is paced by the same limiters as everything else.
import type { MarketReader } from '../core/ports.js';
import type { Market } from '../core/types.js';
import type { MarketEvent, MarketSubscription } from '../strategy/api.js';

export interface Feed {
  market: Market;
  symbol: string;
  subscription: MarketSubscription;
}

function feedKey(f: Feed): string {
  const s = f.subscription;
  return `${f.market}:${f.symbol}:${s.kind}:${s.kind === 'klines' ? s.interval : ''}`;
}

/** Merges subscriptions: one feed per key, with the largest `limit` anyone asked for. */
export function mergeFeeds(feeds: readonly Feed[]): Feed[] {
  const byKey = new Map<string, Feed>();
  for (const f of feeds) {
    const prev = byKey.get(feedKey(f));
    if (!prev) {
      byKey.set(feedKey(f), f);
      continue;
    }
    const a = 'limit' in prev.subscription ? (prev.subscription.limit ?? 0) : 0;
    const b = 'limit' in f.subscription ? (f.subscription.limit ?? 0) : 0;
    if (b > a) byKey.set(feedKey(f), f);
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

export { feedKey };
