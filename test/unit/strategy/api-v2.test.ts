// Plugin API 2 through the public harness (sluice/testing): readers, typed order events,
// timers, indicators fed from klines, state kept across restarts, the strategy's own history.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { Order } from '../../../src/core/types.js';
import { defineStrategy, z, type Candle, type OrderEvent } from '../../../src/strategy/api.js';
import * as indicators from '../../../src/strategy/indicators.js';
import { harness } from '../../../src/strategy/testing.js';

const candle = (minute: number, close: string, closed = true): Candle => ({ openTime: minute * 60_000, open: d(close), high: d(close), low: d(close), close: d(close), vol: d('1'), closed });
const order = (over: Partial<Order>): Order => ({
  clientOrderId: 'sltest-1' as ClientOrderId,
  strategyId: 'test',
  market: 'spot',
  symbol: 'BTCUSDT',
  side: 'BUY',
  type: 'LIMIT',
  volume: d('1'),
  price: d('100'),
  executedVolume: d('0'),
  status: 'pending',
  createdAt: 0,
  updatedAt: 0,
  ...over,
});

describe('plugin API 2 readers', () => {
  it('best bid and ask come from depth, else the ticker; mid is their middle; roundPrice rounds away from crossing', async () => {
    const seen: unknown[] = [];
    const def = defineStrategy({
      apiVersion: 2,
      name: 'reader',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          seen.push([ctx.bestBid('btcusdt'), ctx.bestAsk('BTCUSDT'), ctx.mid('BTCUSDT')]);
          seen.push([ctx.roundPrice('BTCUSDT', 100.129, 'BUY'), ctx.roundPrice('BTCUSDT', '100.121', 'SELL'), ctx.roundPrice('BTCUSDT', d('100.12'), 'SELL')]);
        },
      }),
    });
    const { host, view } = harness(def);
    await host.tick();
    expect(seen[0]).toEqual([undefined, undefined, undefined]);
    view.tickers.set('BTCUSDT', { high: d('0'), low: d('0'), last: d('100'), vol: d('0'), buy: d('99.5'), sell: d('100.5'), rose: d('0'), time: 0 });
    await host.tick();
    expect(seen[2]).toEqual(['99.5', '100.5', '100']);
    view.depths.set('BTCUSDT', { time: 0, bids: [[d('99.9'), d('1')]], asks: [[d('100.2'), d('2')]] });
    await host.tick();
    expect(seen[4]).toEqual(['99.9', '100.2', '100.05']);
    expect(seen[5]).toEqual(['100.12', '100.13', '100.12']);
  });

  it("the strategy's own fills, orders and position come from the engine's view of it", async () => {
    let got: unknown;
    const def = defineStrategy({
      apiVersion: 2,
      name: 'own',
      params: z.object({}),
      create: (ctx) => ({ onTick: () => void (got = [ctx.fills('BTCUSDT').length, ctx.orders().map((o) => o.status), ctx.ownPosition('BTCUSDT').quantity]) }),
    });
    const { host, view } = harness(def);
    view.history = [order({ status: 'filled' }), order({ clientOrderId: 'sltest-2' as ClientOrderId, status: 'open' })];
    view.fills = [{ tradeId: '1', market: 'spot', symbol: 'BTCUSDT', venueOrderId: '9' as never, side: 'BUY', price: d('100'), volume: d('1'), fee: d('0'), feeAsset: 'BTC', isMaker: true, time: 0 }];
    view.ownPositions.set('BTCUSDT', { market: 'spot', symbol: 'BTCUSDT', quantity: d('1'), avgEntryPrice: d('100'), realizedPnl: d('0'), fees: d('0') });
    await host.tick();
    expect(got).toEqual([1, ['filled', 'open'], '1']);
  });
});

