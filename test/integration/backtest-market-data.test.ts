// What a strategy hears of market data in a backtest of a recorded tape: the tape drives the
// simulator's book, prints and candles, and the strategy polls the simulator as it would a live
// venue, through the same market-data poller, so it hears the same kind of events as live.
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { defineStrategy, z, type Candle, type MarketEvent } from '../../src/strategy/api.js';
import { readTape } from '../../src/tape/index.js';
import { loaded } from '../fixtures/engine-parts.js';

const SAMPLE = join(resolve(import.meta.dirname, '../..'), 'backtest/tapes/sample.jsonl.gz');

it('trades: each print of the tape-driven simulator is heard once, oldest first, though every poll reads an overlapping page', async () => {
  const heard: MarketEvent[] = [];
  const listener = defineStrategy({
    apiVersion: 2,
    name: 'listener',
    params: z.object({}),
    subscribe: () => [{ kind: 'trades', limit: 100 }],
    create: () => ({ onMarketData: (e) => void heard.push(e) }),
  });
  const { config } = await parseConfig('mode: paper\nsim: { seed: 3 }\n', { env: {} });
  const { sim } = await runBacktest({ config, strategies: [loaded('listener', listener, { everyMs: 1000 })], log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), tape: await readTape(SAMPLE), tapeName: 'sample' });
  const trades = heard.flatMap((e) => (e.kind === 'trades' ? e.trades.map((t) => `${t.time} ${t.price} ${t.qty} ${t.side}`) : []));
  const m = sim.markets.get('BTCUSDT')!;
  // The venue's last 1000 prints, oldest first, as its trades route lists them.
  const venue = m
    .recentTrades(1000)
    .reverse()
    .map((t) => `${t.at} ${m.price(t.priceTicks)} ${m.qty(t.lots)} ${t.side}`);
  expect(venue).toHaveLength(1000);
  expect(trades.length).toBeGreaterThan(2000);
  // All but those printed after the last poll (the run ends with the tape), heard in order.
  const timeOf = (t: string) => Number(t.split(' ')[0]);
  const polledTo = timeOf(trades.at(-1)!);
  const upTo = venue.filter((t) => timeOf(t) <= polledTo).length;
  expect(venue.length - upTo).toBeLessThan(10);
  expect(trades.slice(-upTo)).toEqual(venue.slice(0, upTo));
  // A page of 100 a second holds every trade of the sample's market between two polls.
  expect(heard.filter((e) => e.kind === 'trades' && e.gap)).toEqual([]);
}, 60_000);

it('klines with the venue clock 3 s behind ours: each candle a strategy hears closed has the values the venue ended it with', async () => {
  const firstClosed = new Map<number, Candle>();
  const changed: string[] = [];
  const listener = defineStrategy({
    apiVersion: 2,
    name: 'listener',
    params: z.object({}),
    subscribe: () => [{ kind: 'klines', interval: '1min', limit: 100 }],
    create: () => ({
      onMarketData(e) {
        if (e.kind !== 'klines') return;
        for (const c of e.klines) {
          const first = firstClosed.get(c.openTime);
          if (!first && c.closed) firstClosed.set(c.openTime, c);
          else if (first && JSON.stringify(first) !== JSON.stringify(c)) changed.push(`${c.openTime}`);
        }
      },
    }),
  });
  const { config } = await parseConfig('mode: paper\nsim: { seed: 3, faults: { clockSkewMs: -3000 } }\n', { env: {} });
  const { sim } = await runBacktest({ config, strategies: [loaded('listener', listener, { everyMs: 1000 })], log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), tape: await readTape(SAMPLE), tapeName: 'sample' });
  const m = sim.markets.get('BTCUSDT')!;
  const venue = new Map(m.klines((t) => Math.floor(t / 60_000) * 60_000, { limit: 300 }).map((c) => [c.idx, { openTime: c.idx, open: m.price(c.open), high: m.price(c.high), low: m.price(c.low), close: m.price(c.close), vol: m.qty(c.lots), closed: true }]));
  // The sample's 30 minutes: every minute but the last closed.
  expect(firstClosed.size).toBeGreaterThanOrEqual(29);
  expect(changed).toEqual([]);
  for (const [openTime, c] of firstClosed) expect(c).toEqual(venue.get(openTime));
}, 60_000);
