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
//     c      u16 interval bytes, the interval (UTF-8), u32 candles, then per candle: f64 open
//            time, then open, high, low, close and volume, each as text (u16 bytes, UTF-8)
//   decimal  u8 places (0 to 15), digits in 7 bytes; or u8 255, u16 text bytes, the text (UTF-8)
import type { Decimal } from '../core/decimal.js';
import type { Kline } from '../core/market.js';
import type { Market } from '../core/types.js';
import { LEVEL_CELLS, TRADE_CELLS, type ScaledDecimal, type TapeDecimal } from '../sim/types.js';
import type { TapeMarketEvent } from './market.js';

const TRADES = 0x74; // t
const TICKER = 0x6b; // k
const BOOK = 0x62; // b
const KLINES = 0x63; // c
const BUY = 0x42; // B
const SELL = 0x53; // S
const TEXT = 255;
/** At most this many digits in a ScaledDecimal: its digits are then an exact integer. */
const MAX_DIGITS = 15;
const MARKETS: readonly Market[] = ['spot', 'futures'];
/** The fewest bytes a trade and a book level take (two empty texts, and a side). */
const MIN_TRADE = 7;
const MIN_LEVEL = 6;
/** And a candle (an open time, five empty texts). */
const MIN_CANDLE = 18;

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

/** One answer's events as a record (with its u32 length first). */
export function encodeRecord(batch: readonly TapeMarketEvent[]): Buffer {
  const encoder = new RecordEncoder(256);
  encoder.record(batch);
  return encoder.take();
}

