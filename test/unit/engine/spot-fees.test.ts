// A spot buy's fee taken in the base asset: the position says what the fills left held
// (netQuantity), so a sell that closes it is not refused for want of the fee. The engine on the
// in-process simulator (a manual clock), starting with no BTC.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { StrategyPosition } from '../../../src/core/types.js';
import { emptyEntry, toStrategyPosition } from '../../../src/positions/index.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

describe('spot fees in the base asset', () => {
  it('a buy then a sell of position().netQuantity (to the volume precision) closes the position with no refusal, leaving only dust', async () => {
    const seen: StrategyPosition[] = [];
    let step = 0;
    const roundTrip = defineStrategy({
      apiVersion: 2,
      name: 'roundtrip',
      params: z.object({}),
      create: (ctx) => ({
        onFill() {
          seen.push(ctx.position('BTCUSDT'));
        },
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last) return;
          const p = ctx.position('BTCUSDT');
          if (step === 0) {
            step++;
            ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d('1.002')), 2) });
          } else if (step === 1 && dec.isPositive(p.quantity) && dec.isPositive(ctx.balance('BTC').free)) {
            // Once an account read after the fill shows the BTC (risk judges a sell by it).
            step++;
            // What the fills left held, down to the symbol's volume precision (the rest is dust).
            ctx.place({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', volume: dec.truncate(p.netQuantity, ctx.instrument('BTCUSDT')!.quantityPrecision), price: dec.truncate(dec.mul(last, d('0.998')), 2) });
          }
        },
      }),
    });
    running = await engineApp(
      `
mode: paper
sim: { balances: { USDT: "100000", BTC: "0" }, fees: { maker: "0.002", taker: "0.002" } }
engine: { marketDataEveryMs: 100, reconcileEveryMs: 500, summaryEveryMs: 600000 }
strategies:
  - { id: roundtrip, use: inline:roundtrip, symbols: [BTCUSDT], everyMs: 250 }
`,
      [loaded('roundtrip', roundTrip, { everyMs: 250 })],
    );
    const { app, clock, sim } = running;
    void app.start();
    await runUntil(clock, SIM_START + 10_000);
    // After the buy: 0.001 bought, 0.000002 BTC of it taken as the fee.
    expect([seen[0]!.quantity, seen[0]!.otherFees, seen[0]!.netQuantity]).toEqual(['0.001', { BTC: '0.000002' }, '0.000998']);
    const orders = app.journal.orders({}).map((o) => [o.side, o.volume, o.status]);
    expect(orders).toEqual([
      ['BUY', '0.001', 'filled'],
      ['SELL', '0.00099', 'filled'],
    ]);
    // Left: the dust below the volume precision. Selling position().quantity (0.001) is refused for want of the fee.
    expect(sim.balances().find((b) => b.asset === 'BTC')).toMatchObject({ free: '0.000008', locked: '0' });
  });

  it('netQuantity is quantity less the base asset\'s fees on spot, and quantity on futures', () => {
    const spot = Object.assign(emptyEntry('spot', 'BTCUSDT'), { quantity: d('0.5'), otherFees: { BTC: d('0.001'), BNB: d('0.2') } });
    expect(toStrategyPosition(spot, 'BTC')).toMatchObject({ quantity: '0.5', netQuantity: '0.499', otherFees: { BTC: '0.001', BNB: '0.2' } });
    const futures = Object.assign(emptyEntry('futures', 'E-BTC-USDT'), { quantity: d('3'), otherFees: { BTC: d('1') } });
    expect(toStrategyPosition(futures, 'BTC').netQuantity).toBe('3');
  });
});
