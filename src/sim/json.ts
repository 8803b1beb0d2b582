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