/** Writes records one after another into one buffer; `take()` hands over what is written. */
export class RecordEncoder {
  private buf: Buffer;
  private o = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafeSlow(capacity);
  }

  get length(): number {
    return this.o;
  }

  /** What is written, copied out (the encoder writes over its buffer again). */
  take(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.o);
    this.buf.copy(out, 0, 0, this.o);
    this.o = 0;
    return out;
  }

  u32(n: number): void {
    this.room(4);
    this.o = this.buf.writeUInt32LE(n, this.o);
  }

  text(s: string): void {
    this.room(Buffer.byteLength(s, 'utf8'));
    this.o += this.buf.write(s, this.o, 'utf8');
  }

  /** Writes one answer's events; where its payload lies in `bytes` (after its u32 length). */
  record(batch: readonly TapeMarketEvent[]): { start: number; end: number } {
    const { at, market, event } = batch[0]!;
    const symbolBytes = Buffer.byteLength(event.symbol, 'utf8');
    this.room(4 + 8 + 1 + 2 + symbolBytes + 1 + 8);
    const sizeAt = this.o;
    const b = this.buf;
    let o = b.writeDoubleLE(at, sizeAt + 4);
    b[o++] = MARKETS.indexOf(market);
    o = b.writeUInt16LE(symbolBytes, o);
    o += b.write(event.symbol, o, 'utf8');
    b[o++] = event.type === 'trade' || event.type === 'tradeCells' ? TRADES : event.type === 'ticker' ? TICKER : event.type === 'klines' ? KLINES : BOOK;
    this.o = o;
    switch (event.type) {
      case 'trade':
        this.u32(batch.length);
        for (const { event: e } of batch) {
          if (e.type !== 'trade') throw new Error('a trade record holds trades only');
          this.decimal(e.price);
          this.decimal(e.qty);
          this.room(1);
          this.buf[this.o++] = e.side === 'BUY' ? BUY : SELL;
        }
        break;
      case 'tradeCells': {
        if (batch.length !== 1) throw new Error('a tradeCells event is a record of its own');
        const c = event.cells;
        this.u32(c.length / TRADE_CELLS);
        for (let i = 0; i < c.length; i += TRADE_CELLS) {
          this.decimal({ digits: c[i]!, places: c[i + 1]! });
          this.decimal({ digits: c[i + 2]!, places: c[i + 3]! });
          this.room(1);
          this.buf[this.o++] = c[i + 4] === 1 ? BUY : SELL;
        }
        break;
      }
      case 'ticker':
        this.decimal(event.last);
        break;
      case 'book':
        this.u32(event.bids.length);
        this.u32(event.asks.length);
        for (const side of [event.bids, event.asks]) {
          for (const [p, q] of side) {
            this.decimal(p);
            this.decimal(q);
          }
        }
        break;
      case 'bookCells': {
        const c = event.cells;
        this.u32(event.bids);
        this.u32(c.length / LEVEL_CELLS - event.bids);
        for (let i = 0; i < c.length; i += 2) this.decimal({ digits: c[i]!, places: c[i + 1]! });
        break;
      }
      case 'klines':
        this.shortText(event.interval);
        this.u32(event.klines.length);
        for (const k of event.klines) {
          this.room(8);
          this.o = this.buf.writeDoubleLE(k.openTime, this.o);
          for (const d of [k.open, k.high, k.low, k.close, k.vol]) this.shortText(d);
        }
    }
    this.buf.writeUInt32LE(this.o - sizeAt - 4, sizeAt);
    return { start: sizeAt + 4, end: this.o };
  }

  /** The buffer written into (valid until the next write). */
  get bytes(): Buffer {
    return this.buf;
  }

  /** u16 bytes, then the text (UTF-8). */
  private shortText(s: string): void {
    this.room(2 + Buffer.byteLength(s, 'utf8'));
    this.o = this.buf.writeUInt16LE(Buffer.byteLength(s, 'utf8'), this.o);
    this.o += this.buf.write(s, this.o, 'utf8');
  }

  private decimal(d: TapeDecimal): void {
    const scaled = typeof d === 'string' ? scaledDecimal(d) : d;
    if (scaled === undefined) {
      const text = d as string;
      const bytes = Buffer.byteLength(text, 'utf8');
      this.room(3 + bytes);
      this.buf[this.o] = TEXT;
      this.o = this.buf.writeUInt16LE(bytes, this.o + 1);
      this.o += this.buf.write(text, this.o, 'utf8');
      return;
    }
    this.room(8);
    const b = this.buf;
    const o = this.o;
    // Seven bytes, low first (digits < 10^15 < 2^56).
    const low = scaled.digits % 0x100000000;
    const high = (scaled.digits - low) / 0x100000000;
    b[o] = scaled.places;
    b[o + 1] = low & 0xff;
    b[o + 2] = (low >>> 8) & 0xff;
    b[o + 3] = (low >>> 16) & 0xff;
    b[o + 4] = low >>> 24;
    b[o + 5] = high & 0xff;
    b[o + 6] = (high >>> 8) & 0xff;
    b[o + 7] = high >>> 16;
    this.o = o + 8;
  }

  /** Grows the buffer (keeping what is written) so that `bytes` more fit. */
  private room(bytes: number): void {
    if (this.o + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.o + bytes));
    this.buf.copy(bigger, 0, 0, this.o);
    this.buf = bigger;
  }
}

