// Market data through the whole engine over the in-process simulator on a manual clock (the
// backtest profile): what a strategy hears of klines and trades, checked against what the
// simulated venue itself holds at the end.
import { afterEach, describe, expect, it } from 'vitest';
import type { Candle, MarketEvent, MarketSubscription } from '../../../src/strategy/api.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

const yaml = (sim: string) => `
mode: paper
sim: ${sim}
engine:
  marketDataEveryMs: 250
  reconcileEveryMs: 1000
  summaryEveryMs: 600000
`;

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

/** A strategy that keeps every market event it hears; with `hold`, its first one waits for `release()`. */
function listener(subscriptions: MarketSubscription[], hold = false) {
  const heard: MarketEvent[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'listener',
    params: z.object({}),
    subscribe: () => subscriptions,
    create: () => ({
      async onMarketData(e) {
        heard.push(e);
        if (hold && heard.length === 1) await held;
      },
    }),
  });
  return { definition, heard, release };
}

/** The simulator's own 1-minute candles of BTCUSDT, as its klines route gives them. */
function venueCandles(app: EngineApp): Map<number, Omit<Candle, 'closed'>> {
  const m = app.sim.markets.get('BTCUSDT')!;
  const out = new Map<number, Omit<Candle, 'closed'>>();
  for (const c of m.klines((t) => Math.floor(t / 60_000) * 60_000, { limit: 300 })) out.set(c.idx, { openTime: c.idx, open: m.price(c.open), high: m.price(c.high), low: m.price(c.low), close: m.price(c.close), vol: m.qty(c.lots) });
  return out;
}

describe('klines from the simulator', () => {
  for (const skew of [-3000, 0, 3000]) {
    it(`with the venue clock ${skew} ms from ours, every candle a strategy hears closed has the venue's final values, and closes once`, async () => {
      const l = listener([{ kind: 'klines', interval: '1min', limit: 10 }]);
      running = await engineApp(yaml(`{ seed: 3, faults: { clockSkewMs: ${skew} } }`), [loaded('listener', l.definition)]);
      const { app, clock } = running;
      void app.start();
      await runUntil(clock, SIM_START + 6 * 60_000 + 30_000);
      const firstClosed = new Map<number, Candle>();
      for (const e of l.heard) {
        if (e.kind !== 'klines') continue;
        for (const c of e.klines) {
          const first = firstClosed.get(c.openTime);
          if (c.closed && !first) firstClosed.set(c.openTime, c);
          // Once closed, the same values in every later event.
          else if (first) expect(c).toEqual(first);
        }
      }
      const venue = venueCandles(running);
      // The candles of the six minutes run closed, each with the values the venue ended with.
      expect(firstClosed.size).toBeGreaterThanOrEqual(6);
      for (const [openTime, c] of firstClosed) expect({ ...c, closed: undefined }).toEqual({ ...venue.get(openTime), closed: undefined });
    });
  }
});

/** The simulator's public trades of BTCUSDT, oldest first, as its trades route gives them. */
function venueTrades(app: EngineApp): string[] {
  const m = app.sim.markets.get('BTCUSDT')!;
  return m
    .recentTrades(1000)
    .reverse()
    .map((t) => `${t.at} ${m.price(t.priceTicks)} ${m.qty(t.lots)} ${t.side}`);
}

const heardTrades = (heard: readonly MarketEvent[]) => heard.flatMap((e) => (e.kind === 'trades' ? e.trades.map((t) => `${t.time} ${t.price} ${t.qty} ${t.side}`) : []));

describe('trades from the simulator', () => {
  it('a strategy hears every public trade once, in the order the venue made them, though each poll reads pages that overlap', async () => {
    const l = listener([{ kind: 'trades', limit: 50 }]);
    running = await engineApp(yaml('{ seed: 5 }'), [loaded('listener', l.definition)]);
    const { app, clock } = running;
    void app.start();
    await runUntil(clock, SIM_START + 120_000);
    const heard = heardTrades(l.heard);
    const venue = venueTrades(running);
    expect(heard.length).toBeGreaterThan(100);
    // Polls 4 a second, 50 a page: each trade was in many pages, and is heard once.
    expect(heard).toEqual(venue);
    expect(l.heard.some((e) => e.kind === 'trades' && e.gap)).toBe(false);
  });

  it('a strategy that falls behind hears every trade once: the polls that came meanwhile wait joined in one event', async () => {
    const l = listener([{ kind: 'trades', limit: 50 }], true);
    running = await engineApp(yaml('{ seed: 5 }'), [loaded('listener', l.definition)]);
    const { app, clock } = running;
    void app.start();
    // Its first handler takes 5 s (the deadline is 10 s): twenty polls come meanwhile.
    await runUntil(clock, SIM_START + 5_000);
    expect(l.heard).toHaveLength(1);
    l.release();
    await runUntil(clock, SIM_START + 60_000);
    expect(heardTrades(l.heard)).toEqual(venueTrades(running));
    // The second event holds what those polls found.
    const second = l.heard[1]!;
    expect(second.kind === 'trades' && new Set(second.trades.map((t) => t.time)).size).toBeGreaterThan(3);
  });

  it('a page smaller than the trades between two polls: the event says a gap may be there, and no trade is heard twice', async () => {
    const l = listener([{ kind: 'trades', limit: 2, everyMs: 5000 }]);
    running = await engineApp(yaml('{ seed: 5 }'), [loaded('listener', l.definition)]);
    const { app, clock } = running;
    void app.start();
    await runUntil(clock, SIM_START + 60_000);
    const heard = heardTrades(l.heard);
    expect(new Set(heard).size).toBe(heard.length);
    const venue = venueTrades(running);
    // What is heard is the venue's trades, in order, with some missing.
    let at = 0;
    for (const t of heard) {
      at = venue.indexOf(t, at) + 1;
      expect(at).toBeGreaterThan(0);
    }
    expect(heard.length).toBeLessThan(venue.length - 10);
    expect(l.heard.filter((e) => e.kind === 'trades' && e.gap).length).toBeGreaterThan(3);
  });
});
