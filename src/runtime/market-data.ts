// Polls market data once per (market, symbol, subscription) however many strategies want it,
// through the executor, so polling is paced by the same limiters as everything else.
import type { Market } from '../core/types.js';
import type { Executor } from '../executor/index.js';
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

/** Which feeds the venue can serve: futures has ticker and depth only. */
export function unsupportedFeed(f: Feed): string | undefined {
  if (f.market === 'futures' && (f.subscription.kind === 'klines' || f.subscription.kind === 'trades')) {
    return `futures ${f.subscription.kind} are not served by the venue's REST API; subscribe to ticker or depth`;
  }
  return undefined;
}

export async function pollFeed(executor: Executor, f: Feed): Promise<MarketEvent> {
  const s = f.subscription;
  if (f.market === 'futures') {
    if (s.kind === 'ticker') return { kind: 'ticker', symbol: f.symbol, ticker: await executor.call('futures.ticker', { contractName: f.symbol }) };
    if (s.kind === 'depth') return { kind: 'depth', symbol: f.symbol, depth: await executor.call('futures.depth', { contractName: f.symbol, limit: s.limit }) };
    throw new Error(unsupportedFeed(f));
  }
  switch (s.kind) {
    case 'ticker':
      return { kind: 'ticker', symbol: f.symbol, ticker: await executor.call('spot.ticker', { symbol: f.symbol }) };
    case 'depth':
      return { kind: 'depth', symbol: f.symbol, depth: await executor.call('spot.depth', { symbol: f.symbol, limit: s.limit }) };
    case 'trades':
      return { kind: 'trades', symbol: f.symbol, trades: await executor.call('spot.trades', { symbol: f.symbol, limit: s.limit }) };
    case 'klines':
      return { kind: 'klines', symbol: f.symbol, interval: s.interval, klines: await executor.call('spot.klines', { symbol: f.symbol, interval: s.interval, limit: s.limit }) };
  }
}

export { feedKey };
