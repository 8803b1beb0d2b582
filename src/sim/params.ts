// Reading request parameters (query string for GET, JSON body for POST) with the venue's codes.
import type { Decimal } from '../core/decimal.js';
import type { Side } from '../core/types.js';
import { VenueCode } from '../exchange/codes.js';
import { malformed, missing, reject } from './errors.js';
import { decimalParam } from './spot.js';
import type { PageRequest } from './trades.js';

export type Params = Readonly<Record<string, unknown>>;

export function text(p: Params, name: string): string | undefined {
  const v = p[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return malformed(name, 'must be a string');
}

export function required(p: Params, name: string): string {
  return text(p, name) ?? missing(name);
}

export function side(p: Params, name = 'side'): Side {
  const v = required(p, name);
  if (v !== 'BUY' && v !== 'SELL') return reject(VenueCode.INVALID_SIDE, `Invalid side '${v}': use BUY or SELL.`);
  return v;
}

export function orderType(p: Params, name = 'type'): 'LIMIT' | 'MARKET' {
  const v = required(p, name);
  if (v !== 'LIMIT' && v !== 'MARKET') return reject(VenueCode.INVALID_ORDER_TYPE, `Invalid order type '${v}': use LIMIT or MARKET.`);
  return v;
}

export function decimal(p: Params, name: string): Decimal | undefined {
  return decimalParam(p[name], name);
}

export function requiredDecimal(p: Params, name: string): Decimal {
  return decimal(p, name) ?? missing(name);
}

/** An integer parameter within [min, max], or `fallback` when absent. */
export function integer(p: Params, name: string, fallback: number | undefined, min: number, max: number): number | undefined {
  const v = p[name];
  if (v === undefined || v === null || v === '') return fallback;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,16}$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) return malformed(name, `must be an integer from ${min} to ${max}`);
  return n;
}

/** An order id: digits as a string, or a JSON number (safe, or read from its digits by parseBody). */
export function orderId(v: unknown, name: string): string {
  if (typeof v === 'string' && /^\d{1,30}$/.test(v)) return v.replace(/^0+(?=\d)/, '');
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  return malformed(name, 'must be an order id of digits');
}

/** A client order id: a non-empty string of at most `max` characters. */
export function clientId(p: Params, names: readonly string[], max: number): string | undefined {
  for (const name of names) {
    const v = p[name];
    if (v === undefined || v === null) continue;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
    if (typeof v !== 'string') return malformed(name, 'must be a string');
    if (v === '') return reject(VenueCode.EMPTY_NEW_CL_ORD_ID, `Parameter '${name}' is empty.`);
    if (v.length > max) return malformed(name, `must be at most ${max} characters`);
    return v;
  }
  return undefined;
}

/** Refuses a request that carries `name`, as a venue that does not take that parameter does. */
export function refuseParameter(p: Params, name: string): void {
  if (p[name] !== undefined) reject(VenueCode.UNKNOWN_PARAM, `An unknown parameter was sent: '${name}'.`);
}

/** recvWindow (or the spelling recvwindow): a positive integer of milliseconds. */
export function recvWindow(p: Params | undefined, fallback: number): number {
  if (!p) return fallback;
  const name = p.recvWindow !== undefined ? 'recvWindow' : 'recvwindow';
  return integer(p, name, fallback, 1, Number.MAX_SAFE_INTEGER)!;
}

export function queryParams(query: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (query === '') return out;
  // Nothing to decode (printable ASCII, no % or +): split it here; URLSearchParams is most of a GET's parsing.
  const pairs: Iterable<[string, string]> = PLAIN_QUERY.test(query) ? plainPairs(query) : new URLSearchParams(query);
  for (const [k, v] of pairs) if (!(k in out)) out[k] = v;
  return out;
}

/** Printable ASCII without % and +, not starting with ?: URLSearchParams would decode nothing in it. */
const PLAIN_QUERY = /^(?!\?)[\x20-\x24\x26-\x2a\x2c-\x7e]*$/;

/** `a=1&b&&c=x=y` as URLSearchParams reads it when nothing is escaped: [a, 1], [b, ''], [c, 'x=y']. */
function plainPairs(query: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    out.push(eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)]);
  }
  return out;
}

/**
 * myTrades paging: `limit` (default 100, at most 1000, else -1102) and `fromId` (inclusive).
 * `cap` shortens a page silently, as venues that cap pages below the limit do.
 */
export function pageRequest(p: Params, cap = 1000): PageRequest {
  const limit = integer(p, 'limit', 100, 1, 1000)!;
  const from = text(p, 'fromId');
  const fromId = from === undefined ? undefined : String(BigInt(orderId(from, 'fromId')));
  return { limit: Math.min(limit, cap), fromId };
}
