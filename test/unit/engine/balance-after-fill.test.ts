// A spot buy's coins are free for risk and the strategy from its fill, not from the next account
// read: a take-profit sent on the fill is not refused for a balance the account holds. The engine
// on the in-process simulator (a manual clock, 300 ms each way), starting with no BTC: a first ETH
// buy's trade lets the reconciler measure the venue's matching clock; the second ETH buy's fill,
// told in a pass, sends a BTC market buy that the venue books after that pass read the balances
// (by more than the clock's margin) and before it reads BTC's trades, so the pass journals its fill.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

describe('a spot fill booked after the last account read', () => {
  it("counts in the balance risk judges and ctx.balance shows: the take-profit sell on the buy's fill is accepted", async () => {
    const ids: Record<string, ClientOrderId> = {};
    const seenFree: string[] = [];
    const strategy = defineStrategy({
      apiVersion: 2,
      name: 'tp',
      params: z.object({}),
      create: (ctx) => ({
        onTick() {
          if (ids.eth1 || !ctx.lastPrice('ETHUSDT')) return;
          ids.eth1 = ctx.place({ symbol: 'ETHUSDT', side: 'BUY', type: 'MARKET', volume: '100' });
        },
        onOrderUpdate(order) {
          // Accepted and resting: what it holds is no longer free, as risk counts it.
          if (order.clientOrderId === ids.tp && order.status === 'open' && seenFree.length === 1) seenFree.push(`${ctx.balance('BTC').free} free with the take-profit placed`);
        },
        onFill(fill, order) {
          if (order.clientOrderId === ids.eth1 && !ids.eth2) ids.eth2 = ctx.place({ symbol: 'ETHUSDT', side: 'BUY', type: 'MARKET', volume: '100' });
          if (order.clientOrderId === ids.eth2 && !ids.btc) ids.btc = ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', volume: '100' });
          if (fill.symbol === 'BTCUSDT' && !ids.tp) {
            const held = ctx.position('BTCUSDT').netQuantity;
            seenFree.push(`${held} held, ${ctx.balance('BTC').free} free`);
            ids.tp = ctx.place({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', volume: dec.truncate(held, ctx.instrument('BTCUSDT')!.quantityPrecision), price: dec.truncate(dec.mul(ctx.lastPrice('BTCUSDT')!, d('1.05')), 2) });
          }
        },
      }),
    });
    running = await engineApp(
      `
mode: paper
sim: { balances: { USDT: "100000", BTC: "0", ETH: "0" }, fees: { maker: "0.002", taker: "0.002" }, latencyMs: { min: 300, max: 300 } }
engine: { marketDataEveryMs: 100, reconcileEveryMs: 1000, summaryEveryMs: 600000 }
strategies:
  - { id: tp, use: inline:tp, symbols: [ETHUSDT, BTCUSDT], everyMs: 250 }
`,
      [loaded('tp', strategy, { everyMs: 250, symbols: ['ETHUSDT', 'BTCUSDT'] })],
    );
    const { app, clock } = running;
    void app.start();
    await runUntil(clock, SIM_START + 30_000);

    const order = (id: ClientOrderId | undefined) => (id ? app.journal.order(id) : undefined);
    expect(order(ids.btc)?.status).toBe('filled');
    // The buy's coins, less the fee taken in them, were free when its fill was told.
    const btc = order(ids.btc)!.executedVolume;
    expect(seenFree).toHaveLength(2);
    expect(seenFree[0]).toMatch(/^(\S+) held, \1 free$/);
    // Less the take-profit's volume (the held coins cut to the volume precision): the dust is left.
    const held = d(seenFree[0]!.split(' ')[0]!);
    expect(seenFree[1]).toBe(`${dec.sub(held, order(ids.tp)!.volume)} free with the take-profit placed`);
    expect(dec.isPositive(d(seenFree[0]!.split(' ')[0]!))).toBe(true);
    expect(dec.lte(d(seenFree[0]!.split(' ')[0]!), btc)).toBe(true);
    expect(order(ids.tp)?.status).toBe('open');
  });
});
