import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonLossless, RawJsonNumber, stringifyJson } from '../../../src/exchange/json.js';

describe('lossless JSON', () => {
  it('keeps ids beyond 2^53 as their exact digits, also negative and inside arrays', () => {
    const v = parseJsonLossless('{"orderId":150695552109032492,"ids":[165964665990709251,-165964665990709252],"n":2}') as Record<string, unknown>;
    expect(v.orderId).toBe('150695552109032492');
    expect(v.ids).toEqual(['165964665990709251', '-165964665990709252']);
    expect(v.n).toBe(2);
  });

  it('keeps decimals with more digits than a double holds', () => {
    expect(parseJsonLossless('{"p":12345678.123456789}')).toEqual({ p: '12345678.123456789' });
  });

  it('finds a long number wherever a value can start: alone, after whitespace or a newline', () => {
    expect(parseJsonLossless('165964665990709251')).toBe('165964665990709251');
    expect(parseJsonLossless(' -165964665990709251')).toBe('-165964665990709251');
    expect(parseJsonLossless('{"a": \n\t165964665990709251, "b" :[ 1,\n165964665990709252]}')).toEqual({ a: '165964665990709251', b: [1, '165964665990709252'] });
    // Quoted ids are strings already; a long run inside a string after a colon is left alone too.
    expect(parseJsonLossless('{"id":"165964665990709251","m":"at:1659646659907092519"}')).toEqual({ id: '165964665990709251', m: 'at:1659646659907092519' });
  });

  it('leaves digits inside strings alone, escaped quotes included', () => {
    expect(parseJsonLossless('{"s":"a\\"1234567890123456789","t":1}')).toEqual({ s: 'a"1234567890123456789', t: 1 });
  });

  it('agrees with JSON.parse on any JSON whose numbers are exact doubles', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => {
        const text = JSON.stringify(value);
        const lossless = JSON.stringify(parseJsonLossless(text));
        // Long numbers become strings; everything else must match JSON.parse exactly.
        if (!/[\d.]{16,}/.test(text)) expect(lossless).toBe(JSON.stringify(JSON.parse(text)));
      }),
    );
  });

  it('writes raw integers as bare JSON numbers and drops undefined members', () => {
    expect(stringifyJson({ symbol: 'BTCUSDT', orderIds: [new RawJsonNumber('165964665990709251')], x: undefined })).toBe(
      '{"symbol":"BTCUSDT","orderIds":[165964665990709251]}',
    );
    expect(() => new RawJsonNumber('1.5')).toThrow(/integer/);
  });

  it('throws on malformed JSON', () => {
    expect(() => parseJsonLossless('<html>502 Bad Gateway</html>')).toThrow(SyntaxError);
  });
});
