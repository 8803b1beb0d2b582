// Answers handed to a trusted caller without text must be what the caller would have read
// from the text: jsonValue(v) against parseJsonLossless(writeJson(v)).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonLossless } from '../../../src/exchange/json.js';
import { JsonNumber, jsonValue, parsedResponse, writeJson } from '../../../src/sim/json.js';

const viaText = (v: unknown) => parseJsonLossless(writeJson(v));

/** What routes put in answers: JSON values, decimals and ids as number literals, members left undefined. */
const answerPart = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.jsonValue({ maxDepth: 0 }),
    fc.double(),
    fc.integer(),
    fc.constant(undefined),
    fc.bigInt({ min: 0n, max: 10n ** 19n }).map((n) => JsonNumber.id(String(n))),
    fc.tuple(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), fc.nat(99_999_999)).map(([i, f]) => JsonNumber.decimal(`${i}.${f}`)),
  ),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), tie('node'), { maxKeys: 4 })),
})).node;

describe('jsonValue', () => {
  it('gives what reading the written text gives, or says only the text can tell', () => {
    fc.assert(
      fc.property(answerPart, (v) => {
        const got = jsonValue(v);
        if (got) expect(got.value).toEqual(viaText(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads number literals as the client does: beyond 15 digits their text, else the number', () => {
    const v = { orderId: JsonNumber.id('150695552109032492'), free: JsonNumber.decimal('100000'), tiny: JsonNumber.decimal('0.001'), long: JsonNumber.decimal('12345678.123456789') };
    expect(jsonValue(v)?.value).toEqual({ orderId: '150695552109032492', free: 100000, tiny: 0.001, long: '12345678.123456789' });
    expect(jsonValue(v)?.value).toEqual(viaText(v));
  });

  it('leaves out what writeJson leaves out, writes null where it writes null, and is a copy', () => {
    const inner = { a: 1 };
    const v = { u: undefined, f: () => 1, list: [undefined, () => 1, NaN, -0], inner, at: new Date(0) };
    const got = jsonValue(v)!.value as { inner: object; list: unknown[] };
    expect(got).toEqual(viaText(v));
    expect(Object.is(got.list[3], 0)).toBe(true);
    expect(got.inner).not.toBe(inner);
    expect(jsonValue(undefined)?.value).toBeNull();
  });

  it('keeps a "__proto__" member as a member, as JSON.parse does', () => {
    const v = JSON.parse('{"__proto__":{"x":1},"y":2}') as object;
    const got = jsonValue(v)!.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(got).toEqual(viaText(v));
  });

  it('says only the text can tell for a long JS number, a bigint and an array with holes', () => {
    expect(jsonValue({ n: 0.1 + 0.2 })).toBeUndefined();
    expect(jsonValue({ n: 2 ** 60 })).toBeUndefined();
    expect(jsonValue({ n: 1n })).toBeUndefined();
    // eslint-disable-next-line no-sparse-arrays
    expect(jsonValue([1, , 2])).toBeUndefined();
  });
});

describe('parsedResponse', () => {
  it('hands the JSON over and writes the same text only when it is read', () => {
    const body = { orderId: JsonNumber.id('150695552109032492'), price: '30000.5' };
    const res = parsedResponse(200, { 'content-type': 'application/json' }, body);
    expect(res.json).toEqual({ orderId: '150695552109032492', price: '30000.5' });
    expect(res.body).toBe('{"orderId":150695552109032492,"price":"30000.5"}');
    expect(res.body).toBe(res.body);
  });

  it('falls back to text alone where the JSON cannot be built without it', () => {
    const res = parsedResponse(200, {}, { n: 2 ** 60 });
    expect(res.json).toBeUndefined();
    expect(res.body).toBe(writeJson({ n: 2 ** 60 }));
  });
});
