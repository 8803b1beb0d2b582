import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { d, dec, DecimalFormatError, toDecimal, type Decimal as DecimalText } from '../../../src/core/decimal.js';

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
    expect(toDecimal('1E+3', 'x', { fromVenue: true })).toBe('1000');
  });

  it('takes only plain decimal text from config and strategies, naming the field and the plain text to write', () => {
    expect(() => toDecimal('1e-3', 'price')).toThrow('price must be plain decimal text: digits, one optional point, an optional leading minus, no exponent (got "1e-3"): write "0.001"');
    expect(() => toDecimal('+5', 'volume')).toThrow(/^volume must be plain decimal text.* \(got "\+5"\): write "5"$/);
    expect(() => toDecimal('2.5E+2', 'literal')).toThrow(/write "250"$/);
    // Beyond any amount: refused from the exponent alone, never expanded (this one aborted the process).
    expect(() => toDecimal('1e900000000', 'maxNotionalPerOrder')).toThrow('maxNotionalPerOrder must be plain decimal text: digits, one optional point, an optional leading minus, no exponent (that exponent is beyond any amount) (got "1e900000000")');
    expect(() => toDecimal('1e-100000000', 'x')).toThrow(/beyond any amount/);
    for (const plain of ['0.001', '-3', ' 7 ', '00.50']) expect(toDecimal(plain, 'x')).toBe(String(Number(plain)));
  });

  it('from the venue, reads exponents within +-40 (text or JSON number) and refuses bigger ones unexpanded, naming the field', () => {
    expect(toDecimal('1e40', 'x', { fromVenue: true })).toBe(`1${'0'.repeat(40)}`);
    expect(toDecimal(1e-40, 'x', { fromVenue: true })).toBe(`0.${'0'.repeat(39)}1`);
    expect(toDecimal('+0.05', 'rose', { fromVenue: true })).toBe('0.05');
    expect(() => toDecimal('1e41', 'balances[0].free', { fromVenue: true })).toThrow('balances[0].free must be a decimal of sane size, its exponent within +-40 (got "1e41")');
    expect(() => toDecimal(1e-300, 'fee', { fromVenue: true })).toThrow(/^fee must be a decimal of sane size/);
    expect(() => toDecimal('1e900000000', 'x', { fromVenue: true })).toThrow(DecimalFormatError);
    expect(() => toDecimal('-1e-900000000', 'x', { fromVenue: true })).toThrow(DecimalFormatError);
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

  it('the short path (15 digits or fewer, in exact integers) answers exactly as decimal.js does, at every length and at the edges of its range', () => {
    // Mantissas around 2^53 and 10^15, scales that push an aligned operand past 2^53, and text
    // that is not canonical (leading and trailing zeros, -0), as journals and venues may hand over.
    const mantissa = fc.oneof(
      fc.bigInt({ min: -(10n ** 6n), max: 10n ** 6n }),
      fc.bigInt({ min: -(10n ** 16n), max: 10n ** 16n }),
      fc.tuple(fc.bigInt({ min: 2n ** 53n - 1000n, max: 2n ** 53n + 1000n }), fc.boolean()).map(([m, neg]) => (neg ? -m : m)),
      fc.constantFrom(0n, 999_999_999_999_999n, 1_000_000_000_000_000n, -999_999_999_999_999n),
    );
    const text = fc.tuple(mantissa, fc.integer({ min: 0, max: 18 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })).map(([units, scale, lead, trail]) => {
      const s = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
      const body = `${'0'.repeat(lead)}${scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`}${scale > 0 ? '0'.repeat(trail) : ''}`;
      return (units < 0n || (units === 0n && lead === 1) ? `-${body}` : body) as DecimalText;
    });
    const R = Decimal.clone({ precision: 60, toExpNeg: -40, toExpPos: 60 });
    const canon = (x: Decimal) => d(x.toFixed());
    const agrees = (a: DecimalText, b: DecimalText) => {
      const [x, y] = [new R(a), new R(b)];
        expect(dec.add(a, b)).toBe(canon(x.plus(y)));
        expect(dec.sub(a, b)).toBe(canon(x.minus(y)));
        expect(dec.mul(a, b)).toBe(canon(x.times(y)));
        expect(dec.cmp(a, b)).toBe(x.comparedTo(y));
        expect([dec.eq(a, b), dec.lt(a, b), dec.lte(a, b), dec.gt(a, b), dec.gte(a, b)]).toEqual([x.eq(y), x.lt(y), x.lte(y), x.gt(y), x.gte(y)]);
        expect([dec.min(a, b), dec.max(a, b)]).toEqual([x.lt(y) ? a : b, x.gt(y) ? a : b]);
        expect([dec.isZero(a), dec.isNegative(a), dec.isPositive(a)]).toEqual([x.isZero(), x.isNeg() && !x.isZero(), x.isPos() && !x.isZero()]);
        expect([dec.neg(a), dec.abs(a)]).toEqual([canon(x.neg()), canon(x.abs())]);
        expect(dec.places(a)).toBe(x.decimalPlaces());
        for (const places of [0, 1, 2, 5, 8]) {
          expect(dec.truncate(a, places)).toBe(canon(x.toDecimalPlaces(places, R.ROUND_DOWN)));
          expect(dec.roundUp(a, places)).toBe(canon(x.toDecimalPlaces(places, R.ROUND_UP)));
          expect(dec.round(a, places)).toBe(canon(x.toDecimalPlaces(places, R.ROUND_HALF_EVEN)));
        }
        if (!y.isZero()) for (const places of [30, 2, 0]) expect(dec.div(a, b, places)).toBe(canon(x.dividedBy(y).toDecimalPlaces(places, R.ROUND_HALF_EVEN)));
        expect(dec.sum([a, b, a])).toBe(canon(x.plus(y).plus(x)));
    };
    // Where an integer would pass 2^53 (a sum or a product that a double cannot hold: odd, above
    // it), or one side brought to the other's scale would.
    const edges = [
      ['900719925474099', '90071992547409.9'],
      ['94906269', '94906269'],
      ['900719925474099.1', '900719925474099.1'],
      ['123456789012345', '1234567890.12345'],
      ['9007199254740991', '9007199254740990.9'],
      // Quotients that end (a mid price, a scale below zero) and halves to round.
      ['60001.23', '2'],
      ['100', '0.01'],
      ['-0.15', '1'],
      ['0.25', '-0.5'],
      ['1', '3'],
    ] as const;
    for (const [a, b] of edges) for (const [p, q] of [[a, b], [b, a]] as const) agrees(p as DecimalText, q as DecimalText);
    fc.assert(fc.property(text, text, agrees), { numRuns: 5000 });
  });
  it('division of short decimals, by long division where the quotient does not end, rounds half-even at any places as decimal.js does', () => {
    const R = Decimal.clone({ precision: 60, toExpNeg: -40, toExpPos: 60 });
    // Up to 15 digits, divisors small and at the short path's largest.
    const short = (max: bigint) =>
      fc.tuple(fc.bigInt({ min: -max, max }), fc.integer({ min: 0, max: 15 })).map(([units, scale]) => {
        const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
        return d(`${units < 0n ? '-' : ''}${scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`}`);
      });
    const divisor = fc.oneof(short(10n ** 6n), short(999_999_999_999_999n), fc.constantFrom(d('900719925474099'), d('900719925474100'), d('3'), d('0.7'), d('-12.5'))).filter((b) => !dec.isZero(b));
    const agrees = (a: DecimalText, b: DecimalText, places: number) => {
      expect(dec.div(a, b, places)).toBe(d(new R(a).dividedBy(b).toDecimalPlaces(places, R.ROUND_HALF_EVEN).toFixed()));
    };
    // Halves to even, a carry through nines, a sign on what rounds to zero.
    for (const [a, b, places] of [['1', '8', 2], ['3', '8', 2], ['-1', '3', 0], ['2', '3', 0], ['9.995', '1', 2], ['0.0001', '-3', 2], ['99999', '0.7', 30]] as const) agrees(d(a), d(b), places);
    fc.assert(fc.property(short(999_999_999_999_999n), divisor, fc.integer({ min: 0, max: 30 }), agrees), { numRuns: 5000 });
  });

  it('a quotient of short decimals rounded once at few places has the digits of its 30-place value rounded again', () => {
    // What the simulator's ticker relies on (its rise is one division to 6 places): a ratio of
    // integers below 10^15 is never within 10^-30 of a half at 6 places, unless it is one.
    const ticks = fc.bigInt({ min: 1n, max: 999_999_999_999_999n });
    const price = fc.tuple(ticks, fc.integer({ min: 0, max: 8 })).map(([units, scale]) => {
      const digits = units.toString().padStart(scale + 1, '0');
      return d(scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`);
    });
    const once = (a: DecimalText, b: DecimalText, places: number) => {
      expect(dec.div(a, b, places)).toBe(dec.round(dec.div(a, b), places));
    };
    // Exact halves at 6 places (half-even both ways), and a ratio just off one.
    for (const [a, b] of [['0.0000005', '1'], ['0.0000015', '1'], ['1', '2000000'], ['3', '2000000'], ['1000001', '2000000000000']] as const) once(d(a), d(b), 6);
    fc.assert(fc.property(price, price, fc.integer({ min: 0, max: 8 }), (last, open, places) => once(dec.sub(last, open), open, places)), { numRuns: 3000 });
  });
});
