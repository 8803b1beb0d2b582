// The field readers' decimals: the shortcut for text that is canonical already must give what
// the exact path (toDecimal) gives, and refuse what it refuses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toDecimal } from '../../../src/core/decimal.js';
import { MalformedResponseError } from '../../../src/core/errors.js';
import { Reader } from '../../../src/exchange/reader.js';

const exact = (v: unknown): string | 'refused' => {
  try {
    return toDecimal(v, 'x', { fromVenue: true });
  } catch {
    return 'refused';
  }
};
const read = (v: unknown): string | 'refused' => {
  try {
    return new Reader('spot.account').sdec({ v }, 'v', 'body');
  } catch (e) {
    if (e instanceof MalformedResponseError) return 'refused';
    throw e;
  }
};

const digits = fc.stringMatching(/^[0-9]{1,20}$/);
const decimalText = fc.oneof(
  fc.tuple(fc.constantFrom('', '-', '+'), digits, fc.option(digits, { nil: undefined })).map(([s, i, f]) => `${s}${i}${f === undefined ? '' : `.${f}`}`),
  fc.constantFrom('0', '-0', '0.0', '-0.000', '00.5', '1.', '.5', '1e-7', '1E5', '-2.5e3', ' 1.5', 'abc', '', 'NaN', 'Infinity', '0.10', '10'),
);

describe('Reader.sdec', () => {
  it('reads text and JSON numbers exactly as toDecimal does, canonical or not', () => {
    fc.assert(
      fc.property(fc.oneof(decimalText, fc.double(), fc.integer()), (v) => {
        expect(read(v)).toBe(exact(v));
      }),
      { numRuns: 5000 },
    );
  });

  it('gives canonical text back as it came, and normalises the rest', () => {
    expect(['30000.5', '0.001', '-3', '0'].map(read)).toEqual(['30000.5', '0.001', '-3', '0']);
    expect(['30000.50', '-0', '0.00100000', '1e-7', 0.1, -0].map(read)).toEqual(['30000.5', '0', '0.001', '0.0000001', '0.1', '0']);
  });
});