describe('plugin API 2 order events', () => {
  it('one event per change, with the reason for rejections, cancels and lost answers', async () => {
    const events: OrderEvent[] = [];
    const updates: string[] = [];
    const def = defineStrategy({ apiVersion: 2, name: 'ev', params: z.object({}), create: () => ({ onOrderUpdate: (o) => void updates.push(o.status), onOrderEvent: (e) => void events.push(e) }) });
    const { host } = harness(def);
    await host.orderUpdate(order({ status: 'pending' }));
    await host.orderUpdate(order({ status: 'open' }));
    await host.orderUpdate(order({ status: 'open' })); // the same again: no event
    await host.orderUpdate(order({ status: 'partially_filled', executedVolume: d('0.4') }));
    await host.orderUpdate(order({ status: 'partially_filled', executedVolume: d('0.6') }));
    await host.orderUpdate(order({ status: 'pending_cancel', executedVolume: d('0.6') }));
    await host.orderUpdate(order({ status: 'canceled', executedVolume: d('0.6') }), 'cancel settled (left the book)');
    await host.orderUpdate(order({ clientOrderId: 'sltest-2' as ClientOrderId, status: 'rejected' }), 'max_notional_per_order: 200 over 100');
    await host.orderUpdate(order({ clientOrderId: 'sltest-3' as ClientOrderId, status: 'unknown' }), 'UND_ERR_SOCKET (outcome unknown)');
    // An ended order heard of again (its fill read after its answer) says nothing new.
    await host.orderUpdate(order({ status: 'canceled', executedVolume: d('0.6'), avgPrice: d('99') }));
    expect(updates).toHaveLength(10); // onOrderUpdate (API 1) still hears every update
    expect(events.map((e) => [e.kind, 'order' in e && e.order ? e.order.executedVolume : undefined, 'reason' in e ? e.reason : undefined])).toEqual([
      ['accepted', '0', undefined],
      ['partially_filled', '0.4', undefined],
      ['partially_filled', '0.6', undefined],
      ['cancel_pending', '0.6', undefined],
      ['canceled', '0.6', 'cancel settled (left the book)'],
      ['rejected', '0', 'max_notional_per_order: 200 over 100'],
      ['unknown', '0', 'UND_ERR_SOCKET (outcome unknown)'],
    ]);
  });
});

