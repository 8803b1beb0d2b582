// Money and quantities are decimal strings end to end. Arithmetic goes through decimal.js
// so no value ever becomes a binary float.
import { Decimal as DecimalJs } from 'decimal.js';

const D = DecimalJs.clone({ precision: 60, rounding: DecimalJs.ROUND_HALF_EVEN, toExpNeg: -40, toExpPos: 60 });

/** A validated, canonical decimal string such as "0.015" or "-3". Never a JS number. */
export type Decimal = string & { readonly __decimal: unique symbol };

const DECIMAL_TEXT = /^-?(?:\d+)(?:\.\d+)?$/;
// Venues write signed changes with a plus (ticker `rose`: "+0.05"), and some serialisers tiny or
// huge numbers with an exponent (1e-7): accepted from venues only, where we cannot choose.
const VENUE_TEXT = /^[-+]?\d+(?:\.\d+)?(?:e([+-]?\d+))?$/i;
/**
 * No price or quantity needs an exponent beyond this; expanding one to plain digits is where a
 * hostile "1e900000000" would take gigabytes (or the process).
 */
export const MAX_EXPONENT = 40;

/** Thrown when a value is not a decimal; names the field so the caller can say what to fix. */
export class DecimalFormatError extends Error {
  /** `hint`: why a number that is not plain decimal text ("1e-3", "+5") is refused, and the plain text to write where it can be shown. */
  constructor(readonly field: string, readonly value: unknown, readonly hint?: { plain?: string; why: string }) {
    super(
      hint
        ? `${field} ${hint.why} (got ${describe(value)})${hint.plain !== undefined ? `: write "${hint.plain}"` : ''}`
        : `${field} must be a decimal written as a string like "0.015" (got ${describe(value)})`,
    );
    this.name = 'DecimalFormatError';
  }
}

/** What config and strategies must write: no exponent, no plus sign. */
export const PLAIN_RULE = 'must be plain decimal text: digits, one optional point, an optional leading minus, no exponent';

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null) return 'null';
  return typeof value;
}

/** Canonical form: no exponent, no trailing fractional zeros, no "-0". */
function canonical(d: DecimalJs): Decimal {
  const text = d.isZero() ? '0' : d.toFixed();
  if (!text.includes('.')) return text as Decimal;
  return text.replace(/\.?0+$/, '') as Decimal;
}

/**
 * Parses a decimal given as plain text ("0.015", "-3"). Only values read from the venue
 * (`fromVenue`) may also be JSON numbers, carry a plus sign or an exponent within
 * +-MAX_EXPONENT: venues in this API family send them; we then read the number's shortest
 * round-trip text, which is exactly what the venue wrote. Config and strategies write plain text.
 */
export function toDecimal(value: unknown, field: string, opts: { fromVenue?: boolean } = {}): Decimal {
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' && opts.fromVenue && Number.isFinite(value)) text = numberText(value);
  else throw new DecimalFormatError(field, value);
  if (DECIMAL_TEXT.test(text)) return canonical(new D(text));
  const numeric = VENUE_TEXT.exec(text);
  if (!numeric) throw new DecimalFormatError(field, value);
  // Checked before decimal.js expands it: the exponent alone says how long the digits would be.
  const sane = numeric[1] === undefined || Math.abs(Number(numeric[1])) <= MAX_EXPONENT;
  if (opts.fromVenue) {
    if (!sane) throw new DecimalFormatError(field, value, { why: `must be a decimal of sane size, its exponent within +-${MAX_EXPONENT}` });
    return canonical(new D(text));
  }
  throw new DecimalFormatError(field, value, sane ? { why: PLAIN_RULE, plain: canonical(new D(text)) } : { why: `${PLAIN_RULE} (that exponent is beyond any amount)` });
}

function numberText(n: number): string {
  // String(n) is the shortest text that round-trips, i.e. what was in the JSON.
  return String(n);
}

