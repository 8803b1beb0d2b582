import { describe, expect, it } from 'vitest';
import { d, dec, DecimalFormatError } from '../../../src/core/decimal.js';
import { PositionBook } from '../../../src/positions/index.js';
import { APPLIED_KEPT } from '../../../src/positions/book.js';
import { fill } from '../../fixtures/builders.js';


const line = (b: PositionBook) => b.entry('spot', 'BTCUSDT');

describe('PositionBook examples', () => {
  it('opens, adds, partially closes, flips long to short, closes', () => {
    const b = new PositionBook();
    b.apply(fill('BUY', '1', '100'));
    expect(line(b)).toMatchObject({ quantity: '1', avgEntryPrice: '100', entryValue: '100', realizedPnl: '0' });
    b.apply(fill('BUY', '1', '200'));
    expect(line(b)).toMatchObject({ quantity: '2', avgEntryPrice: '150', entryValue: '300', realizedPnl: '0' });
    b.apply(fill('SELL', '0.5', '170'));
    expect(line(b)).toMatchObject({ quantity: '1.5', avgEntryPrice: '150', entryValue: '225', realizedPnl: '10' });
    // Through zero: closes 1.5 at 160 (+15), then opens a 1 short at 160; the average resets.
    b.apply(fill('SELL', '2.5', '160'));
    expect(line(b)).toMatchObject({ quantity: '-1', avgEntryPrice: '160', entryValue: '-160', realizedPnl: '25' });
    b.apply(fill('BUY', '1', '150'));
    expect(line(b)).toMatchObject({ quantity: '0', avgEntryPrice: '0', entryValue: '0', realizedPnl: '35' });
  });

  it('a short: adds at a weighted average, covers at a loss, flips to long', () => {
    const b = new PositionBook();
    b.apply(fill('SELL', '1', '100'));
    b.apply(fill('SELL', '3', '120'));
    expect(line(b)).toMatchObject({ quantity: '-4', avgEntryPrice: '115', entryValue: '-460' });
    b.apply(fill('BUY', '2', '125'));
    expect(line(b)).toMatchObject({ quantity: '-2', avgEntryPrice: '115', realizedPnl: '-20' });
    b.apply(fill('BUY', '3', '110'));
    expect(line(b)).toMatchObject({ quantity: '1', avgEntryPrice: '110', entryValue: '110', realizedPnl: '-10' });
  });

  it('unrealised PnL at a mark, long and short', () => {
    const b = new PositionBook();
    b.apply(fill('BUY', '1.5', '150'));
    expect(b.unrealizedPnl('spot', 'BTCUSDT', d('160'))).toBe('15');
    b.apply(fill('SELL', '2', '100', { symbol: 'ETHUSDT' }));
    expect(b.unrealizedPnl('spot', 'ETHUSDT', d('90'))).toBe('20');
    expect(b.unrealizedPnl('spot', 'DOGEUSDT', d('1'))).toBe('0');
  });

  it('stays exact when a partial close divides the entry value unevenly', () => {
    const b = new PositionBook();
    b.apply(fill('BUY', '1', '1'));
    b.apply(fill('BUY', '2', '2'));
    expect(line(b).avgEntryPrice).toBe('1.666666666666666666666666666667');
    b.apply(fill('SELL', '1', '2'));
    // Cash: -1 - 4 + 2 = -3; holding 2 at mark 2 is worth 4: total PnL exactly 1.
    const { realizedPnl } = line(b);
    const unrealized = b.unrealizedPnl('spot', 'BTCUSDT', d('2'));
    expect(realizedPnl).toBe('0.333333333333333333333333333333');
    expect(unrealized).toBe('0.666666666666666666666666666667');
    expect(dec.add(realizedPnl, unrealized)).toBe('1');
  });

  it('fees: quote-asset fees in `fees`, any other asset kept per asset, never converted', () => {
    const b = new PositionBook();
    b.apply(fill('BUY', '1', '100', { fee: d('0.001'), feeAsset: 'BTC' }));
    b.apply(fill('BUY', '1', '100', { fee: d('0.002'), feeAsset: 'BTC' }));
    b.apply(fill('SELL', '1', '100', { fee: d('0.2'), feeAsset: 'USDT' }));
    b.apply(fill('SELL', '0.5', '100', { fee: d('0.05'), feeAsset: 'PLAT' }));
    b.apply(fill('SELL', '0.5', '100', { fee: d('0'), feeAsset: 'XYZ' }));
    expect(line(b)).toMatchObject({ fees: '0.2', otherFees: { BTC: '0.003', PLAT: '0.05' } });
    // Base fees do not change the traded quantity: positions are the signed sum of fill volumes.
    expect(line(b).quantity).toBe('0');
    expect(b.position('spot', 'BTCUSDT')).toEqual({ market: 'spot', symbol: 'BTCUSDT', quantity: '0', avgEntryPrice: '0', realizedPnl: '0', fees: '0.2' });
  });

  it('fees: a resolver names the quote asset; an empty fee asset counts as quote; rebates subtract', () => {
    const b = new PositionBook({ quoteAssetOf: (_m, s) => (s === 'ETHBTC' ? 'BTC' : undefined) });
    b.apply(fill('BUY', '1', '0.05', { symbol: 'ETHBTC', fee: d('0.0001'), feeAsset: 'BTC' }));
    b.apply(fill('BUY', '1', '0.05', { symbol: 'ETHBTC', fee: d('0.001'), feeAsset: 'ETH' }));
    expect(b.entry('spot', 'ETHBTC')).toMatchObject({ fees: '0.0001', otherFees: { ETH: '0.001' } });
    b.apply(fill('BUY', '1', '100', { market: 'futures', symbol: 'E-BTC-USDT', fee: d('0.5'), feeAsset: '' }));
    b.apply(fill('SELL', '1', '100', { market: 'futures', symbol: 'E-BTC-USDT', fee: d('-0.1'), feeAsset: 'USDT' }));
    expect(b.entry('futures', 'E-BTC-USDT').fees).toBe('0.4');
  });

  it('applies a trade once and says when it was a duplicate', () => {
    const b = new PositionBook();
    const f = fill('BUY', '1', '100', { fee: d('0.1') });
    expect(b.applyFill(f).kind).toBe('applied');
    const before = b.toJSON();
    expect(b.applyFill(f)).toEqual({ kind: 'duplicate' });
    expect(b.apply({ ...f, volume: d('5') })).toBe(false);
    expect(b.toJSON()).toEqual(before);
    expect(b.has(f)).toBe(true);
    // The same trade id on another symbol is another trade (the venue does not promise unique ids across symbols).
    expect(b.apply({ ...f, symbol: 'ETHUSDT' })).toBe(true);
  });

  it('rejects a malformed fill without marking its trade applied', () => {
    const b = new PositionBook();
    const bad = fill('BUY', '0', '100', { tradeId: 'x' });
    expect(b.applyFill(bad)).toEqual({ kind: 'invalid', reason: 'fill spot:BTCUSDT:x:BUY: volume must be a decimal above 0 (got 0)' });
    expect(b.applyFill(fill('BUY', '1', '-1', { tradeId: 'y' }))).toMatchObject({ kind: 'invalid', reason: 'fill spot:BTCUSDT:y:BUY: price must be a decimal above 0 (got -1)' });
    expect(b.snapshot()).toEqual([]);
    expect(b.apply({ ...bad, volume: d('1') })).toBe(true);
  });

  it('snapshot: plain positions sorted by market then symbol, flat lines kept for their PnL', () => {
    const b = new PositionBook();
    b.apply(fill('BUY', '1', '10', { symbol: 'ETHUSDT' }));
    b.apply(fill('BUY', '1', '10', { market: 'futures', symbol: 'E-BTC-USDT' }));
    b.apply(fill('BUY', '1', '10'));
    b.apply(fill('SELL', '1', '12'));
    expect(b.snapshot().map((p) => `${p.market}:${p.symbol}:${p.quantity}:${p.realizedPnl}`)).toEqual(['futures:E-BTC-USDT:1:0', 'spot:BTCUSDT:0:2', 'spot:ETHUSDT:1:0']);
    expect(Object.keys(b.snapshot()[0]!).sort()).toEqual(['avgEntryPrice', 'fees', 'market', 'quantity', 'realizedPnl', 'symbol']);
  });
});

