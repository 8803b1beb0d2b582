// Placing and cancelling against the contract's letter (the simulator's strict profile): lost
// answers settled without a client-id lookup, answers after which the venue may have acted,
// cancels that must not get lost, and replace() keeping a futures close a close. Each case
// failed on the engine before the strict profile existed.
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../../src/core/ids.js';
import { LENIENT_PROFILE, STRICT_PROFILE } from '../../src/sim/index.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { defineStrategy, z, type StrategyContext } from '../../src/strategy/api.js';
import { rigApp, passes, strictRig, untilReconciled, type StrictRig } from '../fixtures/strict-venue.js';

let rig: StrictRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const SYMBOL = 'BTCUSDT';
const freeze = (r: StrictRig, symbol = SYMBOL) => r.sim.exchange.applyMarketEvent({ type: 'book', symbol, bids: [['29990', '5']], asks: [['30010', '5']] });

/** A strategy that runs `script` on each tick once there is a price; `script` returns true when done. */
function scripted(script: (ctx: StrategyContext<unknown>, tick: number) => boolean | void, symbol = SYMBOL) {
  return defineStrategy({
    apiVersion: 1,
    name: 'scripted',
    params: z.object({}),
    create(ctx) {
      let tick = 0;
      let done = false;
      return {
        onTick() {
          if (done || !ctx.lastPrice(symbol)) return;
          done = script(ctx as StrategyContext<unknown>, tick++) === true;
        },
      };
    },
  });
}

const venueOrders = (r: StrictRig, clientOrderId: string) => r.sim.exchange.orderLog().filter((o) => o.clientOrderId === clientOrderId);
const venueStatus = (r: StrictRig, orderId: string) => r.sim.exchange.spot.orders.get(orderId)?.status;

describe('an order whose answer was lost', () => {
  it('is found on the venue by side, price, volume and time (no client-id lookup), tracked as ours, never adopted, never sent again', async () => {
    rig = await strictRig();
    freeze(rig);
    let id: ClientOrderId | undefined;
    const { app, tap } = await rigApp(rig, [{ id: 'lost', definition: scripted((ctx) => ((id = ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: '29995', volume: '0.002' })), true)), symbols: [SYMBOL] }]);
    rig.sim.exchange.setFaults({ lostResponseRate: 1 });
    await app.start();
    await tap.waitFor(/order outcome unknown/);
    rig.sim.exchange.setFaults({ lostResponseRate: 0 });
    await untilReconciled(app, () => app.journal.order(id!)?.status === 'open');
    const venue = venueOrders(rig, id!);
    expect(venue).toHaveLength(1);
    expect(app.journal.order(id!)).toMatchObject({ status: 'open', venueOrderId: venue[0]!.orderId });
    expect(app.journal.orders().filter((o) => o.strategyId === 'adopted')).toEqual([]);
    // Its fills count: someone sells into it.
    rig.sim.exchange.applyMarketEvent({ type: 'trade', symbol: SYMBOL, price: '29995', qty: '0.002', side: 'SELL' });
    await untilReconciled(app, () => app.journal.order(id!)?.status === 'filled');
    expect(app.engine.positions.position('spot', SYMBOL).quantity).toBe('0.002');
    expect(tap.lines.filter((l) => /reconcile failed/.test(l))).toEqual([]);
  });

  it('one the venue never took is given up after reconcile.unknownTimeoutMs (rejected, never re-sent), while risk held its room', async () => {
    rig = await strictRig();
    freeze(rig);
    let armed = false;
    let id: ClientOrderId | undefined;
    const { app, tap } = await rigApp(
      rig,
      [{ id: 'lost', definition: scripted((ctx) => (armed ? ((id = ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: '29995', volume: '0.002' })), true) : false)), symbols: [SYMBOL] }],
      // Short, so the test is quick: config refuses a timeout within recvWindowMs + 1000 ms (the venue may still take the order).
      { venue: { recvWindowMs: 1000 }, reconcile: { unknownTimeoutMs: 2500 } },
    );
    await app.start();
    await untilReconciled(app, () => app.engine.riskInputs().lastPrices.size > 0);
    // The connection drops before the venue acts: nothing was placed, but we cannot know that.
    rig.sim.exchange.setFaults({ resetRate: 1 });
    armed = true;
    await tap.waitFor(/order outcome unknown/);
    rig.sim.exchange.setFaults({ resetRate: 0 });
    expect(app.journal.order(id!)!.status).toBe('unknown');
    // Meanwhile risk counts it as open: it may be live.
    expect(app.engine.riskInputs().openOrders.map((o) => ('clientOrderId' in o ? o.clientOrderId : undefined))).toContain(id);
    await untilReconciled(app, () => app.journal.order(id!)?.status === 'rejected');
    expect(app.journal.history(id!).at(-1)!.reason).toMatch(/never placed/);
    expect(rig.sim.exchange.orderLog()).toEqual([]);
    expect(rig.sim.exchange.arrivals().filter((a) => a.endpoint === 'spot.order')).toHaveLength(1);
  });
});

