// A tape's klines answers as market events: the venue's candles for a backtest's simulator to
// serve (sim/recorded-klines.ts). Each answer's event holds what no earlier answer of its symbol
// and interval held as it is, and the event cache gives the event back as it was written.
import { describe, expect, it } from 'vitest';
import type { Decimal } from '../../../src/core/decimal.js';
import type { RecordedMarketEvent } from '../../../src/sim/types.js';
import { encodeRecord, RecordDecoder } from '../../../src/tape/cache-records.js';
import { marketEvents, type TapeCall } from '../../../src/tape/index.js';
import { call, T0 } from './helpers.js';

const MINUTE = 60_000;
const M = Math.floor(T0 / MINUTE) * MINUTE;
const kline = (idx: number, close: string | number, vol = '2.50') => ({ idx, open: '30000.10', close, high: 30010, low: '29990.5', vol, amount: '75000' });
const answer = (at: number, query: string, ...list: object[]): TapeCall => call(at, 'spot', 'GET', '/sapi/v1/klines', { query, at: T0 + at, ms: 4, response: JSON.stringify(list) });

describe('klines answers on a tape', () => {
  it('decode into a klines event of the symbol and interval asked, oldest first, decimals as the live client reads them; later answers give only new or changed candles', () => {
    const q = 'symbol=btcusdt&interval=1min&limit=3';
    const tape = [
      // Newest first, and one candle's idx in seconds (old venues): both read as live reads them.
      answer(1, q, kline(M, '30001.00'), kline((M - MINUTE) / 1000, 30000), kline(M - 2 * MINUTE, '29999.9')),
      // The next poll: the forming candle moved, the two before are the same.
      answer(2, q, kline(M - 2 * MINUTE, '29999.9'), kline(M - MINUTE, '30000'), kline(M, '30002')),
      // The same again: nothing new, no event.
      answer(3, q, kline(M - MINUTE, '30000'), kline(M, '30002')),
      // Another interval of the same symbol is kept apart.
      answer(4, 'symbol=BTCUSDT&interval=5min&limit=1', kline(M, '30002')),
      // Not usable: an error answer, a broken body, no interval.
      call(5, 'spot', 'GET', '/sapi/v1/klines', { query: q, at: T0 + 5, status: 400, response: '{"code":-1102}' }),
      answer(6, q, { idx: M + MINUTE, open: 'x' }),
      answer(7, 'symbol=BTCUSDT', kline(M + MINUTE, '1')),
    ];
    const c = (openTime: number, close: string, vol = '2.5') => ({ openTime, open: '30000.1', high: '30010', low: '29990.5', close, vol });
    expect(marketEvents(tape)).toEqual([
      { at: T0 + 5, market: 'spot', event: { type: 'klines', symbol: 'BTCUSDT', interval: '1min', klines: [c(M - 2 * MINUTE, '29999.9'), c(M - MINUTE, '30000'), c(M, '30001')] } },
      { at: T0 + 6, market: 'spot', event: { type: 'klines', symbol: 'BTCUSDT', interval: '1min', klines: [c(M, '30002')] } },
      { at: T0 + 8, market: 'spot', event: { type: 'klines', symbol: 'BTCUSDT', interval: '5min', klines: [c(M, '30002')] } },
    ]);
  });

  it('futures answers (contractName, the hour as 1h) decode the same way, as futures events kept apart from a spot symbol of the same name', () => {
    const futures = (at: number, query: string, body: unknown): TapeCall => call(at, 'futures', 'GET', '/fapi/v1/klines', { query, at: T0 + at, ms: 4, response: JSON.stringify(body) });
    const tape = [
      answer(1, 'symbol=E-BTC-USDT&interval=1h', kline(M, '30001')),
      futures(2, 'contractName=e-btc-usdt&interval=1h&limit=2', [kline(M - 60 * MINUTE, '29000'), kline(M, '30001')]),
      // The family's futures envelope; the same candles again are nothing new.
      futures(3, 'contractName=E-BTC-USDT&interval=1h&limit=2', { code: '0', msg: 'success', data: [kline(M, '30001'), kline(M - 60 * MINUTE, '29000')] }),
      futures(4, 'contractName=E-BTC-USDT&interval=1h&limit=1', { code: '0', msg: 'success', data: [kline(M, '30003')] }),
    ];
    const c = (openTime: number, close: string) => ({ openTime, open: '30000.1', high: '30010', low: '29990.5', close, vol: '2.5' });
    expect(marketEvents(tape)).toEqual([
      { at: T0 + 5, market: 'spot', event: { type: 'klines', symbol: 'E-BTC-USDT', interval: '1h', klines: [c(M, '30001')] } },
      { at: T0 + 6, market: 'futures', event: { type: 'klines', symbol: 'E-BTC-USDT', interval: '1h', klines: [c(M - 60 * MINUTE, '29000'), c(M, '30001')] } },
      { at: T0 + 8, market: 'futures', event: { type: 'klines', symbol: 'E-BTC-USDT', interval: '1h', klines: [c(M, '30003')] } },
    ]);
  });

  it('come back from an event cache record as written, and a damaged record is refused', () => {
    const d = (text: string) => text as Decimal;
    const event: RecordedMarketEvent = { type: 'klines', symbol: 'BTCUSDT', interval: '60min', klines: [{ openTime: M, open: d('30000.1'), high: d('30010'), low: d('29990.5'), close: d('1e-7'), vol: d('0') }] };
    const record = encodeRecord([{ at: T0, market: 'spot', event }]);
    const decode = (bytes: Buffer, end = bytes.length) => new RecordDecoder().decode(bytes, 4, end);
    expect(decode(record)).toEqual([{ at: T0, market: 'spot', event }]);
    expect(decode(record, record.length - 1)).toBeUndefined();
    const count = record.indexOf('60min') + '60min'.length;
    const copy = Buffer.from(record);
    copy[count + 3] = 0xff; // a count of billions
    expect(decode(copy)).toBeUndefined();
  });
});