describe('PositionBook persistence', () => {
  it('toJSON -> JSON text -> fromSnapshot restores the book and its applied trades', () => {
    const b = new PositionBook();
    const fills = [fill('BUY', '1', '1'), fill('BUY', '2', '2', { fee: d('0.01'), feeAsset: 'BTC' }), fill('SELL', '1', '2', { fee: d('0.3') })];
    for (const f of fills) b.apply(f);
    const restored = PositionBook.fromSnapshot(JSON.parse(JSON.stringify(b)));
    expect(restored.toJSON()).toEqual(b.toJSON());
    expect(restored.applyFill(fills[1]!).kind).toBe('duplicate');
    const next = fill('SELL', '2', '3');
    b.apply(next);
    restored.apply(next);
    expect(restored.toJSON()).toEqual(b.toJSON());
  });

  it('restores from plain positions (the journal checkpoint) with caller-supplied trade keys', () => {
    const restored = PositionBook.fromSnapshot({
      positions: [{ market: 'spot', symbol: 'BTCUSDT', quantity: d('-2'), avgEntryPrice: d('150'), realizedPnl: d('5'), fees: d('1') }],
      appliedTradeKeys: ['spot:BTCUSDT:7:BUY'],
    });
    expect(restored.entry('spot', 'BTCUSDT')).toMatchObject({ entryValue: '-300', otherFees: {} });
    expect(restored.apply(fill('BUY', '1', '140', { tradeId: '7' }))).toBe(false);
    restored.apply(fill('BUY', '1', '140', { tradeId: '8' }));
    expect(restored.position('spot', 'BTCUSDT')).toMatchObject({ quantity: '-1', avgEntryPrice: '150', realizedPnl: '15' });
  });

  it('a malformed snapshot stops the restore, naming the field', () => {
    const bad = { positions: [{ market: 'spot' as const, symbol: 'BTCUSDT', quantity: d('1'), avgEntryPrice: 1 as never, realizedPnl: d('0'), fees: d('0') }] };
    expect(() => PositionBook.fromSnapshot(bad)).toThrow(DecimalFormatError);
    expect(() => PositionBook.fromSnapshot(bad)).toThrow(/positions\[0\]\.avgEntryPrice/);
    expect(() => PositionBook.fromSnapshot({ version: 2 } as never)).toThrow(/version 2/);
  });

  it('restore takes all of a snapshot or none of it, only into a book without lines, at the contract sizes already set', () => {
    const good = { market: 'futures' as const, symbol: 'E-BTC-USDT', quantity: d('10'), avgEntryPrice: d('30000'), realizedPnl: d('0'), fees: d('0'), multiplier: d('0.001') };
    const book = new PositionBook();
    book.setMultiplier('futures', 'E-BTC-USDT', d('0.01'));
    // A line at another contract size than the venue gives now: refused, nothing taken.
    expect(() => book.restore({ positions: [good] })).toThrow(/positions\[0\]\.multiplier is 0.001, but futures E-BTC-USDT has contract size 0.01 now/);
    // A bad second line: the first is not taken either.
    const bad = { market: 'spot' as const, symbol: 'BTCUSDT', quantity: 'x' as never, avgEntryPrice: d('1'), realizedPnl: d('0'), fees: d('0') };
    const fresh = new PositionBook();
    expect(() => fresh.restore({ positions: [good, bad] })).toThrow(/positions\[1\]\.quantity/);
    expect(fresh.snapshot()).toEqual([]);
    fresh.restore({ positions: [good] });
    expect(fresh.entry('futures', 'E-BTC-USDT')).toMatchObject({ quantity: '10', entryValue: '300' });
    expect(() => fresh.restore({ positions: [good] })).toThrow(/only before it holds any line/);
  });
});

