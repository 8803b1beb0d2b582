// What a strategy hears of market data in a backtest of a recorded tape: the tape drives the
// simulator's book and prints, and the strategy polls the simulator as it would a live venue,
// through the same market-data poller, so it hears the same kind of events as live.
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { defineStrategy, z, type MarketEvent } from '../../src/strategy/api.js';
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