export function isDecimal(value: unknown): value is Decimal {
  return typeof value === 'string' && DECIMAL_TEXT.test(value);
}

export const ZERO = '0' as Decimal;
export const ONE = '1' as Decimal;

// The short path. A decimal of at most 15 digits is an integer below 2^53 (its digits) over a
// power of ten (its scale). Sums, differences, products and comparisons of such integers are
// exact in JS numbers as long as every integer involved stays below 2^53 (a result beyond it
// cannot round back under it, so the check after the operation is enough); decimal.js keeps its
// own digits in JS numbers the same way. No fraction is ever held in a float. Anything longer,
// or a result out of that range, goes through decimal.js: 10-20 times slower (an add was 2 µs),
// on the hot paths of backtests and of a start rebuilding positions from every fill.
const MAX_DIGITS = 15;
const POW10 = Array.from({ length: MAX_DIGITS + 1 }, (_, i) => 10 ** i);

interface Scaled {
  m: number;
  s: number;
}

/** A short decimal's digits as an integer and its scale; undefined for more than 15 digits or text that is not plain. */
function scaled(a: string): Scaled | undefined {
  // One pass over the characters: a regular expression, two slices and Number() were most of it.
  const start = a.charCodeAt(0) === 45 ? 1 : 0;
  let m = 0;
  let s = -1;
  let digits = 0;
  for (let i = start; i < a.length; i++) {
    const c = a.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
      if (s >= 0) s++;
    } else if (c === 46 && s < 0 && i > start && i < a.length - 1) s = 0;
    else return undefined;
  }
  if (digits === 0 || digits > MAX_DIGITS) return undefined;
  return { m: start ? -m : m, s: s < 0 ? 0 : s };
}

const exact = (n: number) => Math.abs(n) <= Number.MAX_SAFE_INTEGER;

/** Both at the larger scale, or undefined when either would leave the exact range. */
function aligned(a: string, b: string): [number, number, number] | undefined {
  const x = scaled(a);
  const y = scaled(b);
  if (!x || !y) return undefined;
  const s = Math.max(x.s, y.s);
  const mx = x.m * POW10[s - x.s]!;
  const my = y.m * POW10[s - y.s]!;
  return exact(mx) && exact(my) ? [mx, my, s] : undefined;
}

/** The canonical text of m / 10^s (m an exact integer). */
function text(m: number, s: number): Decimal {
  return placed(String(Math.abs(m)), s, m < 0);
}

function sum(a: Decimal, b: Decimal, sign: 1 | -1): Decimal | undefined {
  const x = aligned(a, b);
  if (!x) return undefined;
  const r = x[0] + sign * x[1];
  return exact(r) ? text(r, x[2]) : undefined;
}

function product(a: Decimal, b: Decimal): Decimal | undefined {
  const x = scaled(a);
  const y = scaled(b);
  if (!x || !y) return undefined;
  const r = x.m * y.m;
  return exact(r) ? text(r, x.s + y.s) : undefined;
}

function compare(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const x = aligned(a, b);
  if (!x) return new D(a).comparedTo(b) as -1 | 0 | 1;
  return x[0] < x[1] ? -1 : x[0] > x[1] ? 1 : 0;
}

/** A short decimal's places, trailing zeros not counted (as decimal.js's decimalPlaces); undefined otherwise. */
function placesOf(a: string): number | undefined {
  const x = scaled(a);
  if (!x) return undefined;
  let { m, s } = x;
  for (; s > 0 && m % 10 === 0; s--) m /= 10;
  return s;
}

type Rounding = 'down' | 'up' | 'half-even';

