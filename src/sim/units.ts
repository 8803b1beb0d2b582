// The book counts in integer ticks (price) and lots (quantity): exact, fast, and never a float.
// These convert between those integers and decimal strings at a given number of places, and read
// a tape's prices and quantities (text, or the event cache's digits and places) as them.
import { toDecimal, type Decimal } from '../core/decimal.js';

/**
 * A plain decimal as its digits, an integer, and the places after the point: 29999.32 is
 * `{ digits: 2999932, places: 2 }`, 1.50 is `{ digits: 150, places: 2 }`. At most 15 digits, so
 * `digits` is exact. The event cache reads a tape's decimals so, without a string each.
 */
export interface ScaledDecimal {
  digits: number;
  places: number;
}

/** A tape's price or quantity: its decimal text, or that text's ScaledDecimal. */
export type TapeDecimal = string | ScaledDecimal;

/** `n * 10^-places` as a canonical decimal string. */
export function fromUnits(n: number | bigint, places: number): Decimal {
  const neg = n < 0;
  let digits = (neg ? -BigInt(n) : BigInt(n)).toString();
  if (places > 0) {
    digits = digits.padStart(places + 1, '0');
    const int = digits.slice(0, digits.length - places);
    const frac = digits.slice(digits.length - places).replace(/0+$/, '');
    digits = frac ? `${int}.${frac}` : int;
  }
  if (digits === '0') return '0' as Decimal;
  return (neg ? `-${digits}` : digits) as Decimal;
}

/**
 * `d * 10^places` as an integer, or undefined when `d` has more decimals than `places` or the
 * result is not a safe integer.
 */
export function toUnits(d: Decimal, places: number): number | undefined {
  const b = toUnitsBig(d, places);
  if (b === undefined) return undefined;
  const n = Number(b);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function toUnitsBig(d: Decimal, places: number): bigint | undefined {
  const text = toDecimal(d, 'value');
  const neg = text.startsWith('-');
  const [int = '0', frac = ''] = (neg ? text.slice(1) : text).split('.');
  if (frac.length > places) return undefined;
  const v = BigInt(int + frac.padEnd(places, '0'));
  return neg ? -v : v;
}

/** A tape decimal's text: a ScaledDecimal written back exactly as the tape wrote it (1.50 stays 1.50). */
export function tapeDecimalText(d: TapeDecimal): string {
  if (typeof d === 'string') return d;
  const digits = String(d.digits).padStart(d.places + 1, '0');
  return d.places === 0 ? digits : `${digits.slice(0, -d.places)}.${digits.slice(-d.places)}`;
}

/**
 * A tape's decimal as integer units (ticks or lots). Plain digits are read directly, and a
 * ScaledDecimal (the event cache's) is scaled: a tape holds hundreds of thousands of them, and
 * decimal.js would parse each one. Anything else (a sign, an exponent, more than 15 digits,
 * trailing zeros past `places`) takes the exact path, which also names what is wrong.
 */
export function tapeUnits(d: TapeDecimal, field: string, places: number): number {
  if (typeof d !== 'string') return scaledUnits(d.digits, d.places, field, places);
  const text = d;
  const length = text.length;
  let n = 0;
  let i = 0;
  let c = 0;
  for (; i < length; i++) {
    c = text.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) break;
    n = n * 10 + c;
  }
  const intDigits = i;
  let fracDigits = 0;
  if (i < length) {
    if (c !== 0x2e - 0x30 || intDigits === 0) return exactUnits(text, field, places);
    for (i++; i < length; i++) {
      c = text.charCodeAt(i) - 0x30;
      if (c < 0 || c > 9) return exactUnits(text, field, places);
      n = n * 10 + c;
      fracDigits++;
    }
    if (fracDigits === 0) return exactUnits(text, field, places);
  }
  if (intDigits === 0 || fracDigits > places || intDigits + places > 15) return exactUnits(text, field, places);
  return n * POW10[places - fracDigits]!;
}

/** A ScaledDecimal's digits and places as integer units. */
export function scaledUnits(digits: number, scale: number, field: string, places: number): number {
  // Exact: both factors are integers and a product below 10^15 is below 2^53 (a scale beyond
  // the table is NaN: the exact path).
  const n = scale <= places ? digits * POW10[places - scale]! : Infinity;
  return n < 1e15 ? n : exactUnits(tapeDecimalText({ digits, places: scale }), field, places);
}

/** 10^0 to 10^15: tapeUnits() scales by a table, not by Math.pow. */
const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

function exactUnits(text: string, field: string, places: number): number {
  // A tape's decimals are the venue's text, which may have an exponent (1e-5).
  const n = toUnits(toDecimal(text, field, { fromVenue: true }), places);
  if (n === undefined) throw new RangeError(`${text} has more decimals than the instrument allows`);
  return n;
}
