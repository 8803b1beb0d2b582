// What an operation on decimal strings costs (src/core/decimal.ts), against decimal.js doing the
// same operation on the same strings in the same run (parse, operate, canonical text: what
// dec.* did before its short paths). Operands are what the engine meets: prices and volumes of
// at most 15 digits. One JIT-warm round first, then the median of five.
// Run: `npm run bench -- decimal [--write]` (--write replaces "## Decimals" in RESULTS.md).
import { cpus, loadavg } from 'node:os';
import { Decimal as DecimalJs } from 'decimal.js';
import { dec, type Decimal } from '../src/core/decimal.js';
import { writeSection } from './results.js';

const OPS = 500_000;
const load = loadavg()[0]!.toFixed(2);
const D = DecimalJs.clone({ precision: 60, rounding: DecimalJs.ROUND_HALF_EVEN, toExpNeg: -40, toExpPos: 60 });
const text = (d: DecimalJs) => (d.isZero() ? '0' : d.toFixed().replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''));
const x = (s: string) => s as Decimal;

/** µs per call of `op`, the median of 5 rounds after a warm-up round. */
function perOp(op: () => unknown): number {
  const rounds: number[] = [];
  for (let r = 0; r < 6; r++) {
    const t = performance.now();
    for (let i = 0; i < OPS; i++) op();
    if (r > 0) rounds.push(((performance.now() - t) / OPS) * 1000);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

const cases: Array<[string, () => unknown, () => unknown]> = [
  ['add a fee to a balance', () => dec.add(x('61234.56'), x('0.00123')), () => text(new D('61234.56').plus('0.00123'))],
  ['price times volume', () => dec.mul(x('61234.56'), x('0.0015')), () => text(new D('61234.56').times('0.0015'))],
  ['truncate a price to 2 places', () => dec.truncate(x('61234.56789'), 2), () => text(new D('61234.56789').toDecimalPlaces(2, D.ROUND_DOWN))],
  ['round half-even to 4 places', () => dec.round(x('61234.56789'), 4), () => text(new D('61234.56789').toDecimalPlaces(4, D.ROUND_HALF_EVEN))],
  ['a mid price: (bid + ask) / 2', () => dec.div(x('122469.13'), x('2')), () => text(new D('122469.13').dividedBy('2').toDecimalPlaces(30, D.ROUND_HALF_EVEN))],
  ['a ratio that does not end, to 30 places', () => dec.div(x('12.5'), x('61234.56')), () => text(new D('12.5').dividedBy('61234.56').toDecimalPlaces(30, D.ROUND_HALF_EVEN))],
  ['sum of three', () => dec.sum([x('1.5'), x('2.25'), x('-0.125')]), () => text(new D('1.5').plus('2.25').plus('-0.125'))],
  ['compare', () => dec.lt(x('61234.56'), x('61234.5601')), () => new D('61234.56').lt('61234.5601')],
  ["a price's decimal places (the precision check)", () => dec.places(x('61234.50')), () => new D('61234.50').decimalPlaces()],
];

const rows: string[] = [];
for (const [name, ours, theirs] of cases) {
  if (String(ours()) !== String(theirs())) throw new Error(`${name}: ${String(ours())} is not decimal.js's ${String(theirs())}`);
  const baseline = perOp(theirs);
  const short = perOp(ours);
  rows.push(`| ${name} | ${baseline.toFixed(3)} | ${short.toFixed(3)} | ${(baseline / short).toFixed(1)}x |`);
}

const section = [
  '## Decimals',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} on this machine (${cpus().length} cores, Node ${process.version}); load average ${load} at the start and ${loadavg()[0]!.toFixed(2)} at the end. Run: \`npm run bench -- decimal --write\`.`,
  `Each row: ${OPS.toLocaleString('en')} calls, µs per call, median of 5 rounds after a warm-up. The baseline is decimal.js doing the same operation on the same strings (parse, operate, canonical text), which is what every dec.* call cost before its short path: a decimal of at most 15 digits is an integer below 2^53 over a power of ten, and sums, products, comparisons, rounding and quotients that end are exact integer operations on it, while a quotient that does not end is long division, one exact digit at a time (src/core/decimal.ts; test/unit/core/decimal.test.ts checks them against decimal.js on random and edge operands). Anything longer goes to decimal.js as before.`,
  '',
  '| operation | decimal.js, µs | dec.*, µs | speed-up |',
  '|---|---|---|---|',
  ...rows,
  '',
].join('\n');
console.log(section);
if (process.argv.includes('--write')) console.log(`wrote the Decimals section of ${writeSection('Decimals', section)}`);
