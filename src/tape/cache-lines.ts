// The lines of an event cache file (see event-cache.ts for their format), decoded from the
// file's bytes. Splitting a line into strings made two strings a trade that the simulator then
// parsed again, and was most of a cached backtest's reading: here each field is scanned once,
// and a plain price or quantity becomes a ScaledDecimal without a string made for it.
import type { Market } from '../core/types.js';
import type { TapeDecimal } from '../sim/types.js';
import type { TapeMarketEvent } from './market.js';

const SPACE = 0x20;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const MINUS = 0x2d;
const B = 0x42;
const S = 0x53;

/** At most this many digits in a ScaledDecimal: its digits are then an exact integer. */
const MAX_DIGITS = 15;

export class CacheLineDecoder {
  private readonly symbols = new Map<string, string>();
  private bytes: Buffer = Buffer.alloc(0);
  /** Start of the next field, and the end of the line. */
  private pos = 0;
  private end = 0;

  /**
   * The events of the line `bytes[start, end)`, or undefined when it is no event line. Prices
   * and quantities are not checked here: the simulator reads each and refuses a bad one, as it
   * does for a tape's.
   */
  decode(bytes: Buffer, start: number, end: number): TapeMarketEvent[] | undefined {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
    const at = this.integer();
    const market = this.more() ? this.text() : undefined;
    const symbol = this.more() ? this.symbol() : undefined;
    const type = this.more() ? this.text() : undefined;
    if (at === undefined || (market !== 'spot' && market !== 'futures') || symbol === undefined || !this.more()) return undefined;
    switch (type) {
      case 't':
        return this.trades(at, market, symbol);
      case 'k': {
        const last = this.decimal();
        return this.more() ? undefined : [{ at, market, event: { type: 'ticker', symbol, last } }];
      }
      case 'b': {
        const bids = this.integer();
        const asks = this.more() ? this.integer() : undefined;
        if (bids === undefined || asks === undefined) return undefined;
        const bidLevels = this.levels(bids);
        const askLevels = bidLevels && this.levels(asks);
        if (!bidLevels || !askLevels || this.more()) return undefined;
        return [{ at, market, event: { type: 'book', symbol, bids: bidLevels, asks: askLevels } }];
      }
      default:
        return undefined;
    }
  }

  /** Whether the line holds another field. */
  private more(): boolean {
    return this.pos <= this.end;
  }

  /** Fields of three (price, quantity, B or S) to the line's end, at least one. */
  private trades(at: number, market: Market, symbol: string): TapeMarketEvent[] | undefined {
    const out: TapeMarketEvent[] = [];
    while (this.more()) {
      const price = this.decimal();
      if (!this.more()) return undefined;
      const qty = this.decimal();
      if (!this.more()) return undefined;
      const from = this.pos;
      const to = this.fieldEnd();
      this.pos = to + 1;
      const side = to === from + 1 ? this.bytes[from] : undefined;
      if (side !== B && side !== S) return undefined;
      out.push({ at, market, event: { type: 'trade', symbol, price, qty, side: side === B ? 'BUY' : 'SELL' } });
    }
    return out;
  }

  /** `n` [price, quantity] pairs; undefined when the line ends first. */
  private levels(n: number): [TapeDecimal, TapeDecimal][] | undefined {
    const out: [TapeDecimal, TapeDecimal][] = new Array(n);
    for (let i = 0; i < n; i++) {
      if (!this.more()) return undefined;
      const price = this.decimal();
      if (!this.more()) return undefined;
      out[i] = [price, this.decimal()];
    }
    return out;
  }

  /** The next field's end: the next space, or the line's end. */
  private fieldEnd(): number {
    let i = this.pos;
    while (i < this.end && this.bytes[i] !== SPACE) i++;
    return i;
  }

  private text(): string {
    const from = this.pos;
    const to = this.fieldEnd();
    this.pos = to + 1;
    return this.bytes.toString('utf8', from, to);
  }

  /** A safe integer written in digits (a sign allowed); undefined for anything else. */
  private integer(): number | undefined {
    const from = this.pos;
    const to = this.fieldEnd();
    this.pos = to + 1;
    const digitsFrom = this.bytes[from] === MINUS ? from + 1 : from;
    if (digitsFrom === to) return undefined;
    let n = 0;
    for (let i = digitsFrom; i < to; i++) {
      const c = this.bytes[i]!;
      if (c < ZERO || c > NINE) return undefined;
      n = n * 10 + (c - ZERO);
    }
    if (!Number.isSafeInteger(n)) return undefined;
    return digitsFrom === from ? n : -n;
  }

  /** A URI-encoded symbol, decoded once per run of the same text; undefined when it is malformed. */
  private symbol(): string | undefined {
    const encoded = this.text();
    let symbol = this.symbols.get(encoded);
    if (symbol === undefined) {
      try {
        symbol = decodeURIComponent(encoded);
      } catch {
        return undefined;
      }
      this.symbols.set(encoded, symbol);
    }
    return symbol;
  }

  /**
   * A plain decimal (`0` or digits without a leading zero, then maybe a point and digits; at
   * most 15 digits) as a ScaledDecimal; anything else as its text, for the simulator to judge.
   */
  private decimal(): TapeDecimal {
    const from = this.pos;
    const bytes = this.bytes;
    const end = this.end;
    let digits = 0;
    let point = -1;
    let plain = true;
    let i = from;
    // Digits first: they are most of the file. Counts come from positions afterwards.
    for (; i < end; i++) {
      const digit = bytes[i]! - ZERO;
      if (digit >= 0 && digit <= 9) digits = digits * 10 + digit;
      else if (digit === SPACE - ZERO) break;
      else if (digit === DOT - ZERO && point < 0) point = i;
      else plain = false;
    }
    this.pos = i + 1;
    const places = point < 0 ? 0 : i - point - 1;
    const intDigits = (point < 0 ? i : point) - from;
    if (!plain || intDigits === 0 || (point >= 0 && places === 0) || intDigits + places > MAX_DIGITS || (bytes[from] === ZERO && intDigits > 1)) return bytes.toString('utf8', from, i);
    return { digits, places };
  }
}
