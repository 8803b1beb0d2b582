// The records of an event cache file (see event-cache.ts), one answer's events each, in binary:
// reading them back is a few loads per number where text took a scan of every digit, and was
// most of a cached backtest's reading. Numbers are little-endian; a plain decimal is stored as
// its places and its digits (an exact integer below 10^15), anything else as its text.
//
//   record   u32 payload bytes, then: f64 at, u8 market (0 spot, 1 futures), u16 symbol bytes,
//            the symbol (UTF-8), u8 kind, then by kind:
//     t      u32 trades, then per trade: decimal price, decimal quantity, u8 side (B or S)
//     k      decimal last
//     b      u32 bids, u32 asks, then per level (bids first): decimal price, decimal quantity
//   decimal  u8 places (0 to 15), digits in 7 bytes; or u8 255, u16 text bytes, the text (UTF-8)
import type { Market } from '../core/types.js';
import type { ScaledDecimal, TapeDecimal } from '../sim/types.js';
import type { TapeMarketEvent } from './market.js';

const TRADES = 0x74; // t
const TICKER = 0x6b; // k
const BOOK = 0x62; // b
const BUY = 0x42; // B
const SELL = 0x53; // S
const TEXT = 255;
/** At most this many digits in a ScaledDecimal: its digits are then an exact integer. */
const MAX_DIGITS = 15;
const MARKETS: readonly Market[] = ['spot', 'futures'];
/** The fewest bytes a trade and a book level take (two empty texts, and a side). */
const MIN_TRADE = 7;
const MIN_LEVEL = 6;

/** A plain decimal's digits and places (`0` or digits without a leading zero, maybe a point and digits; at most 15 digits); undefined for any other text. */
export function scaledDecimal(text: string): ScaledDecimal | undefined {
  let digits = 0;
  let point = -1;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit >= 0 && digit <= 9) digits = digits * 10 + digit;
    else if (text[i] === '.' && point < 0) point = i;
    else return undefined;
  }
  const intDigits = point < 0 ? text.length : point;
  const places = point < 0 ? 0 : text.length - point - 1;
  if (intDigits === 0 || (point >= 0 && places === 0) || intDigits + places > MAX_DIGITS || (text[0] === '0' && intDigits > 1)) return undefined;
  return { digits, places };
}

/** One answer's events as a record. */
export function encodeRecord(batch: readonly TapeMarketEvent[]): Buffer {
  const { at, market, event } = batch[0]!;
  const decimals: TapeDecimal[] = [];
  const sides: number[] = [];
  switch (event.type) {
    case 'trade':
      for (const { event: e } of batch) {
        if (e.type !== 'trade') continue;
        decimals.push(e.price, e.qty);
        sides.push(e.side === 'BUY' ? BUY : SELL);
      }
      break;
    case 'ticker':
      decimals.push(event.last);
      break;
    case 'book':
      for (const [p, q] of [...event.bids, ...event.asks]) decimals.push(p, q);
  }
  const stored = decimals.map((d) => (typeof d === 'string' ? (scaledDecimal(d) ?? Buffer.from(d, 'utf8')) : d));
  const symbol = Buffer.from(event.symbol, 'utf8');
  const counts = event.type === 'trade' ? 4 : event.type === 'book' ? 8 : 0;
  const size = 8 + 1 + 2 + symbol.length + 1 + counts + sides.length + stored.reduce((n, d) => n + (Buffer.isBuffer(d) ? 3 + d.length : 8), 0);
  const out = Buffer.alloc(4 + size);
  let o = out.writeUInt32LE(size, 0);
  o = out.writeDoubleLE(at, o);
  o = out.writeUInt8(MARKETS.indexOf(market), o);
  o = out.writeUInt16LE(symbol.length, o);
  o += symbol.copy(out, o);
  o = out.writeUInt8(event.type === 'trade' ? TRADES : event.type === 'ticker' ? TICKER : BOOK, o);
  if (event.type === 'trade') o = out.writeUInt32LE(sides.length, o);
  if (event.type === 'book') o = out.writeUInt32LE(event.asks.length, out.writeUInt32LE(event.bids.length, o));
  const decimal = (d: ScaledDecimal | Buffer) => {
    if (!Buffer.isBuffer(d)) o = out.writeUIntLE(Math.floor(d.digits / 0x100000000), out.writeUInt32LE(d.digits % 0x100000000, out.writeUInt8(d.places, o)), 3);
    else {
      const from = out.writeUInt16LE(d.length, out.writeUInt8(TEXT, o));
      o = from + d.copy(out, from);
    }
  };
  for (let i = 0; i < stored.length; i++) {
    decimal(stored[i]!);
    // A trade's side follows its quantity.
    if (event.type === 'trade' && i % 2 === 1) o = out.writeUInt8(sides[(i - 1) / 2]!, o);
  }
  return out;
}