describe('a venue that drops the client order ids of batch items and looks order requests up by theirs', () => {
  it('a batch whose answer was lost is not given up by "no such order" lookups: its orders are found by their looks, never re-sent', async () => {
    rig = await strictRig({ profile: { ...LENIENT_PROFILE, name: 'drops-batch-ids', openOrdersClientOrderId: false, batchItemClientOrderIds: false } });
    freeze(rig);
    // A run before this one found an order request's lost answer by its client order id.
    const before = new SqliteJournal(rig.journalPath);
    before.setCursor('venue:spot:clientIdLookup', 'yes');
    before.close();
    const ids: ClientOrderId[] = [];
    const prices = ['29991', '29992', '29993'];
    // One single request per window: the three go as one batch.
    const { app, tap } = await rigApp(rig, [{ id: 'batch', definition: scripted((ctx) => (prices.forEach((price) => ids.push(ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price, volume: '0.002' }))), true)), symbols: [SYMBOL] }], { venue: { limits: { 'spot.order': 1 } } });
    rig.sim.exchange.setFaults({ lostResponseRate: 1 });
    await app.start();
    await tap.waitFor(/order outcome unknown/);
    rig.sim.exchange.setFaults({ lostResponseRate: 0 });
    await untilReconciled(app, () => ids.every((id) => app.journal.order(id)?.status === 'open'));
    expect(rig.sim.exchange.arrivals().filter((a) => a.endpoint === 'spot.batchOrders')).toHaveLength(1);
    const venue = rig.sim.exchange.orderLog();
    expect(venue.map((o) => [o.price, o.clientOrderId])).toEqual(prices.map((p) => [p, undefined]));
    // Each bound to the venue order of its own price, none ever given up, none adopted as foreign.
    expect(ids.map((id) => app.journal.order(id)!.venueOrderId)).toEqual(venue.map((o) => o.orderId));
    expect(ids.flatMap((id) => app.journal.history(id).map((e) => e.status))).not.toContain('rejected');
    expect(app.journal.orders().filter((o) => o.strategyId === 'adopted')).toEqual([]);
    // A lost request is looked up by client id only once the venue can no longer book it
    // (recvWindow after its answer was lost): its orders were found by their looks before, so no
    // "no such order" was ever taken for a verdict, and batch items' lookups stay unproven.
    expect(rig.sim.exchange.arrivals().filter((a) => a.endpoint === 'spot.queryOrder').length).toBeGreaterThan(0);
    expect([app.journal.cursor('venue:spot:batchClientIdLookup'), app.journal.cursor('venue:spot:clientIdLookup')]).toEqual([undefined, 'yes']);
  });
});

