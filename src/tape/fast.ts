// Fast paths for the common shape of each market-data answer. Each returns exactly what the
// codec would, or undefined for anything else (a number for a price, an envelope, a stray
// space, a bad item), which then goes through decodeResponse and fails or passes as before.
//
// The quick readers go further for the exact text the simulator and the venues write
// ({"price":"…","qty":"…","time":…,"side":"…"} items, {"time":…,"bids":[["…","…"],…],"asks":…}):
// they read it in one pass with indexOf, never building what JSON.parse builds, and give what
// JSON.parse and the fast path would. Parsing answers was most of decoding a tape.


/** A decimal string already in canonical form (the codec would return it unchanged). */
const CANONICAL = /^(?:0|[1-9]\d{0,19})(?:\.\d{0,19}[1-9])?$/;
export const canonical = (v: unknown): v is string => typeof v === 'string' && CANONICAL.test(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

export type Level = readonly [string, string];

export function fastDepth(raw: unknown): { bids: Level[]; asks: Level[] } | undefined {
  if (!isObj(raw) || raw.code !== undefined || (raw.time !== undefined && !isInt(raw.time))) return undefined;
  const bids = fastLevels(raw.bids);
  const asks = bids && fastLevels(raw.asks);
  return asks ? { bids: bids!, asks } : undefined;
}

function fastLevels(list: unknown): Level[] | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const lvl of list) {
    if (!Array.isArray(lvl) || lvl.length !== 2 || !canonical(lvl[0]) || !canonical(lvl[1])) return undefined;
  }
  return list as Level[];
}

const SIGNED = /^[-+]?\d{1,20}(?:\.\d{1,20})?$/;

export function fastTickerLast(raw: unknown): string | undefined {
  if (!isObj(raw) || raw.code !== undefined) return undefined;
  const { high, low, last, vol, buy, sell, rose, time } = raw;
  if (!canonical(high) || !canonical(low) || !canonical(last) || !canonical(vol) || !canonical(buy) || !canonical(sell) || !isInt(time)) return undefined;
  if (rose !== undefined && rose !== null && rose !== '' && !(typeof rose === 'string' && SIGNED.test(rose))) return undefined;
  return last;
}

export interface Trade {
  price: string;
  qty: string;
  time: number;
  side: 'BUY' | 'SELL';
}

export function fastTrades(raw: unknown): Trade[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  for (const t of raw) {
    if (!isObj(t) || !canonical(t.price) || !canonical(t.qty) || !isInt(t.time) || (t.side !== 'BUY' && t.side !== 'SELL')) return undefined;
  }
  return raw as Trade[];
}

/** The list inside an answer, bare, as {list}, or in a {code:"0",data} envelope. */
export function rawList(raw: unknown): unknown[] {
  let v = raw;
  if (isObj(v) && (v.code === '0' || v.code === 0) && 'data' in v) v = v.data;
  if (Array.isArray(v)) return v;
  if (isObj(v) && Array.isArray(v.list)) return v.list;
  return [];
}

export function tradeId(item: unknown): string | undefined {
  if (!isObj(item)) return undefined;
  const id = item.id ?? item.tradeId;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

export const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

// ---------- reading the exact text without JSON.parse ----------

/**
 * Whether text[from, to) is in CANONICAL's language (20 digits at most before the point, 1 to
 * 20 after it ending in non-zero). Read in place: a regex on a slice costs more than the rest
 * of a trade.
 */
function plainAt(text: string, from: number, to: number): boolean {
  let i = from;
  const first = text.charCodeAt(i);
  if (first === 0x30 /* 0 */) i++;
  else if (first > 0x30 && first <= 0x39) while (i < to && isDigit(text.charCodeAt(i))) i++;
  else return false;
  if (i - from > 20) return false;
  if (i === to) return true;
  if (text.charCodeAt(i) !== 0x2e /* . */) return false;
  const fraction = ++i;
  while (i < to && isDigit(text.charCodeAt(i))) i++;
  return i === to && i > fraction && i - fraction <= 20 && text.charCodeAt(i - 1) !== 0x30;
}

/**
 * The value of text[from, to) when it is a JSON integer of at most 15 digits (more:
 * parseJsonLossless makes it a string), read as its digits go by; -1 for anything else.
 */
function integerAt(text: string, from: number, to: number): number {
  if (to <= from || to - from > 15 || (text.charCodeAt(from) === 0x30 && to > from + 1)) return -1;
  let value = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c)) return -1;
    value = value * 10 + (c - 0x30);
  }
  return value;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const TRADE_OPEN = '{"price":"';