/** Reads records back (one whose decimals are all digits and places as one tradeCells or bookCells event); one per file, as it keeps the last symbol read. */
export class RecordDecoder {
  private bytes: Buffer = Buffer.alloc(0);
  private pos = 0;
  private end = 0;
  private symbolBytes: Buffer = Buffer.alloc(0);
  private symbol = '';
  /** The last decimal readScaled() read. */
  private digits = 0;
  private places = 0;

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
        const first = this.pos;
        const cells = this.tradeCells(n);
        if (cells === null) return undefined;
        if (cells) return [{ at, market, event: { type: 'tradeCells', symbol, cells } }];
        // A decimal stored as text: a trade event each, as the tape wrote them.
        this.pos = first;
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
        const first = this.pos;
        const cells = this.levelCells(bids + asks);
        if (cells) return [{ at, market, event: { type: 'bookCells', symbol, bids, cells } }];
        // A decimal stored as text: levels as pairs, as the tape wrote them.
        this.pos = first;
        return [{ at, market, event: { type: 'book', symbol, bids: this.levels(bids), asks: this.levels(asks) } }];
      }
      case KLINES: {
        const interval = this.shortText();
        const n = this.u32();
        if (!this.holds(n, MIN_CANDLE)) return undefined;
        const klines: Kline[] = new Array(n);
        for (let i = 0; i < n; i++) {
          const openTime = this.bytes.readDoubleLE(this.pos);
          this.pos += 8;
          const [open, high, low, close, vol] = [this.shortText(), this.shortText(), this.shortText(), this.shortText(), this.shortText()] as Decimal[];
          klines[i] = { openTime, open: open!, high: high!, low: low!, close: close!, vol: vol! };
        }
        return [{ at, market, event: { type: 'klines', symbol, interval, klines } }];
      }
      default:
        return undefined;
    }
  }

  /** A text written as u16 bytes and the text. */
  private shortText(): string {
    const from = this.pos + 2;
    this.pos = from + this.bytes.readUInt16LE(this.pos);
    if (this.pos > this.end) throw new RangeError('text past the record');
    return this.bytes.toString('utf8', from, this.pos);
  }

  /** `n` trades as a `tradeCells` event's cells; undefined when a decimal is stored as text, null when a side is neither B nor S. */
  private tradeCells(n: number): number[] | undefined | null {
    const cells: number[] = new Array(n * TRADE_CELLS);
    for (let i = 0; i < cells.length; i += TRADE_CELLS) {
      if (!this.scaledInto(cells, i) || !this.scaledInto(cells, i + 2)) return undefined;
      const side = this.bytes[this.pos++];
      if (side !== BUY && side !== SELL) return null;
      cells[i + 4] = side === BUY ? 1 : 0;
    }
    return cells;
  }

  /** `n` levels as a `bookCells` event's cells; undefined when a decimal is stored as text. */
  private levelCells(n: number): number[] | undefined {
    const cells: number[] = new Array(n * LEVEL_CELLS);
    for (let i = 0; i < cells.length; i += 2) if (!this.scaledInto(cells, i)) return undefined;
    return cells;
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

  /** A stored decimal's digits and places into `out[k]` and `out[k + 1]`; false (nothing read) when it is stored as text. */
  private scaledInto(out: number[], k: number): boolean {
    if (this.bytes[this.pos] === TEXT) return false;
    this.readScaled();
    out[k] = this.digits;
    out[k + 1] = this.places;
    return true;
  }

  private decimal(): TapeDecimal {
    if (this.bytes[this.pos] === TEXT) {
      const length = this.bytes.readUInt16LE(this.pos + 1);
      const from = this.pos + 3;
      this.pos = from + length;
      if (this.pos > this.end) throw new RangeError('text past the record');
      return this.bytes.toString('utf8', from, this.pos);
    }
    this.readScaled();
    return { digits: this.digits, places: this.places };
  }

  /** Reads a decimal stored as places and digits into `digits` and `places` (fields: no object a number). */
  private readScaled(): void {
    const b = this.bytes;
    const p = this.pos;
    const places = b[p]!;
    if (p + 8 > this.end || places > MAX_DIGITS) throw new RangeError('not a stored decimal');
    // Seven bytes, low first (digits < 10^15 < 2^56): integer loads, where readDoubleLE copies bytes.
    const low = (b[p + 1]! | (b[p + 2]! << 8) | (b[p + 3]! << 16)) + b[p + 4]! * 0x1000000;
    const high = b[p + 5]! | (b[p + 6]! << 8) | (b[p + 7]! << 16);
    this.pos = p + 8;
    const digits = high * 0x100000000 + low;
    if (digits >= 10 ** MAX_DIGITS) throw new RangeError('not a stored decimal');
    this.digits = digits;
    this.places = places;
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
