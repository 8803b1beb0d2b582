// JSON that never loses digits. Venue ids exceed 2^53 and decimals can carry more digits than
// a double holds, so number literals too long to round-trip are read as their source text,
// and integers we send (batchCancel wants ids as JSON numbers) are written from their digits.

/** Writes `digits` into JSON as a bare number literal. */
export class RawJsonNumber {
  constructor(readonly digits: string) {
    if (!/^-?\d+$/.test(digits)) throw new RangeError(`not an integer literal: ${digits}`);
  }
}

export type JsonValue = string | number | boolean | null | RawJsonNumber | JsonValue[] | { [key: string]: JsonValue | undefined };

/** JSON.stringify with RawJsonNumber support; undefined members are left out. */
export function stringifyJson(value: JsonValue): string {
  if (value instanceof RawJsonNumber) return value.digits;
  if (Array.isArray(value)) return `[${value.map(stringifyJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value);
}

// A run of 16+ digits/dots where a value starts (after ':', '[' or ',') might be a number a
// double cannot hold; only then do we scan. Ids the venue quotes ("id":"1659...") do not match.
const MAYBE_LONG_NUMBER = /(?:^|[:[,])\s*-?[\d.]{16,}/;
export const MAX_EXACT_DIGITS = 15;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * JSON.parse, except that number literals with more than 15 significant digits come back as
 * strings holding their exact text. Throws SyntaxError on malformed JSON.
 */
export function parseJsonLossless(text: string): unknown {
  if (!MAYBE_LONG_NUMBER.test(text)) return JSON.parse(text);
  return JSON.parse(quoteLongNumbers(text));
}

function quoteLongNumbers(text: string): string {
  let out = '';
  let copiedUpTo = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i++;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
      i++;
      continue;
    }
    if (c === 0x2d /* - */ || isDigit(c)) {
      const start = i;
      i++;
      while (i < text.length && isNumberChar(text.charCodeAt(i))) i++;
      // Only a well-formed JSON number is quoted: quoting "1234567890123456789-5" or
      // "0123456789012345678" would turn text JSON.parse must refuse into a valid string.
      const literal = text.slice(start, i);
      if (digitCount(literal) > MAX_EXACT_DIGITS && JSON_NUMBER.test(literal)) {
        out += `${text.slice(copiedUpTo, start)}"${literal}"`;
        copiedUpTo = i;
      }
      continue;
    }
    i++;
  }
  return out + text.slice(copiedUpTo);
}

/**
 * What parseJsonLossless reads a well-formed literal of digits (a sign, a fraction, no
 * exponent) as: its text when a double cannot hold its digits, else the number. Answers a
 * trusted in-process venue hands over without text follow the same rule.
 */
export function literalValue(literal: string): number | string {
  return digitCount(literal) > MAX_EXACT_DIGITS ? literal : Number(literal);
}

/** Digits in a number literal, the exponent's included (as the scan above counts them). */
export function digitCount(literal: string): number {
  let n = 0;
  for (let i = 0; i < literal.length; i++) if (isDigit(literal.charCodeAt(i))) n++;
  return n;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** 0-9 . e E + - */
const isNumberChar = (c: number) => isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
