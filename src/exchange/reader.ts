// Field readers for venue answers, bound to one endpoint so every failure names the endpoint
// and the field path. Tolerant of the live variants the API family is known to send (ids as
// number, string or one-element array; bare arrays or {list}; numeric or string decimals;
// status 0 for NEW; integer futures order types) and strict otherwise: anything else is a
// MalformedResponseError naming the field.
//
// Decimals: strings or JSON numbers, a leading sign, and exponent notation ("1e5", 1e-7, as
// some venue serialisers print them) are read exactly; "abc", "NaN", "Infinity", "" and
// exponents beyond +-40 are refused. Prices, quantities and balances must not be negative:
// a balance of "-5" is a broken answer, not a debt (only changes, PnL and fees carry a sign).
import { toDecimal, DecimalFormatError, MAX_EXPONENT, type Decimal } from '../core/decimal.js';
import { MalformedResponseError } from '../core/errors.js';
import { venueOrderId, type VenueOrderId } from '../core/ids.js';
import type { OrderStatus, OrderType, Side } from '../core/types.js';
import type { Listing, SkippedItem } from '../core/venue.js';

export type Obj = Record<string, unknown>;

/** An answer's item that could not be read, where the others still count: the error naming it. */
export interface UnreadableItem {
  readonly unreadable: MalformedResponseError;
}

/** A decimal as toDecimal writes it: no exponent, no leading or trailing zeros that mean nothing. */
const CANONICAL_DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;

export class Reader {
  constructor(private readonly endpoint: string) {}

  fail(field: string, problem: string): never {
    throw new MalformedResponseError({ endpoint: this.endpoint }, field, problem);
  }

  obj(v: unknown, path: string): Obj {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(path, `must be an object, got ${kind(v)}`);
    return v as Obj;
  }

  /**
   * A list that may come bare or as {list: [...]}. null means "empty" only where the venue is
   * known to send it (futures `data:null`, null positionVos); anywhere else a null list would
   * turn a broken answer into a silent "no balances" or "no open orders".
   */
  list(v: unknown, path: string, opts: { nullIsEmpty?: boolean } = {}): unknown[] {
    if (Array.isArray(v)) return v;
    if (v === null && opts.nullIsEmpty) return [];
    if (v !== null && typeof v === 'object' && Array.isArray((v as Obj).list)) return (v as Obj).list as unknown[];
    return this.fail(path, `must be a list, got ${kind(v)}`);
  }

  /**
   * Decodes each item on its own: an item that cannot be read is skipped with its problem and,
   * where `keyOf` can still read it, what it was about. Only a MalformedResponseError skips an
   * item; anything else is a bug and propagates.
   */
  items<T>(list: readonly unknown[], pathOf: (i: number) => string, decode: (v: unknown, path: string) => T, keyOf: (v: unknown) => string | undefined = () => undefined): Listing<T> {
    const items: T[] = [];
    const skipped: SkippedItem[] = [];
    list.forEach((v, i) => {
      const path = pathOf(i);
      try {
        items.push(decode(v, path));
      } catch (e) {
        if (!(e instanceof MalformedResponseError)) throw e;
        const key = keyOf(v);
        skipped.push({ path, problem: e.message, ...(key !== undefined ? { key } : {}) });
      }
    });
    return { items, skipped };
  }

  str(o: Obj, key: string, path: string): string {
    const v = o[key];
    if (typeof v === 'string' && v.length > 0) return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    return this.fail(`${path}.${key}`, `must be a non-empty string, got ${kind(v)}`);
  }

