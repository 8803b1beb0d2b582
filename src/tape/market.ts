// Market data from a tape, as events the simulator can apply: what a backtest replays. Each
// event is stamped with the local time its answer arrived (at + ms), the moment the recorded
// run could first have acted on it.
import type { Market } from '../core/types.js';
import { decodeResponse } from '../exchange/codec.js';
import { endpointFor, type EndpointId } from '../exchange/endpoints.js';
import { parseJsonLossless } from '../exchange/json.js';
import type { RecordedMarketEvent } from '../sim/types.js';
import { fastDepth, fastTickerLast, fastTrades, quickDepth, quickTrades, rawList, tradeId, type Trade } from './fast.js';
import type { TapeCall } from './format.js';
import { KlineMemory } from './klines.js';
import { OWN_ORDER_ENDPOINTS, OwnOrders } from './own-orders.js';

export interface TapeMarketEvent {
  /** Local epoch ms the recorded answer arrived. */
  at: number;
  market: Market;
  event: RecordedMarketEvent;
}

const MARKET_DATA: ReadonlySet<EndpointId> = new Set(['spot.depth', 'futures.depth', 'spot.ticker', 'futures.ticker', 'spot.trades', 'spot.klines', 'futures.klines']);

/**
 * Turns the successful market-data answers of a tape (depth, ticker, trades, klines; spot and
 * futures) into time-ordered events: a `book` per depth, a `ticker` per ticker, one `trade` per
 * public trade not seen in an earlier answer (polls overlap), and a `klines` of the candles an
 * answer holds that no earlier one held as they are (klines.ts).
 */
export function marketEvents(calls: Iterable<TapeCall>): TapeMarketEvent[] {
  const decoder = new MarketDecoder();
  const out: TapeMarketEvent[] = [];
  for (const call of [...calls].sort(byArrival)) for (const e of decoder.decode(call)) out.push(e);
  return out;
}

const arrival = (c: TapeCall) => c.at + c.ms;
const byArrival = (a: TapeCall, b: TapeCall) => arrival(a) - arrival(b) || a.seq - b.seq;

/**
 * How far out of arrival order a tape's lines may be. Lines are written as answers arrive, so
 * only answers of the same millisecond (or a local clock stepped back) come out of order.
 */
export const REORDER_MS = 10_000;

/**
 * marketEvents() for a tape read as a stream: the same events in the same order, one answer's
 * events per batch, holding only the last REORDER_MS of calls. A line later than that is
 * applied when it is read (its events are stamped with the time already reached).
 */
export async function* streamMarketEvents(calls: AsyncIterable<TapeCall>, reorderMs = REORDER_MS): AsyncGenerator<TapeMarketEvent[]> {
  const decoder = new MarketDecoder();
  // Sorted by arrival; lines come nearly in order, so inserting from the end is cheap.
  const held: TapeCall[] = [];
  let latest = -Infinity;
  let reached = -Infinity;
  const release = (c: TapeCall): TapeMarketEvent[] => {
    const events = decoder.decode(c);
    if (events.length === 0) return events;
    if (events[0]!.at < reached) for (const e of events) e.at = reached;
    reached = events[0]!.at;
    return events;
  };
  for await (const c of calls) {
    if (!isMarketData(c)) continue;
    let i = held.length;
    while (i > 0 && byArrival(held[i - 1]!, c) > 0) i--;
    held.splice(i, 0, c);
    latest = Math.max(latest, arrival(c));
    while (held.length > 0 && arrival(held[0]!) < latest - reorderMs) {
      const events = release(held.shift()!);
      if (events.length > 0) yield events;
    }
  }
  for (const c of held) {
    const events = release(c);
    if (events.length > 0) yield events;
  }
}

/** Cheap pre-filter: answers that can hold market data (the decoder checks the rest). */
function isMarketData(c: TapeCall): boolean {
  if (!('response' in c) || c.response.status < 200 || c.response.status > 299) return false;
  const endpoint = c.endpoint ?? endpointFor(c.request.method, c.request.path)?.id;
  return endpoint !== undefined && (MARKET_DATA.has(endpoint) || OWN_ORDER_ENDPOINTS.has(endpoint));
}

