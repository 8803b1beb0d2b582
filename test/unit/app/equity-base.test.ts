// The dashboard's equity: the account's value when it could first be priced, moved by the PnL of
// our positions. A futures-only account's value is its wallet (it has no spot balances): the
// curve read the PnL since the start (-1.23) where the account held about 100,000 USDT.
import { describe, expect, it } from 'vitest';
import { d, type Decimal } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { MarginAccount } from '../../../src/core/ports.js';
import type { Balance, Market } from '../../../src/core/types.js';
import { EquityBase } from '../../../src/app/ops-source.js';
import { PositionBook } from '../../../src/positions/index.js';

const C = 'E-BTC-USDT';
const instruments = new Map([[`futures:${C}`, { quoteAsset: 'USDT', multiplier: d('0.001') }]]);

describe('the dashboard equity of a futures-only account', () => {
  it('starts at its wallet, waits for the wallet to be read, and moves by its PnL less fees', () => {
    const positions = new PositionBook();
    positions.setMultiplier('futures', C, d('0.001'));
    const reconciler: { balances: Map<string, Balance>; margins: MarginAccount[] } = { balances: new Map(), margins: [] };
    const engine = { activeSymbols: () => [{ market: 'futures' as Market, symbol: C }], positions, reconciler: { holdings: reconciler } };
    const prices = new Map<string, Decimal>([[`futures:${C}`, d('30000')]]);
    const equity = new EquityBase();
    expect(equity.value(engine, prices, instruments)).toBeUndefined();
    reconciler.margins = [{ coin: 'USDT', available: d('99000'), locked: d('1000') }];
    expect(equity.value(engine, prices, instruments)).toBe('100000');
    positions.apply({ tradeId: '1', market: 'futures', symbol: C, venueOrderId: '9' as VenueOrderId, side: 'BUY', price: d('30000'), volume: d('10'), fee: d('0.18'), feeAsset: 'USDT', isMaker: false, time: 1 });
    prices.set(`futures:${C}`, d('30100'));
    // 10 contracts of 0.001 BTC, 100 USDT up each: +1, less the 0.18 fee.
    expect(equity.value(engine, prices, instruments)).toBe('100000.82');
  });
});
