import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Deadlines } from '../../../src/core/deadlines.js';
import { d } from '../../../src/core/decimal.js';
import { JournalError } from '../../../src/core/errors.js';
import { parseClientOrderId } from '../../../src/core/ids.js';
import type { Order } from '../../../src/core/types.js';
import { defineStrategy, z, type StrategyDefinition } from '../../../src/strategy/api.js';
import { StrategyHost } from '../../../src/strategy/host.js';
import { FakeView, harness } from '../../../src/strategy/testing.js';

const order = (clientOrderId: string, over: Partial<Order> = {}): Order => ({
  clientOrderId: clientOrderId as Order['clientOrderId'],
  strategyId: 'test',
  market: 'spot',
  symbol: 'BTCUSDT',
  side: 'BUY',
  type: 'LIMIT',
  volume: d('1'),
  price: d('100'),
  executedVolume: d('0.25'),
  status: 'open',
  createdAt: 0,
  updatedAt: 0,
  ...over,
});

describe('StrategyHost', () => {
  it('turns place requests into intents with deterministic client order ids', async () => {
    const def = defineStrategy({
      apiVersion: 1,
      name: 'p',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          ctx.place({ symbol: 'btcusdt', side: 'BUY', type: 'LIMIT', volume: '0.010', price: '30000.5' });
          ctx.place({ symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', volume: '0.5' });
        },
      }),
    });
    const { host } = harness(def, {}, { id: 'gridbtc' });
    const out = await host.tick();
    expect(out.invalid).toEqual([]);
    expect(out.intents).toEqual([
      { kind: 'place', intentId: 'slgridbtc-0', clientOrderId: 'slgridbtc-0', strategyId: 'gridbtc', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.01', price: '30000.5' },
      { kind: 'place', intentId: 'slgridbtc-1', clientOrderId: 'slgridbtc-1', strategyId: 'gridbtc', market: 'spot', symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', volume: '0.5' },
    ]);
    expect((await host.tick()).intents.map((i) => i.intentId)).toEqual(['slgridbtc-2', 'slgridbtc-3']);
  });

  it.each([
    [{ symbol: 'ETHUSDT', side: 'BUY', type: 'LIMIT', volume: '1', price: '1' }, /not one of this strategy's symbols \(BTCUSDT\); add it under symbols/],
    [{ symbol: 'BTCUSDT', side: 'HOLD', type: 'LIMIT', volume: '1', price: '1' }, /side must be BUY or SELL, got "HOLD"/],
    [{ symbol: 'BTCUSDT', side: 'BUY', type: 'STOP', volume: '1', price: '1' }, /type must be LIMIT or MARKET/],
    [{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: 0.1, price: '1' }, /volume must be a decimal written as a string/],
    [{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1e-3', price: '1' }, /^volume must be plain decimal text: .* \(got "1e-3"\): write "0\.001"$/],
    [{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1', price: '3E4' }, /^price must be plain decimal text: .*: write "30000"$/],
    [{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0', price: '1' }, /volume must be above 0, got 0/],
    [{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1' }, /a LIMIT order needs a price/],
    [{ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', volume: '1', price: '5' }, /MARKET order takes no price/],
    [null, /^place takes an order request object \(\{ symbol, side, type, volume, price \}\), got null$/],
    [{ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1', price: '1', open: 'OPEN' }, /^open and positionType are for futures orders only; leave them out$/],
  ])('a malformed request is rejected with a reason, and the plugin runs on: %o', async (request, reason) => {
    const def = defineStrategy({ apiVersion: 1, name: 'bad', params: z.object({}), create: (ctx) => ({ onTick: () => void ctx.place(request as never) }) });
    const { host, logs } = harness(def);
    const out = await host.tick();
    expect(out.intents).toEqual([]);
    expect(out.invalid).toHaveLength(1);
    expect(out.invalid[0]!.reason).toMatch(reason);
    expect(logs).toEqual([]); // the engine logs it, once
    expect(host.enabled).toBe(true);
  });

  it.each([
    [{ open: 'FOO' }, /^open must be OPEN or CLOSE, got "FOO"$/],
    [{ positionType: 7 }, /^positionType must be 1 \(cross\) or 2 \(isolated\), got 7$/],
  ])('a futures request with a bad %o is rejected before it costs a request', async (extra, reason) => {
    const request = { symbol: 'E-BTC-USDT', side: 'BUY', type: 'LIMIT', volume: '1', price: '30000', ...extra };
    const def = defineStrategy({ apiVersion: 1, name: 'badf', params: z.object({}), create: (ctx) => ({ onTick: () => void ctx.place(request as never) }) });
    const { host } = harness(def, {}, { symbols: ['E-BTC-USDT'], market: 'futures' });
    const out = await host.tick();
    expect(out.intents).toEqual([]);
    expect(out.invalid.map((i) => i.reason)).toEqual([expect.stringMatching(reason)]);
  });

  it('API 2: a malformed request comes back as a rejected order event with its reason, once (a bad request made by that handler is not reported again)', async () => {
    const events: unknown[] = [];
    const def = defineStrategy({
      apiVersion: 2,
      name: 'bad2',
      params: z.object({}),
      create: (ctx) => ({
        onTick: () => void ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1' }),
        onOrderEvent(e) {
          events.push(e);
          ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', volume: '1', price: '2' });
        },
      }),
    });
    const { host } = harness(def);
    const out = await host.tick();
    expect(events).toEqual([{ kind: 'rejected', clientOrderId: out.invalid[0]!.clientOrderId, reason: 'a LIMIT order needs a price' }]);
    expect(out.invalid.map((i) => i.reason)).toEqual(['a LIMIT order needs a price', 'a MARKET order takes no price; leave price out']);
  });

  it('no client order number can be reserved (the journal takes no writes): the request comes back rejected with the reason under an id no sequence makes, and the plugin runs on', async () => {
    const events: unknown[] = [];
    const ids: string[] = [];
    const def = defineStrategy({
      apiVersion: 2,
      name: 'full',
      params: z.object({}),
      create: (ctx) => ({
        onTick: () => void ids.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1', price: '1' })),
        onOrderEvent: (e) => void events.push(e),
      }),
    });
    let full = true;
    let seq = 0;
    const log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    const host = new StrategyHost({ id: 'full', market: 'spot', symbols: ['BTCUSDT'], everyMs: 1000 }, def, {}, {
      view: new FakeView(),
      log,
      now: () => 0,
      nextSequence: () => {
        if (full) throw new JournalError('journal /j.db: nextSequence failed, the disk is full: free space');
        return seq++;
      },
      setTimer: () => () => undefined,
    });
    const out = await host.tick();
    expect(ids).toEqual(['slfull_unsent1']);
    expect(parseClientOrderId(ids[0]!)).toBeUndefined();
    expect(out.intents).toEqual([]);
    expect(out.invalid).toEqual([{ strategyId: 'full', clientOrderId: 'slfull_unsent1', reason: 'not sent: journal /j.db: nextSequence failed, the disk is full: free space' }]);
    expect(events).toEqual([{ kind: 'rejected', clientOrderId: 'slfull_unsent1', reason: out.invalid[0]!.reason }]);
    expect(host.enabled).toBe(true);
    full = false;
    const next = await host.tick();
    expect(next.intents.map((i) => i.clientOrderId)).toEqual(['slfull-0']);
    expect(host.enabled).toBe(true);
  });

  it('a plugin whose subscribe() throws is disabled with the reason, not a crash of the host', async () => {
    const def = defineStrategy({
      apiVersion: 1,
      name: 'badsub',
      params: z.object({}),
      subscribe: () => {
        throw new Error('no feeds today');
      },
      create: () => ({ onTick: () => undefined }),
    });
    const { host } = harness(def);
    expect(host.enabled).toBe(false);
    expect(host.disabledBy?.message).toMatch(/^strategy test: subscribe threw: no feeds today/);
    expect(host.subscriptions).toEqual([]);
    expect((await host.tick()).intents).toEqual([]);
  });

  it('a throwing plugin is disabled, its half-made intents dropped, and it is never called again', async () => {
    let ticks = 0;
    const def = defineStrategy({
      apiVersion: 1,
      name: 'boom',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          ticks++;
          ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1', price: '1' });
          throw new Error('division by zero in my signal');
        },
      }),
    });
    const { host } = harness(def, {}, { id: 'boom' });
    expect((await host.tick()).intents).toEqual([]);
    expect(host.enabled).toBe(false);
    expect(host.disabledBy!.message).toMatch(/^strategy boom: onTick threw: division by zero in my signal \(at \/.*host\.test\.ts:\d+:\d+\); the strategy is disabled, the others run on$/);
    await host.tick();
    expect(ticks).toBe(1);
  });

  it('a handler past its deadline disables the plugin, naming the handler and the deadline; what it asks for afterwards is never sent', async () => {
    const clock = new ManualClock(0);
    const deadlines = new Deadlines(clock);
    let release!: () => void;
    let ticks = 0;
    const def: StrategyDefinition = defineStrategy({
      apiVersion: 1,
      name: 'slow',
      params: z.object({}),
      create: (ctx) => ({
        async onTick() {
          ticks++;
          await new Promise<void>((resolve) => (release = resolve));
          ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1', price: '1' });
        },
      }),
    });
    const log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    const host = new StrategyHost({ id: 'slow', market: 'spot', symbols: ['BTCUSDT'], everyMs: 1000 }, def, {}, {
      view: new FakeView(),
      log,
      now: () => clock.now(),
      nextSequence: () => 0,
      setTimer: () => () => undefined,
      deadline: { ms: 500, setting: 'engine.handlerTimeoutMs', within: (work) => deadlines.within(500, work) },
    });
    let out: Awaited<ReturnType<StrategyHost['tick']>> | undefined;
    void host.tick().then((o) => (out = o));
    await clock.advance(499);
    expect(out).toBeUndefined();
    expect(host.enabled).toBe(true);
    await clock.advance(1);
    expect(out).toEqual({ intents: [], invalid: [] });
    expect(host.disabledBy!.message).toBe('strategy slow: onTick did not finish within 500 ms (engine.handlerTimeoutMs); nothing waits for it any more; the strategy is disabled, the others run on');

    // The abandoned tick ends later and queues an order: no later call hands it over.
    release();
    await clock.advance(0);
    expect((await host.tick()).intents).toEqual([]);
    expect(ticks).toBe(1);
  });

  it('a handler name sluice never calls (a typo, another framework\'s) starts the plugin disabled, naming it and the likely one; other keys pass', async () => {
    const typo = defineStrategy({ apiVersion: 1, name: 't', params: z.object({}), create: () => ({ onTik: () => undefined }) as never });
    const { host } = harness(typo);
    expect(host.enabled).toBe(false);
    expect(host.disabledReason).toBe('create returned onTik, a handler sluice never calls (did you mean onTick?); the handlers are onStart, onTick, onMarketData, onFill, onOrderUpdate, onOrderEvent, onStop, onSave, onLoad');
    expect((await host.tick()).intents).toEqual([]);
    const other = defineStrategy({ apiVersion: 1, name: 'o', params: z.object({}), create: () => ({ onBar: () => undefined }) as never });
    expect(harness(other).host.disabledReason).toMatch(/^create returned onBar, a handler sluice never calls; the handlers are /);
    const helpers = defineStrategy({ apiVersion: 1, name: 'h', params: z.object({}), create: () => ({ onTick: () => undefined, once: () => undefined, online: true }) as never });
    expect(harness(helpers).host.enabled).toBe(true);
  });

  it('a plugin whose create() throws starts disabled', async () => {
    const def = defineStrategy({ apiVersion: 1, name: 'c', params: z.object({}), create: () => { throw new TypeError('bad setup'); } });
    const { host } = harness(def);
    expect(host.enabled).toBe(false);
    expect(host.disabledBy!.message).toMatch(/create threw: bad setup/);
  });

  it('cancel, cancelAll and replace act on open orders; cancelling a queued order withdraws it', async () => {
    const def = defineStrategy({
      apiVersion: 1,
      name: 'c',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          const queued = ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '1', price: '1' });
          ctx.cancel(queued);
          ctx.replace('sltest-a' as never, { price: '101' });
          expect(ctx.cancelAll()).toBe(1); // sltest-a is already being cancelled
        },
      }),
    });
    const { host, view } = harness(def);
    view.orders = [order('sltest-a', { venueOrderId: '77' as never }), order('sltest-b')];
    const out = await host.tick();
    expect(out.intents.map((i) => [i.kind, i.clientOrderId, i.kind === 'place' ? `${i.price}x${i.volume}` : i.venueOrderId])).toEqual([
      ['cancel', 'sltest-a', '77'],
      ['place', 'sltest-1', '101x0.75'],
      ['cancel', 'sltest-b', undefined],
    ]);
  });

  it('replace keeps how the original was sent: a POST_ONLY quote stays POST_ONLY, a futures close stays a close', async () => {
    const def = defineStrategy({
      apiVersion: 1,
      name: 'c',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          ctx.replace('sltest-q' as never, { price: '99.5' });
        },
      }),
    });
    const { host, view } = harness(def, {}, { market: 'futures', symbols: ['E-BTC-USDT'] });
    view.orders = [order('sltest-q', { market: 'futures', symbol: 'E-BTC-USDT', venueOrderId: '78' as never, executedVolume: d('0'), open: 'OPEN', positionType: 2, timeInForce: 'POST_ONLY' })];
    const out = await host.tick();
    const placed = out.intents.find((i) => i.kind === 'place');
    expect(placed).toMatchObject({ symbol: 'E-BTC-USDT', side: 'BUY', type: 'LIMIT', price: '99.5', volume: '1', open: 'OPEN', positionType: 2, timeInForce: 'POST_ONLY' });
  });
});