interface TradeMemory {
  /** Venue trade id -> trade time. */
  ids: Map<string, number>;
  /** Trades without an id, by time (a number key: no string to build per trade). */
  byTime: Map<number, Twins[]>;
  /** Answers decoded so far: tells which answer Twins.inAnswer counts for. */
  answers: number;
  /** The oldest trade time of each of the last answers: what is older may be forgotten. */
  oldest: number[];
  /** Size after the last pruning: prune again when it has doubled. */
  kept: number;
  /** The last answer, when it took the fast path: the next one parses only what is new. */
  last?: LastAnswer;
}

interface LastAnswer {
  text: string;
  items: Trade[];
  /** Where each item ends, counted from the character after the opening bracket. */
  ends: number[];
  hasIds: boolean;
}

/** Trades without an id that share time, price, quantity and side (engine/trade-feed.ts knows a trade by the same four). */
interface Twins {
  price: string;
  qty: string;
  side: string;
  /** The most any single answer held. */
  most: number;
  /** How many the answer numbered `answer` held so far. */
  inAnswer: number;
  answer: number;
}

/** Answers a trade must be older than all of before it is forgotten (polls overlap by a few). */
const TRADE_MEMORY_ANSWERS = 16;

/** Decodes answers in arrival order; remembers the trades seen so overlapping polls count once. */
class MarketDecoder {
  private readonly seen = new Map<string, TradeMemory>();
  private readonly klines = new KlineMemory();
  private readonly symbols = new Map<string, string | undefined>();
  /** The recording account's resting orders, taken out of each depth (own-orders.ts). */
  private readonly own = new OwnOrders();

  decode(call: TapeCall): TapeMarketEvent[] {
    if (!('response' in call) || call.response.status < 200 || call.response.status > 299) return [];
    const endpoint = call.endpoint ?? endpointFor(call.request.method, call.request.path)?.id;
    if (!endpoint) return [];
    if (!MARKET_DATA.has(endpoint)) {
      if (OWN_ORDER_ENDPOINTS.has(endpoint)) {
        try {
          this.own.observe(call, endpoint);
        } catch {
          // An answer the live client could not read either: it tells nothing about the book.
        }
      }
      return [];
    }
    const symbol = this.symbol(call.market, call.request.query);
    if (!symbol) return [];
    let events: RecordedMarketEvent[];
    try {
      events = endpoint === 'spot.klines' || endpoint === 'futures.klines' ? this.klines.events(call.market, symbol, call.request.query, call.response.body) : this.toEvents(call.market, endpoint, symbol, call.response.body);
    } catch {
      // The live run got this broken answer too and dropped it (MalformedResponseError);
      // the backtest drops it the same way rather than stopping.
      return [];
    }
    const at = call.at + call.ms;
    return events.map((event) => ({ at, market: call.market, event }));
  }

  /** The symbol a query names, cached: a tape repeats a handful of queries. */
  private symbol(market: Market, query: string): string | undefined {
    const k = `${market}?${query}`;
    if (this.symbols.has(k)) return this.symbols.get(k);
    const q = new URLSearchParams(query);
    const symbol = (market === 'spot' ? q.get('symbol') : q.get('contractName'))?.toUpperCase();
    if (this.symbols.size < 10_000) this.symbols.set(k, symbol);
    return symbol;
  }

  private toEvents(market: Market, endpoint: EndpointId, symbol: string, body: string): RecordedMarketEvent[] {
    if (endpoint === 'spot.trades') return this.trades(symbol, body);
    const quick = endpoint === 'spot.depth' || endpoint === 'futures.depth' ? quickDepth(body) : undefined;
    if (quick) return [this.book(market, symbol, quick.bids, quick.asks)];
    const raw = parseBody(body);
    switch (endpoint) {
      case 'spot.depth':
      case 'futures.depth': {
        const d = fastDepth(raw) ?? decodeResponse(endpoint, raw);
        return [this.book(market, symbol, d.bids, d.asks)];
      }
      case 'spot.ticker':
      case 'futures.ticker':
        return [{ type: 'ticker', symbol, last: fastTickerLast(raw) ?? decodeResponse(endpoint, raw).last }];
      default:
        return [];
    }
  }

  /** A depth as other traders' size: the recording account's own resting orders taken out. */
  private book(market: Market, symbol: string, bids: ReadonlyArray<readonly [string, string]>, asks: ReadonlyArray<readonly [string, string]>): RecordedMarketEvent {
    return { type: 'book', symbol, bids: this.own.strip(market, symbol, 'BUY', bids), asks: this.own.strip(market, symbol, 'SELL', asks) };
  }

