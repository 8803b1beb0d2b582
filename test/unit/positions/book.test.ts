import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { d, dec, type Decimal } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { Fill, Side } from '../../../src/core/types.js';
import { PositionBook } from '../../../src/positions/index.js';

let n = 0;
const fill = (side: Side, volume: string, price: string, over: Partial<Fill> = {}): Fill => ({
  tradeId: String(++n),
  market: 'spot',
  symbol: 'BTCUSDT',
  venueOrderId: '1' as VenueOrderId,
  side,
  price: d(price),
  volume: d(volume),
  fee: d('0'),
  feeAsset: 'USDT',
  isMaker: true,
  time: 0,
  ...over,
});

describe('PositionBook', () => {
  it('opens, adds, partially closes, closes, flips', () => {
    const b = new PositionBook();
    b.apply(fill('BUY', '1', '100'));
    b.apply(fill('BUY', '1', '200'));
    expect(b.position('spot', 'BTCUSDT')).toMatchObject({ quantity: '2', avgEntryPrice: '150', realizedPnl: '0' });
    b.apply(fill('SELL', '0.5', '170'));
    expect(b.position('spot', 'BTCUSDT')).toMatchObject({ quantity: '1.5', avgEntryPrice: '150', realizedPnl: '10' });
    b.apply(fill('SELL', '2.5', '160'));
    expect(b.position('spot', 'BTCUSDT')).toMatchObject({ quantity: '-1', avgEntryPrice: '160', realizedPnl: '25' });
    b.apply(fill('BUY', '1', '150'));
    expect(b.position('spot', 'BTCUSDT')).toMatchObject({ quantity: '0', avgEntryPrice: '0', realizedPnl: '35' });
  });

  it('applies a trade id once', () => {
    const b = new PositionBook();
    const f = fill('BUY', '1', '100');
    expect(b.apply(f)).toBe(true);
    expect(b.apply(f)).toBe(false);
    expect(b.position('spot', 'BTCUSDT').quantity).toBe('1');
  });

  it('sums fees in quote terms', () => {
    const b = new PositionBook();
    b.apply(fill('BUY', '1', '100', { fee: d('0.001'), feeAsset: 'BTC' }));
    b.apply(fill('SELL', '1', '100', { fee: d('0.2'), feeAsset: 'USDT' }));
    expect(b.position('spot', 'BTCUSDT').fees).toBe('0.3');
  });

  it('property: duplicates change nothing; quantity is the signed sum; realised + unrealised = cash-flow PnL', () => {
    const fillArb = fc.record({
      side: fc.constantFrom<Side>('BUY', 'SELL'),
      volume: fc.integer({ min: 1, max: 500 }).map((v) => String(v / 100)),
      price: fc.integer({ min: 1, max: 100000 }).map((v) => String(v / 100)),
    });
    fc.assert(
      fc.property(fc.array(fillArb, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 100000 }), (raw, markCents) => {
        const fills = raw.map((r, i) => fill(r.side, r.volume, r.price, { tradeId: `t${i}` }));
        const once = new PositionBook();
        const twice = new PositionBook();
        for (const f of fills) once.apply(f);
        for (const f of [...fills, ...fills.slice().reverse()]) twice.apply(f);
        const p = once.position('spot', 'BTCUSDT');
        expect(twice.position('spot', 'BTCUSDT')).toEqual(p);
        const signed = dec.sum(fills.map((f) => (f.side === 'BUY' ? f.volume : dec.neg(f.volume))));
        expect(dec.eq(p.quantity, signed)).toBe(true);
        const mark = d(String(markCents / 100));
        let cash: Decimal = d('0');
        for (const f of fills) cash = f.side === 'BUY' ? dec.sub(cash, dec.mul(f.volume, f.price)) : dec.add(cash, dec.mul(f.volume, f.price));
        const cashPnl = dec.add(cash, dec.mul(signed, mark));
        const bookPnl = dec.add(p.realizedPnl, once.unrealizedPnl('spot', 'BTCUSDT', mark));
        // Average entry is a rounded division: equal within 1e-20.
        expect(dec.lt(dec.abs(dec.sub(cashPnl, bookPnl)), d('0.00000000000000000001'))).toBe(true);
      }),
    );
  });
});