describe('PositionBook memory', () => {
  it('remembers the latest APPLIED_KEPT fill keys only, so it does not grow with every fill of a long run; the positions stay exact', () => {
    const b = new PositionBook();
    const n = APPLIED_KEPT + 10;
    for (let i = 0; i < n; i++) b.apply({ ...fill('BUY', '0.001', '100'), tradeId: String(i) });
    expect(b.position('spot', 'BTCUSDT').quantity).toBe(dec.mul(d('0.001'), d(String(n))));
    expect(b.toJSON().appliedTradeKeys).toHaveLength(APPLIED_KEPT);
    // A recent repeat is still caught; the oldest keys are forgotten (the journal refuses those repeats).
    expect(b.apply({ ...fill('BUY', '0.001', '100'), tradeId: String(n - 1) })).toBe(false);
    expect(b.has({ ...fill('BUY', '0.001', '100'), tradeId: '0' })).toBe(false);
  });

  it('APPLIED_KEPT covers what a reconciler reads again on ten symbols: each one\'s latest trades page and graceMs at the venue\'s ceiling', () => {
    const LATEST_PAGE = 1000; // executor/readers.ts MAX_PAGE
    const GRACE_FILLS = 300 * 10; // 300 orders/s for drift.graceMs (10 s)
    expect(APPLIED_KEPT).toBeGreaterThanOrEqual(10 * LATEST_PAGE + GRACE_FILLS);
    // ... and no more than twice that: 100,000 keys held 12 MB (bench/memory.bench.ts).
    expect(APPLIED_KEPT).toBeLessThanOrEqual(2 * (10 * LATEST_PAGE + GRACE_FILLS));
  });

  it('remembers as many keys as appliedKept says (a strategy book needs fewer than the account book)', () => {
    const b = new PositionBook({ appliedKept: 3 });
    for (let i = 0; i < 5; i++) b.apply({ ...fill('BUY', '0.001', '100'), tradeId: String(i) });
    expect(b.toJSON().appliedTradeKeys).toEqual(['spot:BTCUSDT:2:BUY', 'spot:BTCUSDT:3:BUY', 'spot:BTCUSDT:4:BUY']);
    expect(b.position('spot', 'BTCUSDT').quantity).toBe('0.005');
  });
});
