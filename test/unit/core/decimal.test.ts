import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { d, dec, DecimalFormatError, toDecimal } from '../../../src/core/decimal.js';

describe('Decimal', () => {
  it('does exact decimal arithmetic where floats fail', () => {
    expect(dec.add(d('0.1'), d('0.2'))).toBe('0.3');
    expect(dec.mul(d('1.1'), d('1.1'))).toBe('1.21');
    expect(dec.sub(d('30000.01'), d('0.01'))).toBe('30000');
    expect(dec.div(d('1'), d('4'))).toBe('0.25');
  });

  it('canonicalises: no trailing zeros, no exponent, no -0', () => {
    expect(d('1.5000')).toBe('1.5');
    expect(d('-0.000')).toBe('0');
    expect(toDecimal(1e-7, 'x', { fromVenue: true })).toBe('0.0000001');
    expect(toDecimal('1E+3', 'x')).toBe('1000');
  });

  it('rejects non-decimals naming the field and the fix', () => {
    expect(() => toDecimal('1,5', 'price')).toThrow(/price must be a decimal written as a string like "0.015"/);
    expect(() => toDecimal(1.5, 'volume')).toThrow(DecimalFormatError);
    expect(() => toDecimal(Number.NaN, 'x', { fromVenue: true })).toThrow(/x must be a decimal/);
    expect(() => toDecimal('', 'x')).toThrow(/got ""/);
  });

  it('truncates toward zero and counts places', () => {
    expect(dec.truncate(d('1.23999'), 2)).toBe('1.23');
    expect(dec.truncate(d('-1.239'), 2)).toBe('-1.23');
    expect(dec.places(d('0.00100'))).toBe(3);
    expect(dec.fixed(d('2'), 3)).toBe('2.000');
  });

  it('addition is exact: (a + b) - b == a for any decimals', () => {
    const decimalText = fc
      .tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 12 }))
      .map(([units, scale]) => {
        const s = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
        const text = scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
        return d(units < 0n ? `-${text}` : text);
      });
    fc.assert(fc.property(decimalText, decimalText, (a, b) => dec.eq(dec.sub(dec.add(a, b), b), a)));
  });
});
