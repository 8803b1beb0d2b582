// The book counts in integer ticks (price) and lots (quantity): exact, fast, and never a float.
// These convert between those integers and decimal strings at a given number of places.
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
