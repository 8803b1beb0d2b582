// Properties of the book over random fills on two symbols of two markets.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { d, dec, ZERO } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import { fillKey, type Fill, type Market } from '../../../src/core/types.js';
import { PositionBook } from '../../../src/positions/index.js';

const LINES: [Market, string][] = [
  ['spot', 'BTCUSDT'],
  ['futures', 'E-BTC-USDT'],
];

/** A pool of distinct trades; awkward prices and volumes so averages do not divide evenly. */
const poolArb = fc
  .array(
    fc.record({
      line: fc.nat({ max: 1 }),
      side: fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL'),
      volume: fc.integer({ min: 1, max: 700 }),
      price: fc.integer({ min: 1, max: 300_000 }),
      fee: fc.integer({ min: -5, max: 50 }),
      feeAsset: fc.constantFrom('USDT', 'BTC', 'PLAT', ''),
    }),
    { minLength: 1, maxLength: 25 },
  )
  .map((raw) =>
    raw.map((r, i): Fill => {
      const [market, symbol] = LINES[r.line]!;
      return {
        tradeId: `t${i}`,
        market,
        symbol,
        venueOrderId: '1' as VenueOrderId,
        side: r.side,
        volume: d(String(r.volume / 100)),
        price: d(String(r.price / 7).slice(0, 12)),
        fee: d(String(r.fee / 1000)),
        feeAsset: r.feeAsset,
        isMaker: false,
        time: i,
      };
    }),
  );

/** A pool and a sequence drawn from it with repeats, in any order. */
const withDuplicatesArb = poolArb.chain((pool) => fc.tuple(fc.constant(pool), fc.array(fc.nat({ max: pool.length - 1 }), { minLength: 1, maxLength: 60 })));

function applyAll(fills: readonly Fill[]): PositionBook {
  const book = new PositionBook();
  for (const f of fills) book.apply(f);
  return book;
}

describe('PositionBook properties', () => {
  it('a sequence with duplicates anywhere gives the same book as the sequence without them', () => {
    fc.assert(
      fc.property(withDuplicatesArb, ([pool, picks]) => {
        const sequence = picks.map((k) => pool[k]!);
        const seen = new Set<string>();
        const deduplicated = sequence.filter((f) => !seen.has(fillKey(f)) && seen.add(fillKey(f)));
        const book = new PositionBook();
        const outcomes = sequence.map((f) => book.applyFill(f).kind);
        expect(book.toJSON()).toEqual(applyAll(deduplicated).toJSON());
        expect(outcomes.filter((o) => o === 'applied').length).toBe(deduplicated.length);
        expect(outcomes.filter((o) => o === 'duplicate').length).toBe(sequence.length - deduplicated.length);
      }),
    );
  });

  it('quantity is the signed sum of fill volumes; realised + unrealised at any mark equals the cash-flow PnL exactly; fees add up per asset', () => {
    fc.assert(
      fc.property(poolArb, fc.integer({ min: 1, max: 10_000_000 }), (fills, markUnits) => {
        const book = applyAll(fills);
        const mark = d(String(markUnits / 113).slice(0, 14));
        for (const [market, symbol] of LINES) {
          const mine = fills.filter((f) => f.market === market && f.symbol === symbol);
          const entry = book.entry(market, symbol);
          const signed = dec.sum(mine.map((f) => (f.side === 'BUY' ? f.volume : dec.neg(f.volume))));
          expect(entry.quantity).toBe(signed);
          // Cash flow: sells bring in price x volume, buys pay it; the open quantity is valued at the mark.
          const cash = dec.sum(mine.map((f) => (f.side === 'SELL' ? dec.mul(f.volume, f.price) : dec.neg(dec.mul(f.volume, f.price)))));
          const cashPnl = dec.add(cash, dec.mul(signed, mark));
          expect(dec.add(entry.realizedPnl, book.unrealizedPnl(market, symbol, mark))).toBe(cashPnl);
          const quoteFees = dec.sum(mine.filter((f) => f.feeAsset === 'USDT' || f.feeAsset === '').map((f) => f.fee));
          expect(entry.fees).toBe(quoteFees);
          for (const asset of ['BTC', 'PLAT']) {
            const paid = dec.sum(mine.filter((f) => f.feeAsset === asset).map((f) => f.fee));
            expect(entry.otherFees[asset] ?? ZERO).toBe(paid);
          }
          // Flat means no entry value left, and the average is 0.
          if (dec.isZero(entry.quantity)) expect([entry.entryValue, entry.avgEntryPrice]).toEqual([ZERO, ZERO]);
          else expect(dec.isNegative(entry.entryValue)).toBe(dec.isNegative(entry.quantity));
        }
      }),
    );
  });

  it('saving and restoring mid-stream changes nothing', () => {
    fc.assert(
      fc.property(poolArb, fc.nat(), (fills, cut) => {
        const at = cut % (fills.length + 1);
        const first = applyAll(fills.slice(0, at));
        const restored = PositionBook.fromSnapshot(JSON.parse(JSON.stringify(first.toJSON())));
        // Replaying everything on the restored book: the first part is recognised as applied.
        for (const f of fills) restored.apply(f);
        expect(restored.toJSON()).toEqual(applyAll(fills).toJSON());
      }),
    );
  });

  it('a checkpoint (lines without applied keys) restored, then the fills after it, gives the book of every fill', () => {
    fc.assert(
      fc.property(poolArb, fc.nat(), (fills, cut) => {
        const at = cut % (fills.length + 1);
        const restored = new PositionBook();
        restored.restore(JSON.parse(JSON.stringify(applyAll(fills.slice(0, at)).checkpoint())));
        for (const f of fills.slice(at)) restored.apply(f);
        const all = applyAll(fills);
        for (const [market, symbol] of LINES) expect(restored.entry(market, symbol)).toEqual(all.entry(market, symbol));
        expect(restored.snapshot()).toEqual(all.snapshot());
      }),
    );
  });

  it('unrealised PnL is linear in the mark: quantity x (m2 - m1)', () => {
    fc.assert(
      fc.property(poolArb, fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 100_000 }), (fills, a, b) => {
        const book = applyAll(fills);
        const m1 = d(String(a));
        const m2 = d(String(b));
        const e = book.entry('spot', 'BTCUSDT');
        expect(dec.sub(book.unrealizedPnl('spot', 'BTCUSDT', m2), book.unrealizedPnl('spot', 'BTCUSDT', m1))).toBe(dec.mul(e.quantity, dec.sub(m2, m1)));
      }),
    );
  });
});