describe('plugin API 2 timers', () => {
  it('a timer runs once on the engine clock and its orders come out like a tick\'s; a cleared one never runs; a throwing one disables the strategy', async () => {
    const def = defineStrategy({
      apiVersion: 2,
      name: 'timed',
      params: z.object({}),
      create(ctx) {
        return {
          onStart() {
            ctx.setTimer(500, () => void ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1', price: '1' }));
            const never = ctx.setTimer(100, () => void ctx.place({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', volume: '1', price: '9' }));
            ctx.clearTimer(never);
            ctx.setTimer(1000, () => {
              throw new Error('late');
            });
          },
        };
      },
    });
    const { host, advance, fireTimers } = harness(def);
    await host.start();
    advance(499);
    expect((await fireTimers()).intents).toEqual([]);
    advance(1);
    expect((await fireTimers()).intents).toMatchObject([{ kind: 'place', side: 'BUY', price: '1' }]);
    advance(1000);
    expect((await fireTimers()).intents).toEqual([]);
    expect(host.enabled).toBe(false);
    expect(host.disabledBy!.message).toMatch(/^strategy test: timer threw: late \(at /);
  });

  it('refuses a delay that is not a number of ms (the plugin is told by a throw)', async () => {
    const def = defineStrategy({ apiVersion: 2, name: 'bad-timer', params: z.object({}), create: (ctx) => ({ onStart: () => void ctx.setTimer(Number.NaN, () => undefined) }) });
    const { host } = harness(def);
    await host.start();
    expect(host.disabledBy!.message).toMatch(/setTimer needs a delay of 0 ms or more, got NaN/);
  });
});

describe('plugin API 2 indicators', () => {
  it('feeds closed candles once each, oldest first, with the warm-up history at once; the forming one only when asked, replaced as it moves', async () => {
    let sma!: InstanceType<typeof indicators.SMA>;
    let live!: InstanceType<typeof indicators.SMA>;
    const def = defineStrategy({
      apiVersion: 2,
      name: 'ind',
      params: z.object({}),
      subscribe: () => [{ kind: 'klines', interval: '1min', history: 3 }],
      create(ctx) {
        return {
          onStart() {
            sma = ctx.indicator('BTCUSDT', '1min', new indicators.SMA(3));
            live = ctx.indicator('BTCUSDT', '1min', new indicators.SMA(3), { forming: true });
          },
        };
      },
    });
    const { host, view } = harness(def);
    view.candles.set('BTCUSDT:1min', [candle(0, '1'), candle(1, '2'), candle(2, '3'), candle(3, '10', false)]);
    await host.start();
    expect(sma.getResult()).toBe(2); // 1, 2, 3
    expect(live.getResult()).toBe(5); // 2, 3, 10 (forming)
    const klines = (list: Candle[]) => host.marketData({ kind: 'klines', symbol: 'BTCUSDT', interval: '1min', klines: list });
    await klines([candle(1, '2'), candle(2, '3'), candle(3, '7', false)]);
    expect(sma.getResult()).toBe(2); // nothing closed since
    expect(live.getResult()).toBe(4); // the forming 10 replaced by 7
    await klines([candle(2, '3'), candle(3, '4'), candle(4, '100', false)]);
    expect(sma.getResult()).toBe(3); // 2, 3, 4
    expect(live.getResult()).toBeCloseTo(107 / 3, 9); // 3, 4 (closed: the forming 7 replaced), 100 forming
  });

  it('an indicator on klines the strategy does not subscribe to is refused, saying what to subscribe to', async () => {
    const def = defineStrategy({ apiVersion: 2, name: 'ind2', params: z.object({}), create: (ctx) => ({ onStart: () => void ctx.indicator('BTCUSDT', '5min', new indicators.EMA(3)) }) });
    const { host } = harness(def);
    await host.start();
    expect(host.disabledBy!.message).toContain("subscribe to { kind: 'klines', interval: '5min' } to feed it");
  });
});

describe('plugin API 2 state', () => {
  it('onSave gives JSON to keep; onLoad gets it back; a state too large disables the strategy', async () => {
    const def = defineStrategy({
      apiVersion: 2,
      name: 'state',
      params: z.object({ big: z.boolean().default(false) }),
      create(ctx) {
        let seen = 0;
        return {
          onLoad: (s) => void (seen = (s as { seen: number }).seen),
          onTick: () => void seen++,
          onSave: () => (ctx.params.big ? { blob: 'x'.repeat(1_000_001) } : { seen }),
        };
      },
    });
    const first = harness(def);
    await first.host.tick();
    await first.host.tick();
    const saved = first.host.save();
    expect(saved).toBe('{"seen":2}');
    const second = harness(def);
    await second.host.load(JSON.parse(saved!));
    await second.host.tick();
    expect(second.host.save()).toBe('{"seen":3}');
    const big = harness(def, { big: true });
    expect(big.host.save()).toBeUndefined();
    expect(big.host.disabledBy!.message).toMatch(/onSave threw: onSave returned \d+ characters of JSON; keep it under 1000000/);
  });
});

describe('decimalParam', () => {
  it('says what is wrong: a negative value, a number with an exponent (and its plain digits), or a value that is not a quoted decimal', async () => {
    const { decimalParam } = await import('../../../src/strategy/api.js');
    const issue = (v: unknown) => decimalParam().safeParse(v).error?.issues[0]?.message;
    expect(issue('-1')).toBe('must not be negative');
    // A number with an exponent or a plus sign: the plain digits to write.
    expect(issue('1e-3')).toBe('must be plain decimal text: digits, one optional point, an optional leading minus, no exponent; write "0.001"');
    expect(issue('+5')).toBe('must be plain decimal text: digits, one optional point, an optional leading minus, no exponent; write "5"');
    expect(issue('1e900000000')).toBe('write a non-negative decimal as a quoted string, e.g. "0.001"');
    expect(issue('abc')).toBe('write a non-negative decimal as a quoted string, e.g. "0.001"');
    expect(decimalParam().parse('0.25')).toBe('0.25');
  });
});
