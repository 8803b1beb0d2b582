// Market data from a tape, as events the simulator can apply: what a backtest replays. Each
// event is stamped with the local time its answer arrived (at + ms), the moment the recorded
// run could first have acted on it.
import type { Market } from '../core/types.js';
import { decodeResponse } from '../exchange/codec.js';
import { endpointFor, type EndpointId } from '../exchange/endpoints.js';
import { parseJsonLossless } from '../exchange/json.js';
import type { MarketEvent } from '../sim/exchange.js';
import type { TapeCall } from './format.js';

export interface TapeMarketEvent {
  /** Local epoch ms the recorded answer arrived. */
  at: number;
  market: Market;
  event: MarketEvent;
}

const MARKET_DATA: ReadonlySet<EndpointId> = new Set(['spot.depth', 'futures.depth', 'spot.ticker', 'futures.ticker', 'spot.trades']);

/**
 * Turns the successful market-data answers of a tape (depth, ticker, trades; spot and
 * futures) into time-ordered events: a `book` per depth, a `ticker` per ticker, and one
 * `trade` per public trade not seen in an earlier answer (polls overlap).
 */
export function marketEvents(calls: Iterable<TapeCall>): TapeMarketEvent[] {
  const ordered = [...calls].sort((a, b) => a.at + a.ms - (b.at + b.ms) || a.seq - b.seq);
  const seen = new Map<string, TradeMemory>();
  const out: TapeMarketEvent[] = [];
  for (const call of ordered) {
    if (!('response' in call) || call.response.status < 200 || call.response.status > 299) continue;
    const endpoint = call.endpoint ?? endpointFor(call.request.method, call.request.path)?.id;
    if (!endpoint || !MARKET_DATA.has(endpoint)) continue;
    const query = new URLSearchParams(call.request.query);
    const symbol = (call.market === 'spot' ? query.get('symbol') : query.get('contractName'))?.toUpperCase();
    if (!symbol) continue;
    let raw: unknown;
    let events: MarketEvent[];
    try {
      raw = parseJsonLossless(call.response.body);
      events = toEvents(endpoint, symbol, raw, seen);
    } catch {
      // The live run got this broken answer too and dropped it (MalformedResponseError);
      // the backtest drops it the same way rather than stopping.
      continue;
    }
    const at = call.at + call.ms;
    for (const event of events) out.push({ at, market: call.market, event });
  }
  return out;
}

interface TradeMemory {
  ids: Set<string>;
  /** Trades without an id: how many with this time|price|qty any single answer held. */
  counts: Map<string, number>;
}

function toEvents(endpoint: EndpointId, symbol: string, raw: unknown, seen: Map<string, TradeMemory>): MarketEvent[] {
  switch (endpoint) {
    case 'spot.depth':
    case 'futures.depth': {
      const d = decodeResponse(endpoint, raw);
      return [{ type: 'book', symbol, bids: d.bids, asks: d.asks }];
    }
    case 'spot.ticker':
    case 'futures.ticker':
      return [{ type: 'ticker', symbol, last: decodeResponse(endpoint, raw).last }];
    case 'spot.trades': {
      const trades = decodeResponse(endpoint, raw);
      // The decoder drops the venue's trade id; read it from the raw items, same positions.
      const items = rawList(raw);
      const memory = seen.get(`spot ${symbol}`) ?? { ids: new Set<string>(), counts: new Map<string, number>() };
      seen.set(`spot ${symbol}`, memory);
      const fresh: typeof trades = [];
      const inThisAnswer = new Map<string, number>();
      trades.forEach((t, i) => {
        const id = tradeId(items[i]);
        if (id !== undefined) {
          if (!memory.ids.has(id)) fresh.push(t);
          memory.ids.add(id);
          return;
        }
        // Without ids, two identical trades in one answer are two trades; one seen in an
        // earlier answer is the same trade again. So count per answer and emit the excess.
        const key = `${t.time}|${t.price}|${t.qty}`;
        const n = (inThisAnswer.get(key) ?? 0) + 1;
        inThisAnswer.set(key, n);
        if (n > (memory.counts.get(key) ?? 0)) fresh.push(t);
      });
      for (const [key, n] of inThisAnswer) memory.counts.set(key, Math.max(n, memory.counts.get(key) ?? 0));
      // Events go in the order the trades happened; venues usually list the newest first,
      // which also orders trades of the same millisecond.
      const newestFirst = trades.length < 2 || trades[0]!.time >= trades[trades.length - 1]!.time;
      return (newestFirst ? fresh.reverse() : fresh)
        .sort((a, b) => a.time - b.time)
        .map((t) => ({ type: 'trade', symbol, price: t.price, qty: t.qty, side: t.side }));
    }
    default:
      return [];
  }
}

/** The list inside an answer, bare, as {list}, or in a {code:"0",data} envelope. */
function rawList(raw: unknown): unknown[] {
  let v = raw;
  if (isObj(v) && (v.code === '0' || v.code === 0) && 'data' in v) v = v.data;
  if (Array.isArray(v)) return v;
  if (isObj(v) && Array.isArray(v.list)) return v.list;
  return [];
}

function tradeId(item: unknown): string | undefined {
  if (!isObj(item)) return undefined;
  const id = item.id ?? item.tradeId;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