describe('a venue that refuses the client order id on order requests (the contract\'s create-order body has five fields)', () => {
  it('spot and futures orders go without it after the first refusal: each placed once, journaled open under its venue id, none rejected', async () => {
    rig = await strictRig({ profile: { ...STRICT_PROFILE, name: 'refuses-order-ids', orderClientOrderIds: false } });
    const contract = 'E-BTC-USDT';
    freeze(rig);
    freeze(rig, contract);
    const placed: Record<'spot' | 'futures', ClientOrderId[]> = { spot: [], futures: [] };
    // One order at a time, each once the one before has its answer: every one goes as an order request of its own.
    const oneByOne = (market: 'spot' | 'futures', symbol: string, prices: string[], volume: string) =>
      scripted((ctx) => {
        const ids = placed[market];
        const before = ctx.openOrders(symbol).find((o) => o.clientOrderId === ids.at(-1));
        if (before && before.venueOrderId === undefined) return false;
        if (ids.length === prices.length) return true;
        const price = prices[ids.length]!;
        ids.push(ctx.place(market === 'spot' ? { symbol, side: 'BUY', type: 'LIMIT', price, volume } : { symbol, side: 'BUY', type: 'LIMIT', price, volume, open: 'OPEN', positionType: 1 }));
        return false;
      }, symbol);
    const { app } = await rigApp(rig, [
      { id: 'spot', definition: oneByOne('spot', SYMBOL, ['29981', '29982', '29983'], '0.002'), symbols: [SYMBOL], everyMs: 100 },
      { id: 'fut', market: 'futures', definition: oneByOne('futures', contract, ['29971', '29972'], '1'), symbols: [contract], everyMs: 100 },
    ]);
    await app.start();
    const all = () => [...placed.spot, ...placed.futures];
    const answered = (id: ClientOrderId) => app.journal.order(id)?.venueOrderId !== undefined || app.journal.order(id)?.status === 'rejected';
    await untilReconciled(app, () => all().length === 5 && all().every(answered));
    const venue = rig.sim.exchange.orderLog();
    expect(venue.map((o) => [o.market, o.price, o.clientOrderId]).sort()).toEqual([
      ['futures', '29971', undefined],
      ['futures', '29972', undefined],
      ['spot', '29981', undefined],
      ['spot', '29982', undefined],
      ['spot', '29983', undefined],
    ]);
    for (const id of all()) {
      const order = app.journal.order(id)!;
      expect(order).toMatchObject({ status: 'open', venueOrderId: venue.find((o) => o.market === order.market && o.price === order.price)!.orderId });
      expect(app.journal.history(id).map((e) => e.status)).not.toContain('rejected');
    }
    const statuses = (endpoint: string) => rig!.sim.exchange.arrivals().filter((a) => a.endpoint === endpoint).map((a) => [a.status, a.code]);
    expect(statuses('spot.order')).toEqual([[400, -1103], [200, undefined], [200, undefined], [200, undefined]]);
    expect(statuses('futures.order')).toEqual([[400, -1103], [200, undefined], [200, undefined]]);
  });
});

describe('answers after which the venue may have acted', () => {
  it('-1000 (500), a 502 page and -1001 (200) on placing: never retried, never journaled rejected; the reconciler finds each order', async () => {
    rig = await strictRig();
    freeze(rig);
    const ids: ClientOrderId[] = [];
    const { app } = await rigApp(rig, [
      {
        id: 'acted',
        definition: scripted((ctx, tick) => {
          ids.push(ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: `2999${tick % 5}`, volume: `0.00${(tick % 9) + 1}` }));
          return tick === 14;
        }),
        symbols: [SYMBOL],
        everyMs: 100,
      },
    ]);
    rig.sim.exchange.setFaults({ errorAfterActRate: 1 });
    await app.start();
    await untilReconciled(app, () => ids.length === 15 && ids.every((id) => app.journal.order(id)?.status === 'open'));
    const shapes = new Set(rig.sim.exchange.arrivals().filter((a) => a.fault === 'error-after-act').map((a) => a.status));
    expect([...shapes].sort()).toEqual([200, 500, 502]);
    for (const id of ids) {
      expect(venueOrders(rig, id), id).toHaveLength(1);
      expect(app.journal.history(id).map((e) => e.status)).not.toContain('rejected');
    }
  });
});

