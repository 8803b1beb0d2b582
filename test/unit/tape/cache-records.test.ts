// An event cache record: the events written come back, plain decimals as ScaledDecimal with the
// same text, anything else as its text; a damaged record is refused, not misread.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { SimExchange } from '../../../src/sim/index.js';
import type { RecordedMarketEvent, TapeDecimal } from '../../../src/sim/types.js';
import { tapeDecimalText } from '../../../src/sim/units.js';
import { encodeRecord, RecordDecoder, RecordEncoder } from '../../../src/tape/cache-records.js';
import type { TapeMarketEvent } from '../../../src/tape/market.js';
import { tradesOf } from './helpers.js';

const roundTrip = (batch: TapeMarketEvent[]) => {
  const record = encodeRecord(batch);
  return new RecordDecoder().decode(record, 4, record.length);
};
/** The events as one each: a `tradeCells` event as its `trade` events. */
const each = (events: readonly TapeMarketEvent[]): RecordedMarketEvent[] => events.flatMap((e) => (e.event.type === 'tradeCells' ? tradesOf(e.event) : [e.event]));
const trade = (price: string, qty = '1', side: 'BUY' | 'SELL' = 'BUY'): TapeMarketEvent => ({ at: 5, market: 'spot', event: { type: 'trade', symbol: 'BTCUSDT', price, qty, side } });
const priceOf = (text: string): TapeDecimal => {
  const e = each(roundTrip([trade(text)])!)[0]!;
  return e.type === 'trade' ? e.price : 'not a trade';
};