/** `a` at `places` decimals: toward zero, away from zero, or half to even. */
function rounded(a: Decimal, places: number, mode: Rounding): Decimal | undefined {
  const x = scaled(a);
  if (!x || !Number.isInteger(places) || places < 0) return undefined;
  if (x.s <= places) return text(x.m, x.s);
  const unit = POW10[x.s - places]!;
  const r = x.m % unit;
  let q = (x.m - r) / unit;
  const away = mode === 'up' ? r !== 0 : mode === 'half-even' && (2 * Math.abs(r) > unit || (2 * Math.abs(r) === unit && q % 2 !== 0));
  if (away) q += x.m < 0 ? -1 : 1;
  return text(q, places);
}

/**
 * a / b when the quotient ends within `places` decimals and its digits stay exact (a mid price,
 * half a volume), in a few operations where longQuotient writes every place; undefined
 * otherwise. It ends when y.m's factors other than 2 and 5 divide x.m; then x.m * 10^t, with t
 * the larger count of 2s or 5s in y.m, is a multiple of y.m.
 */
function quotient(a: Decimal, b: Decimal, places: number): Decimal | undefined {
  const x = scaled(a);
  const y = scaled(b);
  if (!x || !y || y.m === 0) return undefined;
  let rest = Math.abs(y.m);
  let twos = 0;
  let fives = 0;
  for (; rest % 2 === 0; rest /= 2) twos++;
  for (; rest % 5 === 0; rest /= 5) fives++;
  const t = Math.max(twos, fives);
  if (x.m % rest !== 0 || t > MAX_DIGITS) return undefined;
  const n = x.m * POW10[t]!;
  if (!exact(n)) return undefined;
  let q = n / y.m;
  let s = x.s + t - y.s;
  for (; s > 0 && q % 10 === 0; s--) q /= 10;
  if (s < 0) return exact(q * POW10[-s]!) ? text(q * POW10[-s]!, 0) : undefined;
  return s <= places ? text(q, s) : undefined;
}

/**
 * a / b rounded half-even at `places`, by long division of the short operands' integers, one
 * digit at a time. Exact: with a divisor below 10^15, a remainder times 10 is even and below
 * 2^54, and a digit times the divisor below 2^53. Undefined when rounding falls inside the
 * integer part (places fewer than a's minus b's).
 */
function longQuotient(a: Decimal, b: Decimal, places: number): Decimal | undefined {
  const x = scaled(a);
  const y = scaled(b);
  if (!x || !y || y.m === 0 || !Number.isInteger(places) || places < 0) return undefined;
  const divisor = Math.abs(y.m);
  const fraction = places + y.s - x.s;
  if (fraction < 0) return undefined;
  const dividend = Math.abs(x.m);
  let r = dividend % divisor;
  // The digits of |a / b| * 10^places, as text: the whole part, then one digit per place.
  let digits = String((dividend - r) / divisor);
  for (let i = 0; i < fraction; i++) {
    const t = r * 10;
    r = t % divisor;
    digits += (t - r) / divisor;
  }
  if (2 * r > divisor || (2 * r === divisor && (digits.charCodeAt(digits.length - 1) - 48) % 2 === 1)) digits = plusOne(digits);
  return placed(digits, places, (x.m < 0) !== (y.m < 0));
}

/** A digit string plus one. */
function plusOne(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === '9') i--;
  return (i < 0 ? '1' : digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1)) + '0'.repeat(digits.length - 1 - i);
}

/** The canonical decimal of the integer `digits` (leading zeros allowed) over 10^places, negated when `negative`. */
function placed(digits: string, places: number, negative: boolean): Decimal {
  const padded = digits.padStart(places + 1, '0');
  const point = padded.length - places;
  let start = 0;
  while (start < point - 1 && padded.charCodeAt(start) === 48) start++;
  let end = padded.length;
  while (end > point && padded.charCodeAt(end - 1) === 48) end--;
  const text = end > point ? `${padded.slice(start, point)}.${padded.slice(point, end)}` : padded.slice(start, point);
  return (negative && text !== '0' ? `-${text}` : text) as Decimal;
}

