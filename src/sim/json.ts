import type { HttpResponse } from '../core/ports.js';
import { digitCount, literalValue, MAX_EXACT_DIGITS } from '../exchange/json.js';

// Request bodies may carry order ids as JSON numbers beyond 2^53 (batchCancel documents them
// as numbers). JSON.parse would silently round them, so integer literals of 16+ digits are
// read as their exact digit text before parsing.

/** JSON.parse, except that integer literals of 16 or more digits come back as digit strings. */
export function parseBody(text: string): unknown {
  if (!/\d{16,}/.test(text)) return JSON.parse(text);
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      const start = i;
      i++;
      while (i < text.length && /[0-9.eE+-]/.test(text[i]!)) i++;
      const literal = text.slice(start, i);
      if (/^-?\d{16,}$/.test(literal)) {
        out += `${text.slice(copied, start)}"${literal}"`;
        copied = i;
      }
      continue;
    }
    i++;
  }
  return JSON.parse(out + text.slice(copied));
}

// Answers in the live shapes carry numbers JSON.stringify cannot write: order ids beyond 2^53
// and decimals with trailing zeros (`0.00100000`). A JsonNumber holds such a number as its
// literal text; writeJson copies that text into the answer, so no digit ever passes through a
// JS float.

/** A JSON number literal, written as its text. */
export class JsonNumber {
  constructor(readonly text: string) {
    if (!/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) throw new RangeError(`not a JSON number literal: ${text}`);
  }

  /** An id (digit string) as a bare number literal. */
  static id(digits: string): JsonNumber {
    return new JsonNumber(digits);
  }

  /** A decimal as a number literal with at least 8 decimal places (never fewer digits than it has). */
  static decimal(d: string): JsonNumber {
    const [int = '0', frac = ''] = d.split('.');
    return new JsonNumber(`${int}.${frac.padEnd(8, '0')}`);
  }

  toString(): string {
    return this.text;
  }
}

/** JSON.stringify, except that a JsonNumber is written as its literal text. */
export function writeJson(v: unknown): string {
  return write(v) ?? 'null';
}

function write(v: unknown): string | undefined {
  if (v instanceof JsonNumber) return v.text;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const json = (v as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') return write(json.call(v));
  if (Array.isArray(v)) return `[${v.map((x) => write(x) ?? 'null').join(',')}]`;
  let out = '';
  for (const k of Object.keys(v)) {
    const s = write((v as Record<string, unknown>)[k]);
    if (s === undefined) continue;
    out += `${out === '' ? '' : ','}${JSON.stringify(k)}:${s}`;
  }
  return `{${out}}`;
}

/** A decimal as a profile writes it: its string, or a JSON number to 8 places. */
export function decimalOut(asNumber: boolean, d: string): string | JsonNumber {
  return asNumber ? JsonNumber.decimal(d) : d;
}

// ---------- answers without text, for a trusted caller in this process ----------

/** Where only the text can say what the reader would get (see jsonValue). */
const TEXT_ONLY = Symbol('text only');
/** A member writeJson leaves out (undefined, a function, a symbol). */
const LEFT_OUT = Symbol('left out');

/**
 * What parseJsonLossless(writeJson(v)) gives, built without writing and reading the text; a
 * copy, so the reader may keep or change it. Undefined where only the text can say: a JS
 * number of more than 15 digits (whether the reader quotes it depends on the rest of the
 * text), a bigint, an array with holes.
 */
export function jsonValue(v: unknown): { value: unknown } | undefined {
  const value = convert(v);
  if (value === TEXT_ONLY) return undefined;
  return { value: value === LEFT_OUT ? null : value };
}

function convert(v: unknown): unknown {
  if (v instanceof JsonNumber) return literalValue(v.text);
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) return null;
      if (Math.abs(v) < 1e15 && Number.isInteger(v)) return v === 0 ? 0 : v;
      return digitCount(JSON.stringify(v)) > MAX_EXACT_DIGITS ? TEXT_ONLY : v;
    case 'object':
      break;
    case 'bigint':
      return TEXT_ONLY;
    default:
      return LEFT_OUT;
  }
  if (v === null) return null;
  const json = (v as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') return convert(json.call(v));
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) return TEXT_ONLY;
      const x = convert(v[i]);
      if (x === TEXT_ONLY) return TEXT_ONLY;
      out[i] = x === LEFT_OUT ? null : x;
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = convert((v as Record<string, unknown>)[k]);
    if (x === TEXT_ONLY) return TEXT_ONLY;
    if (x === LEFT_OUT) continue;
    // JSON.parse makes "__proto__" an own member; an assignment would set the prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}

/**
 * An answer for a trusted caller in this process: its JSON handed over (HttpResponse.json), its
 * text written only if someone reads it. Every route builds its answer afresh, so the text is
 * the same whenever it is written.
 */
export function parsedResponse(status: number, headers: Readonly<Record<string, string>>, body: unknown): HttpResponse {
  const parsed = jsonValue(body);
  return parsed ? new ParsedAnswer(status, headers, parsed.value, body) : { status, headers, body: writeJson(body) };
}

// A class, not an object literal with a getter: a literal's getter closure lands in a map of
// its own, in the old generation, and holds the answer there until a major GC.
class ParsedAnswer implements HttpResponse {
  private text: string | undefined;

  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    readonly json: unknown,
    private readonly source: unknown,
  ) {}

  get body(): string {
    return (this.text ??= writeJson(this.source));
  }
}
