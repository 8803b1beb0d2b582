// A backtest keeps a resting order's place in the queue across its tape's books. A recorded
// depth says how much other traders show at a price, not in which order; before, each book put
// the strategy's resting order ahead of all the size shown at its price, so a recorded sell of
// 0.5 at the touch filled a bid that had joined behind 1.0 of other traders' size. Now the 1.0
// that was ahead stays ahead, shrinking by the trades that take it: the first sell takes 0.5
// of it, and the bid fills only when a second sell of 0.6 gets through the other 0.5.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { OTHERS } from '../../src/sim/others.js';
import { defineStrategy, z, type Fill } from '../../src/strategy/api.js';
import { TAPE_VERSION, type TapeCall } from '../../src/tape/index.js';
import { loaded } from '../fixtures/engine-parts.js';
import { call, T0 } from '../unit/tape/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-bt-queue-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOUCH_TICKS = 2999900;
const FIRST_SELL = T0 + 5000;
const SECOND_SELL = T0 + 8000;

/** Twelve seconds of BTCUSDT: a book a second (1.0 of other traders at 29999), a public sell of 0.5 at 29999 at 5.5 s and of 0.6 at 8.5 s. */
function queueTape(): string {
  const calls: TapeCall[] = [];
  let seq = 0;
  const listing = '{"symbols":[{"symbol":"btcusdt","baseAsset":"BTC","quoteAsset":"USDT","pricePrecision":2,"quantityPrecision":5}]}';
  calls.push(call(seq++, 'spot', 'GET', '/sapi/v1/symbols', { at: T0, ms: 3, response: listing }));
  for (let s = 1; s <= 12; s++) {
    const at = T0 + s * 1000;
    calls.push(call(seq++, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT&limit=20', at, ms: 2, response: `{"time":${at},"bids":[["29999","1"],["29998","1"]],"asks":[["30001","1"]]}` }));
  }
  const sell = (at: number, qty: string, id: number) => call(seq++, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=BTCUSDT&limit=100', at, ms: 2, response: JSON.stringify([{ id, price: '29999', qty, time: at, side: 'SELL' }]) });
  calls.push(sell(FIRST_SELL + 500, '0.5', 1), sell(SECOND_SELL + 500, '0.6', 2));
  calls.sort((a, b) => a.at + a.ms - (b.at + b.ms) || a.seq - b.seq);
  const path = join(dir, 'queue.jsonl');
  writeFileSync(path, `${[JSON.stringify({ tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta: {} }), ...calls.map((c) => JSON.stringify(c))].join('\n')}\n`);
  return path;
}
/** Bids 0.1 at 29999 once the tape's first book is in: it joins the level behind what the book shows. */
function bidder() {
  const fills: Fill[] = [];
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'bidder',
    params: z.object({}),
    create: (ctx) => {
      let placed = false;
      return {
        onTick() {
          if (placed || ctx.now() < T0 + 1500) return;
          placed = true;
          ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.1', price: '29999' });
        },
        onFill(fill) {
          fills.push(fill);
        },
      };
    },
  });
  return { definition, fills };
}

type How = 'in memory' | 'decoded in process' | 'decoded on a thread' | 'from the event cache';

async function run(tapePath: string, how: How) {
  const { config } = await parseConfig('mode: paper\nsim: { seed: 3 }\n', { env: {} });
  const probe = bidder();
  const { readTape } = await import('../../src/tape/index.js');
  const cache = join(dir, how === 'decoded on a thread' ? 'thread-cache' : 'cache');
  const source = how === 'in memory' ? { tape: await readTape(tapePath) } : { tapePath, eventCacheDir: cache, decodeThread: how === 'decoded on a thread' };
  const result = await runBacktest({ config, strategies: [loaded('bidder', probe.definition, { everyMs: 100 })], log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), tapeName: 'queue', ...source });
  const book = result.sim.markets.get('BTCUSDT')!.book;
  // Who is at the touch at the end, in queue order.
  const queue = book.bids.filter((o) => o.priceTicks === TOUCH_TICKS).map((o) => [o.owner === OTHERS ? 'others' : 'bidder', o.lots]);
  return { fills: probe.fills, queue };
}

describe('a backtest of a tape whose books show other traders at the strategy’s price', () => {
  // In this order: the last run reads the event cache the in-process decoding wrote.
  it.each<How>(['in memory', 'decoded in process', 'decoded on a thread', 'from the event cache'])('keeps the size that was ahead of the strategy’s bid ahead of it, book after book, until trades take it (%s)', async (how) => {
    const tapePath = queueTape();
    if (how === 'from the event cache') expect(readdirSync(join(dir, 'cache')).filter((n) => n.endsWith('.events'))).toHaveLength(1);
    const { fills, queue } = await run(tapePath, how);
    // The first sell took 0.5 of the 1.0 ahead; the second took the other 0.5 and 0.1 of the bid.
    expect(fills.map((f) => [f.side, f.price, f.volume, f.isMaker, f.time])).toEqual([['BUY', '29999', '0.1', true, SECOND_SELL + 502]]);
    // Afterwards nothing is ahead: the last books' 1.0 joined behind where the bid was (it has filled).
    expect(queue).toEqual([['others', 100_000]]);
  }, 60_000);
});