describe('cancels are not lost', () => {
  it('a cancel asked while the order is unknown goes out once the order is found', async () => {
    rig = await strictRig();
    freeze(rig);
    let id: ClientOrderId | undefined;
    const canceller = defineStrategy({
      apiVersion: 1,
      name: 'canceller',
      params: z.object({}),
      create(ctx) {
        return {
          onTick() {
            if (!id && ctx.lastPrice(SYMBOL)) id = ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: '29995', volume: '0.002' });
          },
          // The moment it hears the answer was lost, it no longer wants the order.
          onOrderUpdate(order) {
            if (order.status === 'unknown') ctx.cancel(order.clientOrderId);
          },
        };
      },
    });
    const { app, tap } = await rigApp(rig, [{ id: 'cancel', definition: canceller, symbols: [SYMBOL] }]);
    rig.sim.exchange.setFaults({ lostResponseRate: 1 });
    await app.start();
    await tap.waitFor(/cancel waits for the venue id of its order/);
    rig.sim.exchange.setFaults({ lostResponseRate: 0 });
    await untilReconciled(app, () => app.journal.order(id!)?.status === 'canceled');
    expect(venueStatus(rig, venueOrders(rig, id!)[0]!.orderId)).toBe('CANCELED');
  });

  it('a clean stop cancels an order whose answer was lost too, once it is found', async () => {
    rig = await strictRig();
    freeze(rig);
    let id: ClientOrderId | undefined;
    const { app, tap } = await rigApp(rig, [{ id: 'stop', definition: scripted((ctx) => ((id = ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: '29995', volume: '0.002' })), true)), symbols: [SYMBOL] }]);
    rig.sim.exchange.setFaults({ lostResponseRate: 1 });
    await app.start();
    await tap.waitFor(/order outcome unknown/);
    rig.sim.exchange.setFaults({ lostResponseRate: 0 });
    await app.stop();
    rig.apps.length = 0;
    expect(rig.sim.exchange.openOrders().spot).toEqual([]);
    const journal = SqliteJournal.open(rig.journalPath, { readOnly: true });
    try {
      expect(journal.order(id!)!.status).toBe('canceled');
    } finally {
      journal.close();
    }
  });

  it('an order the venue no longer knows (-2013) is settled, queried once, and blocks nothing behind it', async () => {
    rig = await strictRig();
    freeze(rig);
    const { app } = await rigApp(rig, [{ id: 'purged', definition: scripted((ctx) => (ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: '29995', volume: '0.002' }), true)), symbols: [SYMBOL] }]);
    // A previous run's order the venue has purged since it ended.
    const gone = 'slpurged-zz' as ClientOrderId;
    const intent = { kind: 'place' as const, intentId: 'i', strategyId: 'purged', clientOrderId: gone, market: 'spot' as const, symbol: SYMBOL, side: 'BUY' as const, type: 'LIMIT' as const, volume: d('0.001'), price: d('29000') };
    app.journal.recordIntent(intent, { ...intent, executedVolume: d('0'), status: 'open', venueOrderId: '424242' as VenueOrderId, createdAt: 1, updatedAt: 1 });
    await app.start();
    await untilReconciled(app, () => app.journal.order(gone)?.status === 'canceled' && app.journal.orders().some((o) => o.clientOrderId !== gone && o.venueOrderId));
    expect(app.journal.history(gone).at(-1)!.reason).toMatch(/-2013/);
    // The live order's fill is journaled as usual.
    rig.sim.exchange.applyMarketEvent({ type: 'trade', symbol: SYMBOL, price: '29995', qty: '0.002', side: 'SELL' });
    await untilReconciled(app, () => app.journal.fills().length === 1);
    await passes(app, 3);
    expect(rig.sim.exchange.arrivals().filter((a) => a.endpoint === 'spot.queryOrder' && a.code === -2013)).toHaveLength(1);
  });

  it('an order already pending cancel is not cancelled again (no -1145), at shutdown either', async () => {
    rig = await strictRig({ cancelSettleMs: 60_000 });
    freeze(rig);
    let id: ClientOrderId | undefined;
    const { app } = await rigApp(rig, [
      {
        id: 'twice',
        definition: scripted((ctx, tick) => {
          if (tick === 0) id = ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: '29995', volume: '0.002' });
          const o = ctx.openOrders(SYMBOL).find((x) => x.clientOrderId === id);
          if (o?.venueOrderId && o.status === 'open') {
            ctx.cancel(id!);
            return true;
          }
        }),
        symbols: [SYMBOL],
      },
    ]);
    await app.start();
    await untilReconciled(app, () => app.journal.order(id!)?.status === 'pending_cancel');
    await passes(app, 2);
    await app.stop();
    rig.apps.length = 0;
    const cancels = rig.sim.exchange.arrivals().filter((a) => a.endpoint === 'spot.cancel' || a.endpoint === 'spot.batchCancel');
    expect(cancels.map((a) => a.code ?? a.status)).toEqual([200]);
  });
});

