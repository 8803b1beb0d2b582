// Money and quantities are decimal strings end to end. Arithmetic goes through decimal.js
// so no value ever becomes a binary float.
import { Decimal as DecimalJs } from 'decimal.js';

const D = DecimalJs.clone({ precision: 60, rounding: DecimalJs.ROUND_HALF_EVEN, toExpNeg: -40, toExpPos: 60 });

/** A validated, canonical decimal string such as "0.015" or "-3". Never a JS number. */
export type Decimal = string & { readonly __decimal: unique symbol };

const DECIMAL_TEXT = /^-?(?:\d+)(?:\.\d+)?$/;
// Venues write signed changes with a plus (ticker `rose`: "+0.05"); accepted on input only.
const INPUT_TEXT = /^[-+]?(?:\d+)(?:\.\d+)?$/;

/** Thrown when a value is not a decimal; names the field so the caller can say what to fix. */
export class DecimalFormatError extends Error {
  constructor(readonly field: string, readonly value: unknown) {
    super(`${field} must be a decimal written as a string like "0.015" (got ${describe(value)})`);
    this.name = 'DecimalFormatError';
  }
}

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
 * Parses a decimal given as a string. Numbers are accepted only when `fromVenue` is set,
 * because venues in this API family send JSON numbers for some fields; we then read the
 * number's shortest round-trip text, which is exactly what the venue wrote.
 */
export function toDecimal(value: unknown, field: string, opts: { fromVenue?: boolean } = {}): Decimal {
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' && opts.fromVenue && Number.isFinite(value)) text = numberText(value);
  else throw new DecimalFormatError(field, value);
  if (!INPUT_TEXT.test(text)) {
    // Venues sometimes print exponents (1e-7) for tiny numbers; accept those through decimal.js.
    if (!/^-?\d+(\.\d+)?e[+-]?\d+$/i.test(text)) throw new DecimalFormatError(field, value);
  }
  return canonical(new D(text));
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

export const dec = {
  add: (a: Decimal, b: Decimal): Decimal => canonical(new D(a).plus(b)),
  sub: (a: Decimal, b: Decimal): Decimal => canonical(new D(a).minus(b)),
  mul: (a: Decimal, b: Decimal): Decimal => canonical(new D(a).times(b)),
  /** Division rounds half-even at 30 places: enough for averages and ratios of money. */
  div: (a: Decimal, b: Decimal, places = 30): Decimal => {
    if (new D(b).isZero()) throw new RangeError('division by zero');
    return canonical(new D(a).dividedBy(b).toDecimalPlaces(places, D.ROUND_HALF_EVEN));
  },
  neg: (a: Decimal): Decimal => canonical(new D(a).negated()),
  abs: (a: Decimal): Decimal => canonical(new D(a).abs()),
  cmp: (a: Decimal, b: Decimal): -1 | 0 | 1 => new D(a).comparedTo(b) as -1 | 0 | 1,
  eq: (a: Decimal, b: Decimal): boolean => new D(a).equals(b),
  lt: (a: Decimal, b: Decimal): boolean => new D(a).lessThan(b),
  lte: (a: Decimal, b: Decimal): boolean => new D(a).lessThanOrEqualTo(b),
  gt: (a: Decimal, b: Decimal): boolean => new D(a).greaterThan(b),
  gte: (a: Decimal, b: Decimal): boolean => new D(a).greaterThanOrEqualTo(b),
  min: (a: Decimal, b: Decimal): Decimal => (new D(a).lessThan(b) ? a : b),
  max: (a: Decimal, b: Decimal): Decimal => (new D(a).greaterThan(b) ? a : b),
  isZero: (a: Decimal): boolean => new D(a).isZero(),
  isNegative: (a: Decimal): boolean => new D(a).isNegative() && !new D(a).isZero(),
  isPositive: (a: Decimal): boolean => new D(a).isPositive() && !new D(a).isZero(),
  /** Number of digits after the point in the canonical form. */
  places: (a: Decimal): number => new D(a).decimalPlaces(),
  /** Rounds toward zero to `places` decimals (venues truncate, never round up a quantity). */
  truncate: (a: Decimal, places: number): Decimal => canonical(new D(a).toDecimalPlaces(places, D.ROUND_DOWN)),
  /** Rounds away from zero to `places` decimals (an ask rounded up stays at least as far from the mid). */
  roundUp: (a: Decimal, places: number): Decimal => canonical(new D(a).toDecimalPlaces(places, D.ROUND_UP)),
  /** Rounds half-even to `places` decimals. */
  round: (a: Decimal, places: number): Decimal => canonical(new D(a).toDecimalPlaces(places, D.ROUND_HALF_EVEN)),
  sum: (values: readonly Decimal[]): Decimal => canonical(values.reduce((acc, v) => acc.plus(v), new D(0))),
  /** Fixed text with exactly `places` decimals, for display and for venue-facing fields. */
  fixed: (a: Decimal, places: number): string => new D(a).toFixed(places, D.ROUND_DOWN),
  /** For metrics, charts and indicators only (signals, not money): never feed the result back into money arithmetic. */
  toNumberForDisplay: (a: Decimal): number => new D(a).toNumber(),
};

/** Shorthand for literals in code and tests: d('0.1'). Throws on a malformed literal. */
export function d(text: string): Decimal {
  return toDecimal(text, 'literal');
}
