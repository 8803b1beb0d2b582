// Reading the venue as the contract's letter has it (the simulator's strict profile): pages of
// open orders, self-trades, futures trade pages of 100, odd items, balances read while trading,
// a clean stop. Each case failed on the reconciler before the strict profile existed.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec, type Decimal } from '../../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../../src/core/ids.js';
import { statusReport } from '../../src/app/status.js';
import { createExchangeClient } from '../../src/app/client.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { defineStrategy, z } from '../../src/strategy/api.js';
import { rigApp, passes, strictRig, untilReconciled, type StrictRig } from '../fixtures/strict-venue.js';

let rig: StrictRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const SYMBOL = 'BTCUSDT';
/** A still market: the book is the tape's, so only our orders and the test's trades move it. */
const freeze = (r: StrictRig, symbol = SYMBOL, bid = '29990', ask = '30010') =>
  r.sim.exchange.applyMarketEvent({ type: 'book', symbol, bids: [[bid, '5']], asks: [[ask, '5']] });

/** Places `n` resting buys 4% under the last price on its first tick with a price, then nothing. */
function resting(n: number) {
  return defineStrategy({
    apiVersion: 1,
    name: 'resting',
    params: z.object({}),
    create(ctx) {
      let done = false;
      return {
        onTick() {
          const last = ctx.lastPrice(SYMBOL);
          if (done || !last) return;
          done = true;
          const top = dec.truncate(dec.mul(last, d('0.96')), 2);
          for (let i = 0; i < n; i++) ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: dec.sub(top, d(`0.0${i % 10}`)), volume: '0.001' });
        },
      };
    },
  });
}

const ourOpen = (r: StrictRig, app: Awaited<ReturnType<typeof rigApp>>['app']) => app.journal.orders({ openOnly: true }).filter((o) => o.strategyId === 'rest');

describe('open orders beyond the default page of 100', () => {
  it('reads them in one page (limit 1000): none of 150 resting orders looks closed, so none is queried', async () => {
    rig = await strictRig();
    const { app } = await rigApp(rig, [{ id: 'rest', definition: resting(150), symbols: [SYMBOL] }]);
    await app.start();
    await untilReconciled(app, () => ourOpen(rig!, app).filter((o) => o.venueOrderId).length === 150);
    await passes(app, 5);
    expect(rig.sim.exchange.openOrders().spot).toHaveLength(150);
    expect(ourOpen(rig, app)).toHaveLength(150);
    expect(rig.sim.exchange.arrivals().filter((a) => a.endpoint === 'spot.queryOrder')).toEqual([]);
  });

  it('a clean stop leaves journal and venue agreeing, settled from cancel answers, open orders and trades, not a query per order', async () => {
    rig = await strictRig();
    const { app } = await rigApp(rig, [{ id: 'rest', definition: resting(150), symbols: [SYMBOL] }]);
    await app.start();
    await untilReconciled(app, () => ourOpen(rig!, app).filter((o) => o.venueOrderId).length === 150);
    const before = rig.sim.exchange.arrivals().length;
    await app.stop();
    rig.apps.length = 0;
    const during = rig.sim.exchange.arrivals().slice(before);
    expect(rig.sim.exchange.openOrders().spot).toEqual([]);
    const journal = SqliteJournal.open(rig.journalPath, { readOnly: true });
    try {
      const open = journal.orders({ openOnly: true });
      expect(open.map((o) => `${o.clientOrderId} ${o.status}`)).toEqual([]);
      expect(journal.orders().filter((o) => o.strategyId === 'rest').every((o) => o.status === 'canceled')).toBe(true);
    } finally {
      journal.close();
    }
    expect(during.filter((a) => a.endpoint === 'spot.queryOrder').length).toBeLessThan(10);
  });

  it('sluice status says when open orders disagree (journal only, venue only), not only on position drift', async () => {
    rig = await strictRig();
    const { app } = await rigApp(rig, [{ id: 'rest', definition: resting(0), symbols: [SYMBOL] }]);
    // The journal holds an open order the venue never had.
    const intent = { kind: 'place' as const, intentId: 'i', strategyId: 'rest', clientOrderId: 'slrest-zz' as ClientOrderId, market: 'spot' as const, symbol: SYMBOL, side: 'BUY' as const, type: 'LIMIT' as const, volume: d('0.001'), price: d('20000') };
    app.journal.recordIntent(intent, { ...intent, executedVolume: d('0'), status: 'open', venueOrderId: '424242' as VenueOrderId, createdAt: 1, updatedAt: 1 });
    await app.client.start();
    const report = await statusReport(app);
    expect(report.drift).toBe(false);
    expect(report.ordersDisagree).toBe(true);
    expect(report.text).toMatch(/journal only +slrest-zz #424242/);
  });
});

describe('self-trades', () => {
  it('count both sides: the bid and the ask are both ours, so both fills are journaled and the position is flat', async () => {
    rig = await strictRig();
    freeze(rig);
    const cross = defineStrategy({
      apiVersion: 1,
      name: 'cross',
      params: z.object({}),
      create(ctx) {
        let step = 0;
        return {
          onTick() {
            if (!ctx.lastPrice(SYMBOL)) return;
            if (step === 0) ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: '30000', volume: '0.001' });
            if (step === 0 || ctx.openOrders(SYMBOL).some((o) => !o.venueOrderId)) return void (step = 1);
            if (step === 1) ctx.place({ symbol: SYMBOL, side: 'SELL', type: 'LIMIT', price: '30000', volume: '0.001' });
            step = 2;
          },
        };
      },
    });
    const { app } = await rigApp(rig, [{ id: 'cross', definition: cross, symbols: [SYMBOL] }], { reconcile: { drift: { graceMs: 0 } } });
    await app.start();
    await untilReconciled(app, () => app.journal.fills().length >= 2);
    await passes(app, 3);
    const trades = rig.sim.exchange.allTrades();
    expect(trades).toHaveLength(2);
    expect(new Set(trades.map((t) => t.id)).size).toBe(1);
    const fills = app.journal.fills();
    expect(fills.map((f) => [f.tradeId, f.side]).sort()).toEqual([
      [trades[0]!.id, 'BUY'],
      [trades[0]!.id, 'SELL'],
    ]);
    expect(app.engine.positions.position('spot', SYMBOL).quantity).toBe('0');
    expect(app.riskGate.killSwitch()).toBe('off');
  });
});

