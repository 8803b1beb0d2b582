// The quick readers of market-data text give what JSON.parse and the fast paths give, or
// nothing; every other shape is left to the parser (market-fast.test.ts checks the decoder
// end to end against the plain algorithm).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastDepth, fastTrades, quickDepth, quickTrades } from '../../../src/tape/fast.js';

const decimal = fc.oneof(
  { weight: 30, arbitrary: fc.integer({ min: 0, max: 99_999_999 }).map((n) => String(n / 100)) },
  { weight: 1, arbitrary: fc.constantFrom('1.10', '01', '-2', '1e-5', ' 3', '', '3"', 'x\\"y', '123456789012345678901') },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);
const time = fc.oneof({ weight: 10, arbitrary: fc.integer({ min: 0, max: 2_000_000_000_000 }) }, { weight: 1, arbitrary: fc.constantFrom(1.5, -1, '17', 12345678901234567) });
const side = fc.oneof({ weight: 10, arbitrary: fc.constantFrom('BUY', 'SELL') }, { weight: 1, arbitrary: fc.constantFrom('sell', 'BUYS', '') });
const item = fc.oneof(
  { weight: 10, arbitrary: fc.record({ price: decimal, qty: decimal, time, side }) },
  { weight: 1, arbitrary: fc.record({ id: fc.nat(), price: decimal, qty: decimal, time, side }) },
  { weight: 1, arbitrary: fc.record({ qty: decimal, price: decimal, time, side }) },
);

/** The answer's text, sometimes spaced or cut short. */
const answerText = fc.tuple(fc.array(item, { maxLength: 6 }), fc.constantFrom('plain', 'plain', 'plain', 'spaced', 'cut', 'trailing comma')).map(([items, how]) => {
  const text = how === 'spaced' ? JSON.stringify(items, null, 1) : JSON.stringify(items);
  if (how === 'cut') return text.slice(0, -2) + ']';
  if (how === 'trailing comma' && items.length > 0) return `${text.slice(0, -1)},]`;
  return text;
});

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

describe('quickTrades', () => {
  it('reads the exact text as JSON.parse and fastTrades do, and where each item ends', () => {
    let read = 0;
    fc.assert(
      fc.property(answerText, (text) => {
        // What the decoder hands over: a bracketed list's inside.
        if (!(text.length >= 2 && text.startsWith('[') && text.endsWith(']'))) return;
        const quick = quickTrades(text, 1, text.length - 1);
        if (!quick) return;
        read++;
        expect(quick.items).toEqual(fastTrades(parsed(text)));
        let end = 0;
        expect(quick.ends).toEqual(quick.items.map((t, i) => (end += JSON.stringify(t).length + (i > 0 ? 1 : 0))));
      }),
      { numRuns: 3000 },
    );
    expect(read).toBeGreaterThan(300);
  });

  it('reads an answer the simulator writes, and leaves any other shape alone', () => {
    const text = '[{"price":"30001.17","qty":"0.17527","time":1767225600015,"side":"BUY"},{"price":"29999","qty":"0.5","time":1767225600000,"side":"SELL"}]';
    const first = text.indexOf('},{') + 1;
    expect(quickTrades(text, 1, text.length - 1)).toEqual({ items: JSON.parse(text), ends: [first - 1, text.length - 2] });
    expect(quickTrades('[]', 1, 1)).toEqual({ items: [], ends: [] });
    const odd = ['[{"price":30000,"qty":"1","time":1,"side":"BUY"}]', '[{"price":"1","qty":"1","time":1,"side":"BUY","id":2}]', '[{"price":"1","qty":"1","time":1234567890123456,"side":"BUY"}]'];
    // Times JSON.parse reads otherwise, or not at all: read by the parser.
    for (const time of ['01', '-1', '1.5', '1e3', '', ' 1']) odd.push(`[{"price":"1","qty":"1","time":${time},"side":"SELL"}]`);
    const zero = '[{"price":"1","qty":"1","time":0,"side":"SELL"}]';
    expect(quickTrades(zero, 1, zero.length - 1)).toEqual({ items: [{ price: '1', qty: '1', time: 0, side: 'SELL' }], ends: [zero.length - 2] });
    for (const answer of odd) {
      expect(quickTrades(answer, 1, answer.length - 1)).toBeUndefined();
    }
  });
});

describe('quickDepth', () => {
  it('reads the exact text as JSON.parse and fastDepth do', () => {
    const level = fc.tuple(decimal, decimal);
    let read = 0;
    fc.assert(
      fc.property(fc.record({ time, bids: fc.array(level, { maxLength: 4 }), asks: fc.array(level, { maxLength: 4 }) }), fc.boolean(), (depth, spaced) => {
        const text = spaced ? JSON.stringify(depth, null, 1) : JSON.stringify(depth);
        const quick = quickDepth(text);
        if (!quick) return;
        read++;
        expect(quick).toEqual(fastDepth(parsed(text)));
      }),
      { numRuns: 2000 },
    );
    expect(read).toBeGreaterThan(200);
  });
});
