// Futures klines through the whole engine (the backtest profile: the in-process simulator on a
// manual clock): a futures strategy's klines warm-up is met from the contract's candles, then
// ctx.klines grows a closed candle a minute and ctx.indicator is fed from them, as on spot.
import { afterEach, describe, expect, it } from 'vitest';
import { SMA } from '../../../src/strategy/indicators.js';
import { defineStrategy, z, type Candle } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

const yaml = `
mode: paper
engine:
  marketDataEveryMs: 250
  reconcileEveryMs: 1000
  summaryEveryMs: 600000
  shutdown: { cancelOpenOrders: false }
`;
const PERP = 'E-BTC-USDT';

let running: EngineApp | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
});

function watcher() {
  const seen = { atStart: undefined as Candle[] | undefined, newestClosed: [] as number[], smaFed: [] as Array<{ sma: number | undefined; last3: string[] }> };
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'fwatch',
    params: z.object({}),
    subscribe: () => [{ kind: 'klines', interval: '1min', history: 5 }],
    create(ctx) {
      const sma = ctx.indicator(PERP, '1min', new SMA(3));
      const closed = () => (ctx.klines(PERP, '1min') ?? []).filter((c) => c.closed);
      return {
        onStart() {
          seen.atStart = closed();
        },
        onMarketData(e) {
          if (e.kind !== 'klines') return;
          seen.newestClosed.push(closed().at(-1)!.openTime);
          seen.smaFed.push({ sma: sma.isStable ? Number(sma.getResult()) : undefined, last3: closed().slice(-3).map((c) => c.close) });
        },
      };
    },
  });
  return { definition, seen };
}

describe('futures klines in the engine', () => {
  it('a futures strategy starts with its klines history, sees ctx.klines grow and its indicator fed from the contract\'s candles', async () => {
    const w = watcher();
    running = await engineApp(yaml, [loaded('fwatch', w.definition, { market: 'futures', symbols: [PERP] })]);
    const { app, clock, sim } = running;
    // The venue's past, as paper mode and a live venue have it: the warm-up is met at once.
    sim.prehistory(30 * 60_000);
    void app.start();
    await runUntil(clock, SIM_START + 2_000);
    expect(app.engine.hosts[0]!.enabled).toBe(true);
    const atStart = w.seen.atStart!;
    expect(atStart.length).toBeGreaterThanOrEqual(5);
    for (const [i, c] of atStart.entries()) if (i > 0) expect(c.openTime).toBe(atStart[i - 1]!.openTime + 60_000);
    // The contract's own candles, as the simulator's futures klines route serves them.
    const m = sim.markets.get(PERP)!;
    const own = new Map(m.klines((t) => Math.floor(t / 60_000) * 60_000, { limit: 300 }).map((c) => [c.idx, m.price(c.close)]));
    for (const c of atStart) expect(c.close).toBe(own.get(c.openTime));
    expect(sim.arrivals().filter((a) => a.endpoint === 'futures.klines' && a.status === 200).length).toBeGreaterThan(0);
    expect(sim.arrivals().some((a) => a.endpoint === 'spot.klines')).toBe(false);

    await runUntil(clock, SIM_START + 3 * 60_000 + 5_000);
    // Three more minutes closed: ctx.klines gained each (a page of the newest, oldest first), and
    // the SMA(3) was fed each closed candle (stable from the start: 5 closed candles).
    const newest = w.seen.newestClosed;
    expect(newest.at(-1)! - atStart.at(-1)!.openTime).toBe(3 * 60_000);
    for (const [i, t] of newest.entries()) if (i > 0) expect([0, 60_000]).toContain(t - newest[i - 1]!);
    expect(w.seen.smaFed.length).toBeGreaterThanOrEqual(3);
    for (const { sma, last3 } of w.seen.smaFed) expect(sma).toBeCloseTo(last3.reduce((a, c) => a + Number(c), 0) / 3, 6);
  });
});