/** Reads records back; one per file, as it keeps the last symbol read. */
export class RecordDecoder {
  private bytes: Buffer = Buffer.alloc(0);
  private pos = 0;
  private end = 0;
  private symbolBytes: Buffer = Buffer.alloc(0);
  private symbol = '';

  /** The events of the record payload `bytes[start, end)`; undefined when it is not one. */
  decode(bytes: Buffer, start: number, end: number): TapeMarketEvent[] | undefined {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
    if (end - start < 12) return undefined;
    const at = bytes.readDoubleLE(start);
    const market = MARKETS[bytes[start + 8]!];
    const symbolEnd = start + 11 + bytes.readUInt16LE(start + 9);
    if (!Number.isSafeInteger(at) || !market || symbolEnd >= end) return undefined;
    const symbol = this.symbolAt(start + 11, symbolEnd);
    this.pos = symbolEnd + 1;
    let events: TapeMarketEvent[] | undefined;
    try {
      events = this.body(bytes[symbolEnd]!, at, market, symbol);
    } catch (e) {
      // A number read past the buffer (a damaged count or length): the record is damaged.
      if (e instanceof RangeError) return undefined;
      throw e;
    }
    return this.pos === end ? events : undefined;
  }

  private body(kind: number, at: number, market: Market, symbol: string): TapeMarketEvent[] | undefined {
    switch (kind) {
      case TRADES: {
        const n = this.u32();
        if (n === 0 || !this.holds(n, MIN_TRADE)) return undefined;
        const out: TapeMarketEvent[] = new Array(n);
        for (let i = 0; i < n; i++) {
          const price = this.decimal();
          const qty = this.decimal();
          const side = this.bytes[this.pos++];
          if (side !== BUY && side !== SELL) return undefined;
          out[i] = { at, market, event: { type: 'trade', symbol, price, qty, side: side === BUY ? 'BUY' : 'SELL' } };
        }
        return out;
      }
      case TICKER:
        return [{ at, market, event: { type: 'ticker', symbol, last: this.decimal() } }];
      case BOOK: {
        const bids = this.u32();
        const asks = this.u32();
        if (!this.holds(bids + asks, MIN_LEVEL)) return undefined;
        return [{ at, market, event: { type: 'book', symbol, bids: this.levels(bids), asks: this.levels(asks) } }];
      }
      default:
        return undefined;
    }
  }

  /** Whether the rest of the record can hold `n` items of at least `bytes` bytes (a damaged count allocates nothing). */
  private holds(n: number, bytes: number): boolean {
    return n * bytes <= this.end - this.pos;
  }

  private levels(n: number): [TapeDecimal, TapeDecimal][] {
    const out: [TapeDecimal, TapeDecimal][] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = [this.decimal(), this.decimal()];
    return out;
  }

  private u32(): number {
    const n = this.bytes.readUInt32LE(this.pos);
    this.pos += 4;
    return n;
  }

  private decimal(): TapeDecimal {
    const places = this.bytes[this.pos]!;
    if (places === TEXT) {
      const length = this.bytes.readUInt16LE(this.pos + 1);
      const from = this.pos + 3;
      this.pos = from + length;
      if (this.pos > this.end) throw new RangeError('text past the record');
      return this.bytes.toString('utf8', from, this.pos);
    }
    const b = this.bytes;
    const p = this.pos;
    if (p + 8 > this.end || places > MAX_DIGITS) throw new RangeError('not a stored decimal');
    // Seven bytes, low first (digits < 10^15 < 2^56): integer loads, where readDoubleLE copies bytes.
    const low = (b[p + 1]! | (b[p + 2]! << 8) | (b[p + 3]! << 16)) + b[p + 4]! * 0x1000000;
    const high = b[p + 5]! | (b[p + 6]! << 8) | (b[p + 7]! << 16);
    this.pos = p + 8;
    const digits = high * 0x100000000 + low;
    if (digits >= 10 ** MAX_DIGITS) throw new RangeError('not a stored decimal');
    return { digits, places };
  }

  /** The symbol of `bytes[from, to)`: the last one's string again when the bytes are the same (a loop: Buffer.compare is a native call a record). */
  private symbolAt(from: number, to: number): string {
    const last = this.symbolBytes;
    let same = last.length === to - from;
    for (let i = 0; same && i < last.length; i++) same = last[i] === this.bytes[from + i];
    if (!same) {
      this.symbolBytes = Buffer.from(this.bytes.subarray(from, to));
      this.symbol = this.bytes.toString('utf8', from, to);
    }
    return this.symbol;
  }
}
