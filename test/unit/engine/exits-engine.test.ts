// Protective exits through the whole engine on the in-process simulator (a manual clock): a
// strategy's `exits` close its own position once, with a MARKET order sent as its own, after its
// open orders in the symbol are cancelled; the strategy hears why; another strategy on the symbol
// keeps its position; the cooldown refuses its places; a restart keeps the trailing best.
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../../src/core/decimal.js';
import type { ClientOrderId } from '../../../src/core/ids.js';
import type { AlertKind, ExitSettings, StrategyPosition } from '../../../src/core/types.js';
import type { SimExchange } from '../../../src/sim/index.js';
import { defineStrategy, z, type OrderEvent } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

const yaml = `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 500, summaryEveryMs: 600000 }
risk: { duplicateWindowMs: 0, maxOrdersPerSecond: 100, priceBandPct: "50" }
strategies:
  - { id: holder, use: inline:holder, symbols: [BTCUSDT], everyMs: 250 }
  - { id: keeper, use: inline:keeper, symbols: [BTCUSDT], everyMs: 250 }
`;

/** The market at `price`: other participants quote a tick either side (deep), and a trade prints there. */
function priceAt(sim: SimExchange, price: string): void {
  const p = d(price);
  sim.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [[dec.sub(p, d('1')), '50']], asks: [[dec.add(p, d('1')), '50']] });
  sim.applyMarketEvent({ type: 'trade', symbol: 'BTCUSDT', price: p, qty: '0.001', side: 'SELL' });
}

/**
 * Buys `volume` once (a limit that crosses), then keeps a far SELL resting while it holds
 * something (the exit must cancel it first); `wantsMore` makes it ask for another buy on each tick.
 */
function buyer(name: string, volume: string) {
  const heard: string[] = [];
  const events: OrderEvent[] = [];
  const state = { bought: false, wantsMore: false, placed: [] as ClientOrderId[], own: undefined as (() => StrategyPosition) | undefined };
  const definition = defineStrategy({
    apiVersion: 2,
    name,
    params: z.object({}),
    create: (ctx) => {
      state.own = () => ctx.ownPosition('BTCUSDT');
      return {
        onLoad(saved) {
          state.bought = (saved as { bought: boolean }).bought;
        },
        onSave: () => ({ bought: state.bought }),
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (!last) return;
          if (!state.bought) {
            state.bought = true;
            state.placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume, price: dec.truncate(dec.mul(last, d('1.002')), 2) }));
            return;
          }
          if (state.wantsMore) {
            state.wantsMore = false;
            state.placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d('0.9')), 2) }));
            return;
          }
          const own = ctx.ownPosition('BTCUSDT');
          const selling = ctx.openOrders('BTCUSDT').some((o) => o.side === 'SELL');
          if (dec.isPositive(own.avgEntryPrice) && dec.gte(own.netQuantity, d('0.001')) && !selling) {
            state.placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', volume: '0.001', price: dec.truncate(dec.mul(last, d('1.4')), 2) }));
          }
        },
        onOrderEvent(e) {
          events.push(e);
          if (e.kind === 'exit') heard.push(`exit ${e.reason} ${e.symbol} entry ${e.entry} trigger ${e.trigger} last ${e.last} ${e.order.side} ${e.order.type} ${e.order.volume}`);
          if (e.kind === 'rejected') heard.push(`rejected ${e.reason}`);
        },
      };
    },
  });
  return { definition, heard, events, state };
}

const exits = (over: Partial<ExitSettings>): ExitSettings => Object.assign({ cooldownMs: 0 }, over);

