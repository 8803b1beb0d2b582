// fills.csv: one row per fill, money as written, cells quoted where CSV needs it.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { Fill } from '../../../src/core/types.js';
import { fillsCsv } from '../../../src/report/index.js';

const fill = (over: Partial<Fill>): Fill => ({ tradeId: '7', market: 'spot', symbol: 'BTCUSDT', venueOrderId: '55' as VenueOrderId, side: 'BUY', price: d('30000.10'), volume: d('0.001'), fee: d('0.000001'), feeAsset: 'BTC', isMaker: true, time: Date.UTC(2026, 0, 1), ...over });

describe('fillsCsv', () => {
  it('writes a header and a row per fill with its owner, money as decimal text', () => {
    const csv = fillsCsv([fill({}), fill({ tradeId: 'a,"b"', side: 'SELL', isMaker: false, venueOrderId: '56' as VenueOrderId, fee: d('0.03'), feeAsset: 'USDT' })], (f) => (f.venueOrderId === '55' ? { strategy: 'grid1', clientOrderId: 'slgrid1-1' } : undefined));
    expect(csv.split('\n')).toEqual([
      'time,timeMs,strategy,clientOrderId,market,symbol,side,price,volume,fee,feeAsset,maker,tradeId,venueOrderId',
      '2026-01-01T00:00:00.000Z,1767225600000,grid1,slgrid1-1,spot,BTCUSDT,BUY,30000.1,0.001,0.000001,BTC,true,7,55',
      '2026-01-01T00:00:00.000Z,1767225600000,,,spot,BTCUSDT,SELL,30000.1,0.001,0.03,USDT,false,"a,""b""",56',
      '',
    ]);
  });
});