describe('replace()', () => {
  it('keeps a futures CLOSE a CLOSE (and its position type): the long is closed, no short is opened', async () => {
    rig = await strictRig();
    const contract = 'E-BTC-USDT';
    freeze(rig, contract);
    let closeId: ClientOrderId | undefined;
    let replacement: ClientOrderId | undefined;
    const { app } = await rigApp(rig, [
      {
        id: 'closer',
        market: 'futures',
        definition: scripted((ctx, tick) => {
          if (tick === 0) ctx.place({ symbol: contract, side: 'BUY', type: 'LIMIT', price: '30010', volume: '2', open: 'OPEN', positionType: 2 });
          else if (!closeId && ctx.position(contract).quantity === '2') closeId = ctx.place({ symbol: contract, side: 'SELL', type: 'LIMIT', price: '30100', volume: '2', open: 'CLOSE', positionType: 2 });
          else if (closeId && !replacement && ctx.openOrders(contract).find((o) => o.clientOrderId === closeId)?.venueOrderId) {
            const o = ctx.openOrders(contract).find((x) => x.clientOrderId === closeId)!;
            expect(o).toMatchObject({ open: 'CLOSE', positionType: 2 });
            replacement = ctx.replace(closeId, { price: '30050' });
            return true;
          }
        }, contract),
        symbols: [contract],
      },
    ]);
    await app.start();
    await untilReconciled(app, () => replacement !== undefined && app.journal.order(replacement)?.venueOrderId !== undefined);
    // Nobody else offers: the buyer meets our close.
    rig.sim.exchange.applyMarketEvent({ type: 'book', symbol: contract, bids: [['29990', '5']], asks: [] });
    rig.sim.exchange.applyMarketEvent({ type: 'trade', symbol: contract, price: '30050', qty: '2', side: 'BUY' });
    await untilReconciled(app, () => app.journal.order(replacement!)?.status === 'filled');
    expect(rig.sim.exchange.orderLog().find((o) => o.clientOrderId === replacement)).toMatchObject({ open: 'CLOSE', side: 'SELL', volume: '2' });
    expect(app.journal.order(replacement!)).toMatchObject({ open: 'CLOSE', positionType: 2 });
    expect(rig.sim.exchange.futuresState().positions).toEqual([]);
    expect(app.engine.positions.position('futures', contract).quantity).toBe('0');
  });
});