const TRADE_QTY = '","qty":"';
const TRADE_TIME = '","time":';
const TRADE_SIDE = ',"side":"';

/**
 * The trade items of text[from, to) (an array's inside) when every one is written exactly as
 * {"price":"P","qty":"Q","time":T,"side":"BUY|SELL"} with canonical P and Q: the items, and
 * where each ends (as scanItems gives it). Undefined for anything else.
 */
export function quickTrades(text: string, from: number, to: number): { items: Trade[]; ends: number[] } | undefined {
  const items: Trade[] = [];
  const ends: number[] = [];
  for (let i = from; i < to; ) {
    if (!text.startsWith(TRADE_OPEN, i)) return undefined;
    const priceAt = i + TRADE_OPEN.length;
    const priceEnd = text.indexOf('"', priceAt);
    if (priceEnd < 0 || !text.startsWith(TRADE_QTY, priceEnd)) return undefined;
    const qtyAt = priceEnd + TRADE_QTY.length;
    const qtyEnd = text.indexOf('"', qtyAt);
    if (qtyEnd < 0 || !text.startsWith(TRADE_TIME, qtyEnd)) return undefined;
    const timeAt = qtyEnd + TRADE_TIME.length;
    const timeEnd = text.indexOf(',', timeAt);
    if (timeEnd < 0 || !text.startsWith(TRADE_SIDE, timeEnd)) return undefined;
    const time = integerAt(text, timeAt, timeEnd);
    if (time < 0) return undefined;
    const sideAt = timeEnd + TRADE_SIDE.length;
    const sideFirst = text.charCodeAt(sideAt);
    const side = sideFirst === 0x42 /* B */ && text.startsWith('BUY"}', sideAt) ? 'BUY' : sideFirst === 0x53 /* S */ && text.startsWith('SELL"}', sideAt) ? 'SELL' : undefined;
    if (!side) return undefined;
    const end = sideAt + side.length + 2;
    if (end > to || !plainAt(text, priceAt, priceEnd) || !plainAt(text, qtyAt, qtyEnd)) return undefined;
    items.push({ price: text.slice(priceAt, priceEnd), qty: text.slice(qtyAt, qtyEnd), time, side });
    ends.push(end - from);
    if (end === to) break;
    if (text.charCodeAt(end) !== 0x2c /* , */ || end + 1 === to) return undefined;
    i = end + 1;
  }
  return { items, ends };
}

/** A depth answer written exactly as {"time":T,"bids":[["P","Q"],…],"asks":[…]} with canonical prices and quantities. */
export function quickDepth(text: string): { bids: Level[]; asks: Level[] } | undefined {
  if (!text.startsWith('{"time":')) return undefined;
  const timeEnd = text.indexOf(',', 8);
  if (timeEnd < 0 || integerAt(text, 8, timeEnd) < 0 || !text.startsWith(',"bids":[', timeEnd)) return undefined;
  const bids = quickLevels(text, timeEnd + 9);
  if (!bids || !text.startsWith(',"asks":[', bids.end)) return undefined;
  const asks = quickLevels(text, bids.end + 9);
  if (!asks || asks.end !== text.length - 1 || text.charCodeAt(asks.end) !== 0x7d /* } */) return undefined;
  return { bids: bids.levels, asks: asks.levels };
}

/** ["P","Q"] pairs from `at` (just inside a list's "[") up to its "]": the pairs and where the list ends (after the "]"). */
function quickLevels(text: string, at: number): { levels: Level[]; end: number } | undefined {
  const levels: Level[] = [];
  if (text.charCodeAt(at) === 0x5d /* ] */) return { levels, end: at + 1 };
  for (let i = at; ; ) {
    if (!text.startsWith('["', i)) return undefined;
    const priceEnd = text.indexOf('"', i + 2);
    if (priceEnd < 0 || !text.startsWith('","', priceEnd)) return undefined;
    const qtyEnd = text.indexOf('"', priceEnd + 3);
    if (qtyEnd < 0 || !text.startsWith('"]', qtyEnd)) return undefined;
    if (!plainAt(text, i + 2, priceEnd) || !plainAt(text, priceEnd + 3, qtyEnd)) return undefined;
    levels.push([text.slice(i + 2, priceEnd), text.slice(priceEnd + 3, qtyEnd)]);
    const next = text.charCodeAt(qtyEnd + 2);
    if (next === 0x5d /* ] */) return { levels, end: qtyEnd + 3 };
    if (next !== 0x2c /* , */) return undefined;
    i = qtyEnd + 3;
  }
}
