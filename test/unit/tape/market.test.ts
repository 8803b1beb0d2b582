import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { SimExchange } from '../../../src/sim/index.js';
import { marketEvents, type TapeCall } from '../../../src/tape/index.js';
import { call, T0 } from './helpers.js';

const trade = (price: string, qty: string, time: number, side: 'BUY' | 'SELL', id?: number) => ({ ...(id === undefined ? {} : { id }), price, qty, time, side });
const trades = (...list: object[]) => JSON.stringify(list);
const ticker = (last: string) => JSON.stringify({ high: '31000', low: '29000', last, vol: '12.5', buy: '29999', sell: '30001', rose: '-0.01', time: T0 });

describe('marketEvents', () => {
  it('turns depth, ticker and new public trades into time-ordered simulator events', () => {
    const tape: TapeCall[] = [
      call(0, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=btcusdt&limit=2', at: T0, ms: 5, response: '{"time":1,"bids":[["30000.10","1.5"],[29999,"2"]],"asks":[["30001","0.25"]]}' }),
      // Newest first, as the venue lists them.
      call(1, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=BTCUSDT', at: T0 + 100, ms: 5, response: trades(trade('30000.5', '0.1', T0 + 90, 'BUY'), trade('30000.4', '0.2', T0 + 80, 'SELL')) }),
      // The next poll overlaps the last one: only the new trade is an event.
      call(2, 'spot', 'GET', '/sapi/v1/trades', {
        query: 'symbol=BTCUSDT',
        at: T0 + 200,
        ms: 5,
        response: trades(trade('30002', '0.3', T0 + 150, 'BUY'), trade('30000.5', '0.1', T0 + 90, 'BUY'), trade('30000.4', '0.2', T0 + 80, 'SELL')),
      }),
      // Futures answers come in the {code, data} envelope; the contract is named in contractName.
      call(3, 'futures', 'GET', '/fapi/v1/depth', { query: 'contractName=E-BTC-USDT', at: T0 + 300, ms: 2, response: '{"code":"0","data":{"bids":[["30000","10"]],"asks":[["30002","4"]]}}' }),
      call(4, 'futures', 'GET', '/fapi/v1/ticker', { query: 'contractName=E-BTC-USDT', at: T0 + 400, ms: 1, response: ticker('30010.50') }),
      // Recorded earlier than the futures calls although later in the file: events follow time.
      call(5, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT', at: T0 + 250, ms: 1, response: ticker('30001') }),
      // Not market data, or not a usable answer: no event.
      call(6, 'spot', 'GET', '/sapi/v1/account', { at: T0 + 10, response: '{"balances":[]}' }),
      call(7, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT', at: T0 + 20, status: 503, response: '{"code":-1001}' }),
      call(8, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT', at: T0 + 30, response: '{"bids":"oops"}' }),
      call(9, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT', at: T0 + 40, failure: { message: 'reset', maybeDelivered: false } }),
    ];

    expect(marketEvents(tape)).toEqual([
      { at: T0 + 5, market: 'spot', event: { type: 'book', symbol: 'BTCUSDT', bids: [['30000.1', '1.5'], ['29999', '2']], asks: [['30001', '0.25']] } },
      { at: T0 + 105, market: 'spot', event: { type: 'trade', symbol: 'BTCUSDT', price: '30000.4', qty: '0.2', side: 'SELL' } },
      { at: T0 + 105, market: 'spot', event: { type: 'trade', symbol: 'BTCUSDT', price: '30000.5', qty: '0.1', side: 'BUY' } },
      { at: T0 + 205, market: 'spot', event: { type: 'trade', symbol: 'BTCUSDT', price: '30002', qty: '0.3', side: 'BUY' } },
      { at: T0 + 251, market: 'spot', event: { type: 'ticker', symbol: 'BTCUSDT', last: '30001' } },
      { at: T0 + 302, market: 'futures', event: { type: 'book', symbol: 'E-BTC-USDT', bids: [['30000', '10']], asks: [['30002', '4']] } },
      { at: T0 + 401, market: 'futures', event: { type: 'ticker', symbol: 'E-BTC-USDT', last: '30010.5' } },
    ]);
  });

  it('tells trades apart by id when the venue gives one, and counts identical trades without ids', () => {
    const q = { query: 'symbol=ETHUSDT' };
    const byId = [
      call(0, 'spot', 'GET', '/sapi/v1/trades', { ...q, response: trades(trade('2000', '1', T0, 'BUY', 2), trade('2000', '1', T0, 'BUY', 1)) }),
      call(1, 'spot', 'GET', '/sapi/v1/trades', { ...q, response: trades(trade('2000', '1', T0, 'BUY', 3), trade('2000', '1', T0, 'BUY', 2)) }),
    ];
    expect(marketEvents(byId).map((e) => [e.at, e.event.type])).toEqual([
      [T0 + 5, 'trade'],
      [T0 + 5, 'trade'],
      [T0 + 105, 'trade'],
    ]);

    const twin = trade('2000', '1', T0, 'SELL');
    const noIds = [
      call(0, 'spot', 'GET', '/sapi/v1/trades', { ...q, response: trades(twin, twin) }),
      call(1, 'spot', 'GET', '/sapi/v1/trades', { ...q, response: trades(twin, twin) }),
      call(2, 'spot', 'GET', '/sapi/v1/trades', { ...q, response: trades(twin, twin, twin) }),
    ];
    expect(marketEvents(noIds).map((e) => e.at)).toEqual([T0 + 5, T0 + 5, T0 + 205]);
  });

  it('without ids, a trade is known by its time, price, quantity and side, as the engine knows it: a sell like an earlier buy is new', () => {
    const q = { query: 'symbol=ETHUSDT' };
    const buy = trade('2000', '1', T0, 'BUY');
    const sell = trade('2000', '1', T0, 'SELL');
    const tape = [call(0, 'spot', 'GET', '/sapi/v1/trades', { ...q, response: trades(buy) }), call(1, 'spot', 'GET', '/sapi/v1/trades', { ...q, response: trades(sell, buy) })];
    expect(marketEvents(tape).map((e) => [e.at, e.event.type === 'trade' && e.event.side])).toEqual([
      [T0 + 5, 'BUY'],
      [T0 + 105, 'SELL'],
    ]);
  });

  it('gives events the simulator accepts', () => {
    const clock = new ManualClock(T0);
    const ex = new SimExchange({ clock, seed: 3 });
    const tape = [
      call(0, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT', response: '{"bids":[["29990.5","0.5"]],"asks":[["30010","0.4"]]}' }),
      call(1, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT', response: ticker('30000') }),
    ];
    for (const { event } of marketEvents(tape)) ex.applyMarketEvent(event);
    expect(ex.top('BTCUSDT')).toMatchObject({ bid: '29990.5', ask: '30010' });
  });
});
