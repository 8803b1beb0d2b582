// The klines answers of a tape as market events: the venue's candles, which a backtest's
// simulator serves for the time before its own (sim/recorded-klines.ts). A daemon polls its
// klines every few seconds and each answer repeats up to 300 candles, so an answer's event holds
// only the candles no earlier answer of its symbol and interval held as they are: a new candle,
// or one that changed (the forming one, or one the venue revised).
import type { Kline } from '../core/market.js';
import type { Market } from '../core/types.js';
import { decodeResponse } from '../exchange/codec.js';
import { parseJsonLossless } from '../exchange/json.js';
import type { RecordedMarketEvent } from '../sim/types.js';

/** Candles remembered per symbol and interval: past this, the oldest are forgotten (an answer holds at most 300). */
const REMEMBERED = 1000;

export class KlineMemory {
  /** By `market symbol interval`: each candle's values as last seen, by open time. */
  private readonly seen = new Map<string, Map<number, string>>();

  /** The event of one spot or futures klines answer (its request's query and its body), or none when it holds nothing new. */
  events(market: Market, symbol: string, query: string, body: string): RecordedMarketEvent[] {
    const interval = new URLSearchParams(query).get('interval');
    if (!interval) return [];
    const k = `${market} ${symbol} ${interval}`;
    let seen = this.seen.get(k);
    if (!seen) this.seen.set(k, (seen = new Map()));
    const fresh: Kline[] = [];
    for (const c of [...decodeResponse(market === 'spot' ? 'spot.klines' : 'futures.klines', parseJsonLossless(body))].sort((a, b) => a.openTime - b.openTime)) {
      const values = `${c.open} ${c.high} ${c.low} ${c.close} ${c.vol}`;
      if (seen.get(c.openTime) === values) continue;
      seen.set(c.openTime, values);
      fresh.push(c);
    }
    if (seen.size > REMEMBERED) for (const t of [...seen.keys()].sort((a, b) => a - b).slice(0, seen.size - REMEMBERED)) seen.delete(t);
    return fresh.length === 0 ? [] : [{ type: 'klines', symbol, interval, klines: fresh }];
  }
}