/** -1, 0 or 1 as a is below, at or above zero. */
function sign(a: Decimal): -1 | 0 | 1 {
  const x = scaled(a);
  const m = x ? x.m : new D(a).comparedTo(0);
  return m < 0 ? -1 : m > 0 ? 1 : 0;
}

export const dec = {
  add: (a: Decimal, b: Decimal): Decimal => sum(a, b, 1) ?? canonical(new D(a).plus(b)),
  sub: (a: Decimal, b: Decimal): Decimal => sum(a, b, -1) ?? canonical(new D(a).minus(b)),
  mul: (a: Decimal, b: Decimal): Decimal => product(a, b) ?? canonical(new D(a).times(b)),
  /** Division rounds half-even at 30 places: enough for averages and ratios of money. */
  div: (a: Decimal, b: Decimal, places = 30): Decimal => {
    if (sign(b) === 0) throw new RangeError('division by zero');
    return quotient(a, b, places) ?? longQuotient(a, b, places) ?? canonical(new D(a).dividedBy(b).toDecimalPlaces(places, D.ROUND_HALF_EVEN));
  },
  neg: (a: Decimal): Decimal => product(a, '-1' as Decimal) ?? canonical(new D(a).negated()),
  abs: (a: Decimal): Decimal => (sign(a) < 0 ? dec.neg(a) : product(a, ONE) ?? canonical(new D(a).abs())),
  cmp: compare,
  eq: (a: Decimal, b: Decimal): boolean => compare(a, b) === 0,
  lt: (a: Decimal, b: Decimal): boolean => compare(a, b) < 0,
  lte: (a: Decimal, b: Decimal): boolean => compare(a, b) <= 0,
  gt: (a: Decimal, b: Decimal): boolean => compare(a, b) > 0,
  gte: (a: Decimal, b: Decimal): boolean => compare(a, b) >= 0,
  min: (a: Decimal, b: Decimal): Decimal => (compare(a, b) < 0 ? a : b),
  max: (a: Decimal, b: Decimal): Decimal => (compare(a, b) > 0 ? a : b),
  isZero: (a: Decimal): boolean => sign(a) === 0,
  isNegative: (a: Decimal): boolean => sign(a) < 0,
  isPositive: (a: Decimal): boolean => sign(a) > 0,
  /** Number of digits after the point in the canonical form. */
  places: (a: Decimal): number => placesOf(a) ?? new D(a).decimalPlaces(),
  /** Rounds toward zero to `places` decimals (venues truncate, never round up a quantity). */
  truncate: (a: Decimal, places: number): Decimal => rounded(a, places, 'down') ?? canonical(new D(a).toDecimalPlaces(places, D.ROUND_DOWN)),
  /** Rounds away from zero to `places` decimals (an ask rounded up stays at least as far from the mid). */
  roundUp: (a: Decimal, places: number): Decimal => rounded(a, places, 'up') ?? canonical(new D(a).toDecimalPlaces(places, D.ROUND_UP)),
  /** Rounds half-even to `places` decimals. */
  round: (a: Decimal, places: number): Decimal => rounded(a, places, 'half-even') ?? canonical(new D(a).toDecimalPlaces(places, D.ROUND_HALF_EVEN)),
  sum: (values: readonly Decimal[]): Decimal => values.reduce((acc, v) => dec.add(acc, v), ZERO),
  /** Fixed text with exactly `places` decimals, for display and for venue-facing fields. */
  fixed: (a: Decimal, places: number): string => new D(a).toFixed(places, D.ROUND_DOWN),
  /** For metrics, charts and indicators only (signals, not money): never feed the result back into money arithmetic. */
  toNumberForDisplay: (a: Decimal): number => new D(a).toNumber(),
};

/** Shorthand for literals in code and tests: d('0.1'). Throws on a malformed literal. */
export function d(text: string): Decimal {
  return toDecimal(text, 'literal');
}