  private trades(symbol: string, body: string): RecordedMarketEvent[] {
    const k = `spot ${symbol}`;
    let memory = this.seen.get(k);
    if (!memory) this.seen.set(k, (memory = { ids: new Map(), byTime: new Map(), answers: 0, oldest: [], kept: 0 }));
    const reused = reuseLast(memory.last, body);
    let quick: ReturnType<typeof quickTrades>;
    let trades: Trade[];
    let items: unknown[];
    // Trades [skipFrom, end) were all in the last answer and are newer than none of the new
    // ones: none is fresh and none changes the memory, so the loop below may pass them by.
    let skipFrom: number;
    if (reused) {
      trades = items = reused.items;
      const newest = Math.min(...trades.slice(0, reused.added).map((t) => t.time));
      skipFrom = !reused.hasIds && newest > Math.max(...trades.slice(reused.added).map((t) => t.time)) ? reused.added : trades.length;
      memory.last = { text: body, items: trades, ends: reused.ends, hasIds: reused.hasIds };
    } else if ((quick = body.length >= 2 && body[0] === '[' && body[body.length - 1] === ']' ? quickTrades(body, 1, body.length - 1) : undefined)) {
      trades = items = quick.items;
      skipFrom = trades.length;
      memory.last = { text: body, items: trades, ends: quick.ends, hasIds: false };
    } else {
      const scan = body.length >= 2 && body[0] === '[' && body[body.length - 1] === ']' ? scanItems(body, 1, body.length - 1) : undefined;
      const raw = scan && !scan.long ? (JSON.parse(body) as unknown) : parseJsonLossless(body);
      const fast = fastTrades(raw);
      trades = fast ?? decodeResponse('spot.trades', raw);
      // The decoder drops the venue's trade id; read it from the raw items, same positions.
      items = rawList(raw);
      skipFrom = trades.length;
      memory.last = fast && scan && !scan.long && fast.length === scan.ends.length ? { text: body, items: fast, ends: scan.ends, hasIds: fast.some((t) => tradeId(t) !== undefined) } : undefined;
    }
    const answer = ++memory.answers;
    const fresh: typeof trades = [];
    let oldest = Infinity;
    for (let i = skipFrom; i < trades.length; i++) if (trades[i]!.time < oldest) oldest = trades[i]!.time;
    for (let i = 0; i < skipFrom; i++) {
      const t = trades[i]!;
      if (t.time < oldest) oldest = t.time;
      const id = tradeId(items[i]);
      if (id !== undefined) {
        if (!memory.ids.has(id)) fresh.push(t);
        memory.ids.set(id, t.time);
        continue;
      }
      // Without ids, two identical trades in one answer are two trades; one seen in an
      // earlier answer is the same trade again. So count per answer and emit the excess
      // over the most any earlier answer held (`most` catches up as the count passes it).
      let list = memory.byTime.get(t.time);
      if (!list) memory.byTime.set(t.time, (list = []));
      let twins = list.find((x) => x.price === t.price && x.qty === t.qty && x.side === t.side);
      if (!twins) list.push((twins = { price: t.price, qty: t.qty, side: t.side, most: 0, inAnswer: 0, answer }));
      if (twins.answer !== answer) {
        twins.answer = answer;
        twins.inAnswer = 0;
      }
      if (++twins.inAnswer > twins.most) {
        twins.most = twins.inAnswer;
        fresh.push(t);
      }
    }
    if (trades.length > 0) forgetOld(memory, oldest);
    // Events go in the order the trades happened; venues usually list the newest first,
    // which also orders trades of the same millisecond.
    const newestFirst = trades.length < 2 || trades[0]!.time >= trades[trades.length - 1]!.time;
    return (newestFirst ? fresh.reverse() : fresh)
      .sort((a, b) => a.time - b.time)
      .map((t) => ({ type: 'trade', symbol, price: t.price, qty: t.qty, side: t.side }));
  }
}

/**
 * Keeps the trade memory as small as the polls' overlap. A venue lists its latest trades, so
 * a trade older than every one of the last TRADE_MEMORY_ANSWERS answers cannot come back;
 * without this a 24-hour tape would remember every trade of the day.
 */
function forgetOld(memory: TradeMemory, oldest: number): void {
  memory.oldest.push(oldest);
  if (memory.oldest.length > TRADE_MEMORY_ANSWERS) memory.oldest.shift();
  if (memory.ids.size + memory.byTime.size < 2 * memory.kept + 256) return;
  const floor = Math.min(...memory.oldest);
  for (const [id, time] of memory.ids) if (time < floor) memory.ids.delete(id);
  for (const time of memory.byTime.keys()) if (time < floor) memory.byTime.delete(time);
  memory.kept = memory.ids.size + memory.byTime.size;
}