describe('event cache records', () => {
  it('gives plain decimals back as ScaledDecimal and anything else as its text', () => {
    // All plain: one `tradeCells` event, each trade's price and quantity as digits and places, then its side.
    expect(roundTrip([trade('29999.32', '0.5'), trade('1', '2', 'SELL')])).toEqual([{ at: 5, market: 'spot', event: { type: 'tradeCells', symbol: 'BTCUSDT', cells: [2999932, 2, 5, 1, 1, 1, 0, 2, 0, 0] } }]);
    // A decimal kept as text: a `trade` event each, as written.
    expect(roundTrip([trade('29999.32', '0.5'), trade('1e5', '2', 'SELL')])!.map((e) => e.event)).toEqual([
      { type: 'trade', symbol: 'BTCUSDT', price: { digits: 2999932, places: 2 }, qty: { digits: 5, places: 1 }, side: 'BUY' },
      { type: 'trade', symbol: 'BTCUSDT', price: '1e5', qty: { digits: 2, places: 0 }, side: 'SELL' },
    ]);
    // A `tradeCells` event is written as the trades it stands for.
    const batch = [trade('29999.32', '0.5'), trade('1', '2', 'SELL')];
    expect(encodeRecord(roundTrip(batch)!)).toEqual(encodeRecord(batch));
    expect(priceOf('0.00100')).toEqual({ digits: 100, places: 5 });
    expect(priceOf('123456789012.345')).toEqual({ digits: 123456789012345, places: 3 });
    for (const text of ['1234567890123.456', '-1', '1e5', '007', '.5', '5.', '1.2.3', '', '٣']) expect(priceOf(text)).toBe(text);
  });

  it('gives every decimal its text back', () => {
    const digits = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });
    const integer = fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...'123456789'), digits(0, 12)).map(([a, b]) => a + b));
    const plain = fc.tuple(integer, fc.option(digits(1, 9))).map(([i, f]) => (f === null ? i : `${i}.${f}`));
    const anything = fc.string({ unit: fc.constantFrom('0', '1', '9', '.', '-', 'e', '+', ' ') });
    fc.assert(
      fc.property(fc.oneof(plain, anything), (text) => {
        expect(tapeDecimalText(priceOf(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives books, tickers, markets and symbols back', () => {
    // All plain: one `bookCells` event, the bids' levels first, each price and quantity as digits and places.
    const book: TapeMarketEvent = { at: 7, market: 'futures', event: { type: 'book', symbol: 'E-BTC USDT', bids: [['30001.5', '0.25']], asks: [['30002', '4']] } };
    expect(roundTrip([book])).toEqual([{ at: 7, market: 'futures', event: { type: 'bookCells', symbol: 'E-BTC USDT', bids: 1, cells: [300015, 1, 25, 2, 30002, 0, 4, 0] } }]);
    expect(encodeRecord(roundTrip([book])!)).toEqual(encodeRecord([book]));
    // A decimal kept as text: levels as pairs, as written; an empty side.
    const odd: TapeMarketEvent = { at: 7, market: 'futures', event: { type: 'book', symbol: 'E-BTC USDT', bids: [], asks: [['30002', '4'], ['3e4', '1']] } };
    expect(roundTrip([odd])).toEqual([{ ...odd, event: { ...odd.event, asks: [[{ digits: 30002, places: 0 }, { digits: 4, places: 0 }], ['3e4', { digits: 1, places: 0 }]] } }]);
    expect(roundTrip([{ at: 8, market: 'spot', event: { type: 'ticker', symbol: 'ÉTH', last: '2001.5' } }])).toEqual([{ at: 8, market: 'spot', event: { type: 'ticker', symbol: 'ÉTH', last: { digits: 20015, places: 1 } } }]);
  });

  it('writes records one after another, growing its buffer, and starts over after take()', () => {
    const encoder = new RecordEncoder(8);
    const batches = Array.from({ length: 50 }, (_, i) => [trade(`${30000 + i}.5`, `${i + 1}`), trade('1e5', '0.25', 'SELL')]);
    for (const batch of batches) encoder.record(batch);
    const bytes = encoder.take();
    expect(encoder.length).toBe(0);
    const decoder = new RecordDecoder();
    const back: string[] = [];
    for (let at = 0; at < bytes.length; at += 4 + bytes.readUInt32LE(at)) {
      for (const e of decoder.decode(bytes, at + 4, at + 4 + bytes.readUInt32LE(at))!) back.push(e.event.type === 'trade' ? `${tapeDecimalText(e.event.price)} ${tapeDecimalText(e.event.qty)} ${e.event.side}` : '');
    }
    expect(back).toEqual(batches.flatMap((b) => b.map((t) => (t.event.type === 'trade' ? `${tapeDecimalText(t.event.price)} ${tapeDecimalText(t.event.qty)} ${t.event.side}` : ''))));
    encoder.record(batches[0]!);
    expect(encoder.take()).toEqual(encodeRecord(batches[0]!));
  });

  it('refuses a damaged record', () => {
    const record = encodeRecord([trade('30000.5'), trade('30001', '0.25', 'SELL')]);
    const decode = (bytes: Buffer, end = bytes.length) => new RecordDecoder().decode(bytes, 4, end);
    expect(each(decode(record)!)).toHaveLength(2);
    const kind = record.indexOf('BTCUSDT') + 'BTCUSDT'.length;
    const changed = (at: number, value: number) => {
      const copy = Buffer.from(record);
      copy[at] = value;
      return copy;
    };
    expect(decode(record, record.length - 1)).toBeUndefined();
    expect(decode(Buffer.concat([record, Buffer.from([0])]), record.length + 1)).toBeUndefined();
    expect(decode(changed(kind, 'x'.charCodeAt(0)))).toBeUndefined();
    expect(decode(changed(kind + 4, 0xff))).toBeUndefined(); // a count of billions
    expect(decode(changed(record.length - 1, 'X'.charCodeAt(0)))).toBeUndefined(); // a side
    expect(decode(changed(kind + 5, 16))).toBeUndefined(); // places beyond 15
    expect(decode(changed(12, 2))).toBeUndefined(); // a market
  });

  it('gives the simulator the same market as the text would', () => {
    const text: RecordedMarketEvent = { type: 'book', symbol: 'BTCUSDT', bids: [['30000.10', '1.50000'], ['29999', '2']], asks: [['30001', '0.25'], ['30002.5', '4']] };
    const cached = roundTrip([{ at: 5, market: 'spot', event: text }])![0]!.event;
    const state = (ev: RecordedMarketEvent) => {
      const sim = new SimExchange({ clock: new ManualClock(5), seed: 1 });
      sim.applyMarketEvent(ev);
      const m = sim.markets.get('BTCUSDT')!;
      return { bids: m.book.levels('BUY', 10), asks: m.book.levels('SELL', 10), mid: m.midTicks };
    };
    expect(cached).not.toEqual(text);
    expect(state(cached)).toEqual(state(text));
    expect(() => state({ type: 'trade', symbol: 'BTCUSDT', price: { digits: 300001, places: 3 }, qty: '1', side: 'BUY' })).toThrow(/300.001 has more decimals/);
  });

  it('gives the simulator the same trades packed as one by one', () => {
    const trades = [trade('30001', '0.5'), trade('30000.5', '0.25', 'SELL'), trade('30003', '2'), trade('29999', '1.5', 'SELL')];
    const [packed] = roundTrip(trades)!;
    expect(packed!.event.type).toBe('tradeCells');
    const market = (apply: (sim: SimExchange) => void) => {
      const sim = new SimExchange({ clock: new ManualClock(5), seed: 1 });
      sim.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [['30000', '1'], ['29999', '3']], asks: [['30001', '1'], ['30002', '1']] });
      apply(sim);
      const m = sim.markets.get('BTCUSDT')!;
      return { bids: m.book.levels('BUY', 10), asks: m.book.levels('SELL', 10), prints: m.recentTrades(10), last: m.lastTicks };
    };
    const oneByOne = market((sim) => trades.forEach((t) => sim.applyMarketEvent(t.event)));
    // The trades took liquidity and printed: the comparison below is not between two empty markets.
    expect(oneByOne.prints).toHaveLength(7); // fills, and what the book could not fill, printed at the trade's price
    expect(oneByOne.asks).toEqual([]);
    expect(oneByOne.bids).toEqual([[2999900, 250000]]);
    expect(market((sim) => sim.applyMarketEvent(packed!.event))).toEqual(oneByOne);
    // A trade finer than the tick stops the run there, as it would one by one.
    const [fine] = roundTrip([trade('30001'), trade('30000.001')])!;
    const sim = new SimExchange({ clock: new ManualClock(5), seed: 1 });
    expect(() => sim.applyMarketEvent(fine!.event)).toThrow(/30000.001 has more decimals/);
    const firstOnly = new SimExchange({ clock: new ManualClock(5), seed: 1 });
    firstOnly.applyMarketEvent(trade('30001').event);
    const prints = (s: SimExchange) => s.markets.get('BTCUSDT')!.recentTrades(100);
    expect(prints(firstOnly).length).toBeGreaterThan(0);
    expect(prints(sim)).toEqual(prints(firstOnly));
  });
});