describe('futures trade pages capped at 100', () => {
  it('reads every one of 250 fills that arrive at once: the cursor never passes a trade it did not read', async () => {
    rig = await strictRig();
    const contract = 'E-BTC-USDT';
    freeze(rig, contract, '29990', '30010');
    const bid = defineStrategy({
      apiVersion: 1,
      name: 'bid',
      params: z.object({}),
      create(ctx) {
        let done = false;
        return {
          onTick() {
            if (done || !ctx.lastPrice(contract)) return;
            done = true;
            ctx.place({ symbol: contract, side: 'BUY', type: 'LIMIT', price: '30000', volume: '250', open: 'OPEN', positionType: 1 });
          },
        };
      },
    });
    const { app } = await rigApp(rig, [{ id: 'bid', definition: bid, symbols: [contract], market: 'futures' }], { risk: { maxNotionalPerOrder: '100000000' } });
    await app.start();
    await untilReconciled(app, () => app.journal.orders().some((o) => o.venueOrderId));
    // 250 trades of 1 contract each against our bid, all between two passes.
    await new Promise<void>((resolve) =>
      app.engine.events.once('reconciled', () => {
        for (let i = 0; i < 250; i++) rig!.sim.exchange.applyMarketEvent({ type: 'trade', symbol: contract, price: '30000', qty: '1', side: 'SELL' });
        resolve();
      }),
    );
    await untilReconciled(app, () => app.journal.fills().length >= 250);
    await passes(app, 6);
    expect(app.journal.fills()).toHaveLength(250);
    expect(app.engine.positions.position('futures', contract).quantity).toBe('250');
  });
});

