// An event cache line read from its bytes: plain decimals come back as ScaledDecimal, and every
// decimal's text is the one written; what split(' ') refused is refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { SimExchange } from '../../../src/sim/index.js';
import type { TapeDecimal } from '../../../src/sim/types.js';
import { tapeDecimalText } from '../../../src/sim/units.js';
import { CacheLineDecoder } from '../../../src/tape/cache-lines.js';

const decode = (line: string) => {
  const bytes = Buffer.from(`${line}\n`, 'utf8');
  return new CacheLineDecoder().decode(bytes, 0, bytes.length - 1);
};
const tradeOf = (price: string) => decode(`5 spot BTCUSDT t ${price} 1 B`)![0]!.event;
const priceOf = (text: string): TapeDecimal => {
  const e = tradeOf(text);
  return e.type === 'trade' ? e.price : 'not a trade';
};

describe('event cache lines', () => {
  it('reads plain decimals as ScaledDecimal and leaves anything else as its text', () => {
    expect(tradeOf('29999.32')).toMatchObject({ price: { digits: 2999932, places: 2 }, qty: { digits: 1, places: 0 }, side: 'BUY' });
    expect(tradeOf('0.00100')).toMatchObject({ price: { digits: 100, places: 5 } });
    expect(tradeOf('123456789012.345')).toMatchObject({ price: { digits: 123456789012345, places: 3 } });
    for (const text of ['1234567890123.456', '-1', '1e5', '007', '.5', '5.', '1.2.3', '', '٣']) expect(tradeOf(text)).toMatchObject({ price: text });
  });

  it('gives every decimal its text back', () => {
    const digits = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });
    const integer = fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...'123456789'), digits(0, 12)).map(([a, b]) => a + b));
    const plain = fc.tuple(integer, fc.option(digits(1, 9))).map(([i, f]) => (f === null ? i : `${i}.${f}`));
    const anything = fc.string({ unit: fc.constantFrom('0', '1', '9', '.', '-', 'e', '+') });
    fc.assert(
      fc.property(fc.oneof(plain, anything), (text) => {
        expect(tapeDecimalText(priceOf(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses what is no event line, as splitting it did', () => {
    expect(decode('5 spot BTCUSDT b 0 0')).toEqual([{ at: 5, market: 'spot', event: { type: 'book', symbol: 'BTCUSDT', bids: [], asks: [] } }]);
    expect(decode('5 futures E%20X k 1.5')).toEqual([{ at: 5, market: 'futures', event: { type: 'ticker', symbol: 'E X', last: { digits: 15, places: 1 } } }]);
    for (const line of ['', '5 spot BTCUSDT', '5 spot BTCUSDT t', '5 spot BTCUSDT t 1 2', '5 spot BTCUSDT t 1 2 X', '5 spot BTCUSDT t 1 2 BB', '5 spot BTCUSDT t 1 2 B ', 'x spot BTCUSDT k 1', '5 perp BTCUSDT k 1', '5 spot %E0 k 1', '5 spot BTCUSDT k 1 2', '5 spot BTCUSDT b 1 0 1', '5 spot BTCUSDT b 0 1 1 2 3', '5 spot BTCUSDT q 1']) {
      expect(decode(line)).toBeUndefined();
    }
  });

  it('gives the simulator the same market as the text would', () => {
    const line = '5 spot BTCUSDT b 2 2 30000.10 1.50000 29999 2 30001 0.25 30002.5 4';
    const cached = decode(line)![0]!.event;
    const f = line.split(' ');
    const text = { type: 'book' as const, symbol: 'BTCUSDT', bids: [[f[6]!, f[7]!], [f[8]!, f[9]!]] as const, asks: [[f[10]!, f[11]!], [f[12]!, f[13]!]] as const };
    const state = (ev: typeof cached) => {
      const sim = new SimExchange({ clock: new ManualClock(5), seed: 1 });
      sim.applyMarketEvent(ev);
      const m = sim.markets.get('BTCUSDT')!;
      return { bids: m.book.levels('BUY', 10), asks: m.book.levels('SELL', 10), mid: m.midTicks };
    };
    expect(state(cached)).toEqual(state(text));
    expect(() => state({ type: 'trade', symbol: 'BTCUSDT', price: { digits: 300001, places: 3 }, qty: '1', side: 'BUY' })).toThrow(/300.001 has more decimals/);
  });
});