/**
 * Polls of a venue's latest trades overlap: an answer is usually some new trades followed by
 * the first ones of the last answer, written the same way. When the text shows exactly that
 * (the tail is the last answer's text up to one of its item boundaries), only the new part
 * is parsed and the rest is the last answer's items, which parsing the whole would give
 * again. Anything else (other spacing, a change in an old trade) parses the whole answer.
 */
function reuseLast(last: LastAnswer | undefined, body: string): { items: Trade[]; added: number; ends: number[]; hasIds: boolean } | undefined {
  if (!last || last.items.length === 0 || body.length < 2 || body[0] !== '[' || body[body.length - 1] !== ']') return undefined;
  const prefix = last.text.slice(1, 1 + last.ends[0]!);
  for (let p = body.indexOf(prefix, Math.max(1, body.length - last.text.length)); p > 0; p = body.indexOf(prefix, p + 1)) {
    if (p > 1 && body[p - 1] !== ',') continue;
    const kept = last.ends.indexOf(body.length - 1 - p);
    // Equality of two slices compares memory; startsWith would go character by character.
    if (kept < 0 || body.slice(p, body.length - 1) !== last.text.slice(1, 1 + last.ends[kept]!)) continue;
    const fresh = p > 1 ? (quickTrades(body, 1, p - 1) ?? parsedTrades(body, 1, p - 1)) : { items: [], ends: [] };
    // "[,..." is no JSON: the whole answer goes to the parser to fail there.
    if (!fresh || (p > 1 && fresh.ends.length === 0)) return undefined;
    const added = fresh.items;
    const shift = p - 1;
    const ends = [...fresh.ends, ...last.ends.slice(0, kept + 1).map((e) => e + shift)];
    return { items: [...added, ...last.items.slice(0, kept + 1)], added: added.length, ends, hasIds: last.hasIds || added.some((t) => tradeId(t) !== undefined) };
  }
  return undefined;
}

/** The trades of text[from, to) (an array's inside) parsed, for the fast path to read; undefined unless every item passes it. */
function parsedTrades(text: string, from: number, to: number): { items: Trade[]; ends: number[] } | undefined {
  const scan = scanItems(text, from, to);
  if (!scan || scan.long) return undefined;
  const items = fastTrades(JSON.parse(`[${text.slice(from, to)}]`));
  return items && items.length === scan.ends.length ? { items, ends: scan.ends } : undefined;
}

/**
 * Reads JSON text[from, to) without parsing it: where each top-level item ends (the commas
 * of an array's inside), and whether a number literal has more than 15 digits, the only
 * thing that makes parseJsonLossless differ from JSON.parse (counted as it counts them).
 * Strings are skipped with indexOf. Undefined when brackets or quotes do not balance.
 */
function scanItems(text: string, from: number, to: number): { ends: number[]; long: boolean } | undefined {
  const ends: number[] = [];
  let depth = 0;
  let long = false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i;
      do j = text.indexOf('"', j + 1);
      while (j > 0 && j < to && escaped(text, j));
      if (j < 0 || j >= to) return undefined;
      i = j;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let digits = 0;
      let k = i;
      for (; k < to; k++) {
        const d = text.charCodeAt(k);
        if (d >= 0x30 && d <= 0x39) digits++;
        else if (d !== 0x2e && d !== 0x65 && d !== 0x45 && d !== 0x2b && d !== 0x2d) break; // . e E + -
      }
      if (digits > 15) long = true;
      i = k - 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth < 0) return undefined;
    } else if (c === 0x2c /* , */ && depth === 0) ends.push(i - from);
  }
  if (depth !== 0) return undefined;
  if (to > from) ends.push(to - from);
  return { ends, long };
}

/** Whether the quote at `at` is escaped (an odd number of backslashes before it). */
function escaped(text: string, at: number): boolean {
  let n = 0;
  while (text.charCodeAt(at - 1 - n) === 0x5c) n++;
  return n % 2 === 1;
}

/** parseJsonLossless, with JSON.parse straight away when no number literal is long. */
function parseBody(text: string): unknown {
  const scan = scanItems(text, 0, text.length);
  return scan && !scan.long ? JSON.parse(text) : parseJsonLossless(text);
}