describe('odd items are read one by one', () => {
  it('an open order with a status nobody documents is left out and named; the pass still journals fills', async () => {
    rig = await strictRig({
      rewrite: (endpoint, body) =>
        endpoint === 'spot.openOrders' && Array.isArray(body)
          ? [...body, { orderId: '987654321', orderIdString: '987654321', symbol: SYMBOL, price: '1', origQty: '1', executedQty: '0', avgPrice: '0', status: 'SUSPENDED_BY_RISK', type: 'LIMIT', side: 'BUY', time: 1 }]
          : body,
    });
    freeze(rig);
    const { app, tap } = await rigApp(rig, [{ id: 'rest', definition: resting(1), symbols: [SYMBOL] }]);
    await app.start();
    await untilReconciled(app, () => app.journal.orders().some((o) => o.venueOrderId));
    const order = app.journal.orders()[0]!;
    // Nobody else bids: the trade meets our order.
    rig.sim.exchange.applyMarketEvent({ type: 'book', symbol: SYMBOL, bids: [], asks: [['30010', '5']] });
    rig.sim.exchange.applyMarketEvent({ type: 'trade', symbol: SYMBOL, price: order.price!, qty: '0.001', side: 'SELL' });
    await untilReconciled(app, () => app.journal.fills().length === 1);
    expect(app.journal.order(order.clientOrderId)!.status).toBe('filled');
    expect(tap.lines.filter((l) => /reconcile failed/.test(l))).toEqual([]);
    expect(tap.lines.filter((l) => /987654321/.test(l) && /SUSPENDED_BY_RISK/.test(l))).toHaveLength(1);
    // The odd order is not foreign to adopt or cancel, and not one of ours.
    expect(app.journal.orders().map((o) => o.venueOrderId)).not.toContain('987654321');
  });

  it('a futures position whose volume is null: that contract is not checked for drift, and the log says so', async () => {
    rig = await strictRig({
      rewrite: (endpoint, body) => {
        if (endpoint !== 'futures.account') return body;
        const b = body as { account: { positionVos: { positions: Record<string, unknown>[] }[] }[] };
        for (const vo of b.account[0]?.positionVos ?? []) for (const p of vo.positions) p.volume = null;
        return b;
      },
    });
    const contract = 'E-BTC-USDT';
    freeze(rig, contract);
    const taker = defineStrategy({
      apiVersion: 1,
      name: 'taker',
      params: z.object({}),
      create(ctx) {
        let done = false;
        return {
          onTick() {
            if (done || !ctx.lastPrice(contract)) return;
            done = true;
            ctx.place({ symbol: contract, side: 'BUY', type: 'LIMIT', price: '30010', volume: '2', open: 'OPEN', positionType: 1 });
          },
        };
      },
    });
    const { app, tap } = await rigApp(rig, [{ id: 'taker', definition: taker, symbols: [contract], market: 'futures' }], { reconcile: { drift: { graceMs: 0 } } });
    await app.start();
    await untilReconciled(app, () => app.journal.fills().length === 1);
    await tap.waitFor(/drift of E-BTC-USDT not checked/);
    expect(tap.lines.filter((l) => /futures account (refresh|read) failed/.test(l))).toEqual([]);
    expect(app.riskGate.killSwitch()).toBe('off');
  });
});

describe('drift compares like with like', () => {
  /** One big resting bid whose slices the test fills by trades on the venue. */
  const bigBid = defineStrategy({
    apiVersion: 1,
    name: 'bigbid',
    params: z.object({}),
    create(ctx) {
      let done = false;
      return {
        onTick() {
          if (done || !ctx.lastPrice(SYMBOL)) return;
          done = true;
          ctx.place({ symbol: SYMBOL, side: 'BUY', type: 'LIMIT', price: '30000', volume: '0.3' });
        },
      };
    },
  });

  it('no false drift when fills land between the trades read and the balance read, pass after pass', async () => {
    let filling = false;
    let injected = 0;
    rig = await strictRig({
      // A fill right after the venue answered a trades read: the next balance read includes it,
      // the trades read before that balance did not.
      rewrite: (endpoint, body) => {
        if (endpoint === 'spot.myTrades' && filling && injected < 20) {
          injected++;
          queueMicrotask(() => rig!.sim.exchange.applyMarketEvent({ type: 'trade', symbol: SYMBOL, price: '30000', qty: '0.001', side: 'SELL' }));
        }
        return body;
      },
    });
    freeze(rig);
    const { app, tap } = await rigApp(rig, [{ id: 'bigbid', definition: bigBid, symbols: [SYMBOL] }], { reconcile: { drift: { graceMs: 0 } } });
    await app.start();
    await untilReconciled(app, () => app.journal.orders().some((o) => o.venueOrderId));
    filling = true;
    await untilReconciled(app, () => injected >= 20 && app.journal.fills().length === 20);
    await passes(app, 4);
    expect(tap.lines.filter((l) => /position drift/.test(l))).toEqual([]);
    expect(app.riskGate.killSwitch()).toBe('off');
    expect(app.engine.reconciler.lastDrift.map((l) => [l.name, l.difference])).toEqual([['BTC', '0']]);
  });

  it('a real drift (a trade of the account no order of ours explains) is still caught', async () => {
    rig = await strictRig();
    freeze(rig);
    const { app, tap } = await rigApp(rig, [{ id: 'bigbid', definition: bigBid, symbols: [SYMBOL] }], { reconcile: { drift: { graceMs: 0 } } });
    await app.start();
    await untilReconciled(app, () => app.journal.orders().some((o) => o.venueOrderId) && app.engine.reconciler.lastDrift.length > 0);
    // The account's owner buys by hand at market: the BTC balance moves, no fill of ours explains it.
    const hand = createExchangeClient({ spotUrl: rig.sim.url, credentials: { apiKey: rig.sim.apiKey, apiSecret: rig.sim.apiSecret } });
    await hand.start();
    await hand.executor.call('spot.order', { symbol: SYMBOL, side: 'BUY', type: 'MARKET', volume: d('100') });
    await hand.close();
    await tap.waitFor(/position drift/);
    expect(app.riskGate.killSwitch()).toBe('reduce_only');
    const line = app.engine.reconciler.lastDrift.find((l) => l.name === 'BTC')!;
    expect(dec.isPositive(line.difference as Decimal)).toBe(true);
  });
});