  optStr(o: Obj, key: string, path: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null || v === '' || v === '0') return undefined;
    return this.str(o, key, path);
  }

  /** A decimal that must not be negative (price, quantity, balance). */
  dec(o: Obj, key: string, path: string): Decimal {
    const v = this.sdec(o, key, path);
    if (v.startsWith('-')) this.fail(`${path}.${key}`, `must not be negative, got ${kind(o[key])}`);
    return v;
  }

  /** A decimal that may carry a sign (24 h change, PnL, fee rebates). */
  sdec(o: Obj, key: string, path: string): Decimal {
    const v = o[key];
    // Most venue decimals are canonical already ("30000.5", 0.001): toDecimal would give them back unchanged.
    const text = typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
    if (text !== undefined && text.length <= 80 && CANONICAL_DECIMAL.test(text) && text !== '-0') return text as Decimal;
    // An 80+ character decimal is not a price, nor is an exponent beyond MAX_EXPONENT (which
    // toDecimal refuses too: expanded, "1e999999999" is a billion digits), text or JSON number.
    if (text !== undefined) {
      const exp = /e([+-]?\d+)$/i.exec(text.trim());
      if (text.length > 80 || (exp && Math.abs(Number(exp[1])) > MAX_EXPONENT)) this.fail(`${path}.${key}`, `must be a decimal of sane size, got ${kind(v)}`);
    }
    try {
      return toDecimal(v, `${path}.${key}`, { fromVenue: true });
    } catch (e) {
      if (e instanceof DecimalFormatError) this.fail(`${path}.${key}`, `must be a decimal, got ${kind(v)}`);
      throw e;
    }
  }

  optDec(o: Obj, key: string, path: string): Decimal | undefined {
    const v = o[key];
    return v === undefined || v === null || v === '' ? undefined : this.dec(o, key, path);
  }

  optSdec(o: Obj, key: string, path: string): Decimal | undefined {
    const v = o[key];
    return v === undefined || v === null || v === '' ? undefined : this.sdec(o, key, path);
  }

  int(o: Obj, key: string, path: string): number {
    const v = o[key];
    // A long integer the venue wrote with a fractional zero (1705039779880.000) reaches here as text.
    const n = typeof v === 'string' && /^-?\d+(?:\.0+)?$/.test(v) ? Number(v) : v;
    if (typeof n === 'number' && Number.isSafeInteger(n)) return n;
    return this.fail(`${path}.${key}`, `must be an integer, got ${kind(v)}`);
  }

  optInt(o: Obj, key: string, path: string): number | undefined {
    const v = o[key];
    return v === undefined || v === null || v === '' ? undefined : this.int(o, key, path);
  }

  bool(o: Obj, key: string, path: string): boolean {
    const v = o[key];
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 1) return true;
    if (v === 'false' || v === 0) return false;
    return this.fail(`${path}.${key}`, `must be a boolean, got ${kind(v)}`);
  }

  /** Venue id as digits: from a string, a safe integer, or a one-element array of either. */
  id(v: unknown, path: string): VenueOrderId {
    const text = idText(v);
    if (text !== undefined) return venueOrderId(text);
    return this.fail(path, `must be an id of digits, got ${kind(v)}`);
  }

  /** Venue id as id() reads it, or why the item is none (a batch answer's items stand alone). */
  idOrWhyNot(v: unknown, path: string): VenueOrderId | UnreadableItem {
    const text = idText(v);
    return text !== undefined ? venueOrderId(text) : { unreadable: new MalformedResponseError({ endpoint: this.endpoint }, path, `must be an id of digits, got ${kind(v)}`) };
  }

  optId(o: Obj, key: string, path: string): VenueOrderId | undefined {
    const v = o[key];
    return v === undefined || v === null || v === '' ? undefined : this.id(v, `${path}.${key}`);
  }

  /** Prefer the string form (orderIdString) the venue gives for ids beyond 2^53. */
  orderId(o: Obj, path: string): VenueOrderId {
    if (o.orderIdString !== undefined && o.orderIdString !== null) return this.id(o.orderIdString, `${path}.orderIdString`);
    return this.id(o.orderId, `${path}.orderId`);
  }

  side(o: Obj, key: string, path: string): Side {
    const v = typeof o[key] === 'string' ? (o[key] as string).toUpperCase() : o[key];
    if (v === 'BUY' || v === 'SELL') return v;
    return this.fail(`${path}.${key}`, `must be BUY or SELL, got ${kind(o[key])}`);
  }

  /** LIMIT or MARKET; futures may send integers (1 limit, 2 market, 3 IOC, 4 FOK, 5 post-only: all but 2 rest at a price). */
  type(o: Obj, key: string, path: string): OrderType {
    const raw = o[key];
    const v = typeof raw === 'string' ? raw.trim().toUpperCase() : typeof raw === 'number' ? String(raw) : raw;
    if (v === 'LIMIT' || v === '1' || v === '3' || v === '4' || v === '5') return 'LIMIT';
    if (v === 'MARKET' || v === '2') return 'MARKET';
    return this.fail(`${path}.${key}`, `must be LIMIT or MARKET, got ${kind(raw)}`);
  }

  status(o: Obj, key: string, path: string): { status: OrderStatus; venueStatus: string } {
    const { status, venueStatus } = orderStatusOf(o[key]);
    if (status === undefined) this.fail(`${path}.${key}`, `is not an order status we know, got ${kind(o[key])}`);
    return { status, venueStatus };
  }
}

/** A venue status in any of its spellings; `status` undefined when it is none we know. */
export function orderStatusOf(raw: unknown): { status: OrderStatus | undefined; venueStatus: string } {
  const venueStatus = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw : '';
  return { status: STATUS_BY_VENUE_TEXT[venueStatus.trim().toUpperCase().replace(/[\s/]+/g, '_')], venueStatus };
}

/** The digits of an id in any of its live forms, or undefined. */
export function idText(v: unknown): string | undefined {
  const one = Array.isArray(v) && v.length === 1 ? v[0] : v;
  const text = typeof one === 'number' && Number.isSafeInteger(one) ? String(one) : one;
  return typeof text === 'string' && /^\d{1,30}$/.test(text) ? text : undefined;
}

/** The id in one of `keys` of an item that may itself be unreadable: for naming a skipped item. */
export function idOf(v: unknown, ...keys: string[]): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  for (const k of keys) {
    const id = idText((v as Obj)[k]);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** A short name (asset, symbol, contract) in `key` of an item that may itself be unreadable. */
export function nameOf(v: unknown, key: string): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const f = (v as Obj)[key];
  return typeof f === 'string' && f.length > 0 && f.length <= 40 ? f.toUpperCase() : undefined;
}

// Venue status spellings seen across the API family, normalised to upper snake case.
const STATUS_BY_VENUE_TEXT: Readonly<Record<string, OrderStatus>> = {
  '0': 'open',
  NEW: 'open',
  NEW_: 'open',
  NEW_ORDER: 'open',
  INIT: 'open',
  PARTIALLY_FILLED: 'partially_filled',
  FILLED: 'filled',
  // Still on the book until the venue settles it: it can still fill.
  PENDING_CANCEL: 'pending_cancel',
  TO_BE_CANCELLED: 'pending_cancel',
  CANCELED: 'canceled',
  CANCELLED: 'canceled',
  PARTIALLY_FILLED_CANCELED: 'canceled',
  PARTIALLY_FILLED_CANCELLED: 'canceled',
  // Ended by the venue (some family members expire orders): final, like a cancel.
  EXPIRED: 'canceled',
  REJECTED: 'rejected',
};

export function kind(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return JSON.stringify(v.length > 30 ? `${v.slice(0, 30)}…` : v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return 'an object';
}