describe('protective exits on the engine', () => {
  it('a stop-loss sells exactly the strategy\'s own position once, after cancelling its open sell; it hears why; the other strategy keeps its position; the cooldown refuses a place', async () => {
    const holder = buyer('holder', '0.002');
    const keeper = buyer('keeper', '0.003');
    const alerts: Array<[AlertKind, string]> = [];
    running = await engineApp(yaml, [loaded('holder', holder.definition, { exits: exits({ stopLossPct: d('2'), cooldownMs: 60_000 }) }), loaded('keeper', keeper.definition)], {
      alert: (kind, message) => alerts.push([kind, message]),
    });
    const { app, clock, sim, logs } = running;
    priceAt(sim, '20000');
    void app.start();
    await runUntil(clock, SIM_START + 3000);
    const holderPos = () => holder.state.own!();
    expect(holderPos().avgEntryPrice).not.toBe('0');
    const entry = holderPos().avgEntryPrice;
    const sellable = dec.truncate(holderPos().netQuantity, 5);
    // Its far sell rests (holding 0.001 of what it has).
    const restingSell = holder.state.placed[1]!;
    expect(app.journal.order(restingSell)?.status).toBe('open');
    const keeperBefore = keeper.state.own!().quantity;
    expect(keeperBefore).toBe('0.003');

    // Down 1.5%: above the stop (entry x 0.98), nothing.
    priceAt(sim, dec.truncate(dec.mul(entry, d('0.985')), 2));
    await runUntil(clock, clock.now() + 1000);
    expect(holder.heard).toEqual([]);
    // Down 3%: the stop-loss fires.
    const low = dec.truncate(dec.mul(entry, d('0.97')), 2);
    priceAt(sim, low);
    await runUntil(clock, clock.now() + 3000);

    const holderSent = sim.orderLog().filter((o) => o.clientOrderId?.startsWith('slholder'));
    expect(holderSent.map((o) => [o.side, o.type, o.volume])).toEqual([
      ['BUY', 'LIMIT', '0.002'],
      ['SELL', 'LIMIT', '0.001'],
      ['SELL', 'MARKET', sellable],
    ]);
    expect(app.journal.order(restingSell)?.status).toBe('canceled');
    const exitOrder = holderSent[2]!.clientOrderId as ClientOrderId;
    expect(app.journal.order(exitOrder)?.status).toBe('filled');
    // Its far sell cancelled, it asked for another while the exit went on: refused.
    expect(holder.heard).toEqual(['rejected exits: a stop_loss exit of BTCUSDT is under way; new orders in it are refused until it ends', `exit stop_loss BTCUSDT entry ${entry} trigger ${dec.mul(entry, d('0.98'))} last ${low} SELL MARKET ${sellable}`]);
    // Flat but for what one order cannot sell (below the step); the other strategy's position stands.
    expect(dec.lte(dec.abs(holderPos().quantity), d('0.00001'))).toBe(true);
    expect(keeper.state.own!().quantity).toBe(keeperBefore);
    expect(alerts.map(([k]) => k)).toEqual(['exit']);
    expect(logs.withMsg('exit order')).toHaveLength(1);
    expect(app.engine.exits?.counts).toEqual({ stop_loss: 1 });

    // The cooldown: a place in BTCUSDT is refused with a reason naming it.
    holder.state.wantsMore = true;
    await runUntil(clock, clock.now() + 1000);
    expect(holder.heard.at(-1)).toMatch(/^rejected exits: BTCUSDT cools down after an exit until .* \(exits\.cooldownMs 60000\)/);
    // More polls at the low price: no second exit.
    await runUntil(clock, clock.now() + 5000);
    expect(sim.orderLog().filter((o) => o.clientOrderId?.startsWith('slholder') && o.type === 'MARKET')).toHaveLength(1);
    // After the cooldown, places go again.
    await runUntil(clock, clock.now() + 60_000);
    holder.state.wantsMore = true;
    await runUntil(clock, clock.now() + 1000);
    const last = holder.state.placed.at(-1)!;
    expect(app.journal.order(last)?.status).toBe('open');
  });

  it('a strategy disabled after it bought is still guarded: its stop-loss closes its position', async () => {
    const holder = buyer('holder', '0.002');
    let ticks = 0;
    const crashing = defineStrategy({
      apiVersion: 2,
      name: 'holder',
      params: z.object({}),
      create: (ctx) => {
        const inner = holder.definition.create(ctx) as { onTick(): void };
        return {
          onTick() {
            // Buys on its first tick, then throws: disabled, holding 0.002.
            if (++ticks > 1) throw new Error('plugin bug');
            inner.onTick();
          },
        };
      },
    });
    running = await engineApp(yaml.replace(/ {2}- \{ id: keeper.*\n/, ''), [loaded('holder', crashing, { exits: exits({ stopLossPct: d('2') }) })]);
    const { app, clock, sim } = running;
    priceAt(sim, '20000');
    void app.start();
    await runUntil(clock, SIM_START + 3000);
    expect(app.engine.disabledStrategies().map((x) => x.strategy)).toEqual(['holder']);
    const own = app.engine.positions.position('spot', 'BTCUSDT');
    expect(own.quantity).toBe('0.002');
    const sellable = dec.truncate(holder.state.own!().netQuantity, 5);
    priceAt(sim, dec.truncate(dec.mul(own.avgEntryPrice, d('0.97')), 2));
    await runUntil(clock, clock.now() + 3000);
    const closes = sim.orderLog().filter((o) => o.clientOrderId?.startsWith('slholder') && o.type === 'MARKET');
    expect(closes.map((o) => [o.side, o.volume])).toEqual([['SELL', sellable]]);
    expect(app.journal.order(closes[0]!.clientOrderId as ClientOrderId)?.status).toBe('filled');
    // Flat but for what one order cannot sell (below the step).
    expect(dec.lte(app.engine.positions.position('spot', 'BTCUSDT').quantity, d('0.00001'))).toBe(true);
    expect(app.engine.exits?.counts).toEqual({ stop_loss: 1 });
  });

  it('a restart in the middle keeps the trailing best: the trailing stop fires from the high seen before it', async () => {
    const one = buyer('holder', '0.002');
    const settings = exits({ trailingStopPct: d('5') });
    const keeper1 = buyer('keeper', '0.003');
    const first = await engineApp(yaml, [loaded('holder', one.definition, { exits: settings }), loaded('keeper', keeper1.definition)]);
    priceAt(first.sim, '20000');
    void first.app.start();
    await runUntil(first.clock, SIM_START + 3000);
    const entry = one.state.own!().avgEntryPrice;
    // Up 10%: the best is 22000-odd.
    const high = dec.truncate(dec.mul(entry, d('1.1')), 2);
    priceAt(first.sim, high);
    await runUntil(first.clock, first.clock.now() + 1000);
    await drive(first.clock, first.app.stop());
    expect(one.heard).toEqual([]);

    // Second run on the same journal and venue. Down 6% from the high (still 3% above the entry):
    // from the kept best that is past the 5% trailing stop; from the entry it would not be.
    const two = buyer('holder', '0.002');
    const keeper2 = buyer('keeper', '0.003');
    running = await engineApp(yaml, [loaded('holder', two.definition, { exits: settings }), loaded('keeper', keeper2.definition)], { restartOf: first });
    const { app, clock, sim } = running;
    const drop = dec.truncate(dec.mul(high, d('0.94')), 2);
    priceAt(sim, drop);
    void app.start();
    await runUntil(clock, clock.now() + 3000);
    expect(two.heard).toEqual([`exit trailing_stop BTCUSDT entry ${entry} trigger ${dec.mul(high, d('0.95'))} last ${drop} SELL MARKET ${two.events.find((e) => e.kind === 'exit')!.order.volume}`]);
    const markets = sim.orderLog().filter((o) => o.clientOrderId?.startsWith('slholder') && o.type === 'MARKET');
    expect(markets).toHaveLength(1);
    expect(app.journal.order(markets[0]!.clientOrderId as ClientOrderId)?.status).toBe('filled');
    expect(dec.lte(dec.abs(two.state.own!().quantity), d('0.00001'))).toBe(true);
    expect(keeper2.state.own!().quantity).toBe('0.003');
  });

  it('futures: a long and a short each closed by a CLOSE of their own contracts on the right side, each once', async () => {
    const opener = (name: string, side: 'BUY' | 'SELL') => {
      const heard: string[] = [];
      let opened = false;
      const definition = defineStrategy({
        apiVersion: 2,
        name,
        params: z.object({}),
        create: (ctx) => ({
          onTick() {
            const last = ctx.lastPrice('E-BTC-USDT');
            if (!last || opened) return;
            opened = true;
            const price = side === 'BUY' ? dec.truncate(dec.mul(last, d('1.002')), 1) : dec.roundUp(dec.mul(last, d('0.998')), 1);
            ctx.place({ symbol: 'E-BTC-USDT', side, type: 'LIMIT', volume: '10', price, open: 'OPEN', positionType: 2 });
          },
          onOrderEvent(e) {
            if (e.kind === 'exit') heard.push(`${e.reason} ${e.order.side} ${e.order.open} ${e.order.positionType} ${e.order.type} ${e.order.volume}`);
          },
        }),
      });
      return { definition, heard };
    };
    const long = opener('long', 'BUY');
    const short = opener('short', 'SELL');
    const settings = exits({ stopLossPct: d('2') });
    running = await engineApp(
      `
mode: paper
engine: { marketDataEveryMs: 100, reconcileEveryMs: 500, summaryEveryMs: 600000 }
risk: { duplicateWindowMs: 0, maxOrdersPerSecond: 100, priceBandPct: "50" }
strategies:
  - { id: long, use: inline:long, market: futures, symbols: [E-BTC-USDT], everyMs: 250 }
  - { id: short, use: inline:short, market: futures, symbols: [E-BTC-USDT], everyMs: 250 }
`,
      [loaded('long', long.definition, { market: 'futures', symbols: ['E-BTC-USDT'], exits: settings }), loaded('short', short.definition, { market: 'futures', symbols: ['E-BTC-USDT'], exits: settings })],
    );
    const { app, clock, sim } = running;
    const at = (price: string) => {
      const p = d(price);
      sim.applyMarketEvent({ type: 'book', symbol: 'E-BTC-USDT', bids: [[dec.sub(p, d('0.5')), '5000']], asks: [[dec.add(p, d('0.5')), '5000']] });
      sim.applyMarketEvent({ type: 'trade', symbol: 'E-BTC-USDT', price: p, qty: '1', side: 'SELL' });
    };
    at('30000');
    void app.start();
    await runUntil(clock, SIM_START + 3000);
    const closes = () => sim.orderLog().filter((o) => o.market === 'futures' && o.open === 'CLOSE').map((o) => [o.clientOrderId?.slice(0, 7), o.side, o.volume]);
    expect(closes()).toEqual([]);
    // Down 3%: the long's stop; the short is in profit (no take-profit set).
    at('29100');
    await runUntil(clock, clock.now() + 3000);
    expect(closes()).toEqual([['sllong-', 'SELL', '10']]);
    // Up 3% over the entries: the short's stop.
    at('30900');
    await runUntil(clock, clock.now() + 3000);
    expect(closes()).toEqual([
      ['sllong-', 'SELL', '10'],
      ['slshort', 'BUY', '10'],
    ]);
    expect(long.heard).toEqual(['stop_loss SELL CLOSE 2 MARKET 10']);
    expect(short.heard).toEqual(['stop_loss BUY CLOSE 2 MARKET 10']);
    expect(app.engine.positions.position('futures', 'E-BTC-USDT').quantity).toBe('0');
  });

  it('spot, holding only what it bought: the exit waits for the account read that shows its cancelled sell released, so risk lets the close through at once', async () => {
    const holder = buyer('holder', '0.002');
    running = await engineApp(
      `
mode: paper
sim: { balances: { USDT: "100000" } }
engine: { marketDataEveryMs: 100, reconcileEveryMs: 5000, summaryEveryMs: 600000 }
risk: { duplicateWindowMs: 0, maxOrdersPerSecond: 100, priceBandPct: "50" }
strategies:
  - { id: holder, use: inline:holder, symbols: [BTCUSDT], everyMs: 250 }
`,
      [loaded('holder', holder.definition, { exits: exits({ stopLossPct: d('2') }) })],
    );
    const { app, clock, sim, logs } = running;
    priceAt(sim, '20000');
    void app.start();
    await runUntil(clock, SIM_START + 12_000);
    const entry = holder.state.own!().avgEntryPrice;
    const sellable = dec.truncate(holder.state.own!().netQuantity, 5);
    // Its far sell rests once the account read shows what it bought (earlier ones were refused for want of it).
    expect(holder.state.placed.map((id) => app.journal.order(id)!).filter((o) => o.side === 'SELL' && o.status === 'open')).toHaveLength(1);
    const since = logs.lines.length;
    // 1 s after a pass: the cancel is answered long before the next account read.
    await runUntil(clock, SIM_START + 16_000);
    priceAt(sim, dec.truncate(dec.mul(entry, d('0.97')), 2));
    await runUntil(clock, clock.now() + 6000);
    const markets = sim.orderLog().filter((o) => o.type === 'MARKET');
    expect(markets.map((o) => [o.side, o.volume])).toEqual([['SELL', sellable]]);
    expect(app.journal.orders().filter((o) => o.type === 'MARKET').map((o) => o.status)).toEqual(['filled']);
    const after = logs.lines.slice(since);
    expect(after.filter((l) => l.msg === 'intent rejected' && l.rule === 'balance')).toEqual([]);
    expect(after.filter((l) => l.msg === 'exit order ended unfilled; the exit tries again')).toEqual([]);
  });
});
