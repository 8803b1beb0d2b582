// A backtest takes the recording account's own resting orders out of the depth its tape
// recorded. The venue's depth does not say whose an order is: here the recording account had a
// 0.5 bid resting at the touch (29999), so each recorded book shows 1.5 there where other traders
// had 1.0. Before, the simulator took the 1.5 for other traders' size: the replayed strategy's
// bid, placed after the book, queued behind the phantom 0.5, and a recorded public sell of 1.05
// at 29999 was absorbed by other traders' 1.0 and the phantom, never reaching it. Now the book
// holds only the 1.0 and the same trade fills the strategy's bid by 0.05.
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

const dir = mkdtempSync(join(tmpdir(), 'sluice-bt-own-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOUCH_TICKS = 2999900;
/** The public sell at the touch: after the strategy's bid rested, before the next book. */
const TRADE_AT = T0 + 5000;

/**
 * Twenty seconds of BTCUSDT. The recording account placed a 0.5 bid at 29999 and its openOrders
 * read listed it; a book at 1 s (1.5 at 29999: other traders' 1.0 and the account's 0.5), a
 * public sell of 1.05 at 29999 at 5 s, books again from 10 s. `withOwn`: false leaves out the
 * account's answers (a tape recorded while nothing quoted, showing the same books).
 */
function ownTape(withOwn: boolean): string {
  const calls: TapeCall[] = [];
  let seq = 0;
  const listing = '{"symbols":[{"symbol":"btcusdt","baseAsset":"BTC","quoteAsset":"USDT","pricePrecision":2,"quantityPrecision":5}]}';
  calls.push(call(seq++, 'spot', 'GET', '/sapi/v1/symbols', { at: T0, ms: 3, response: listing }));
  if (withOwn) {
    calls.push(
      call(seq++, 'spot', 'POST', '/sapi/v1/order', {
        at: T0 + 100,
        ms: 4,
        body: '{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","volume":"0.5","price":"29999.00","newClientOrderId":"rec-1"}',
        response: '{"symbol":"BTCUSDT","orderId":"150695552314857005","orderIdString":"150695552314857005","clientOrderId":"rec-1","transactTime":"1700000000102","price":"29999","origQty":"0.5","executedQty":"0","status":"NEW","type":"LIMIT","side":"BUY"}',
      }),
      call(seq++, 'spot', 'GET', '/sapi/v1/openOrders', {
        query: 'symbol=BTCUSDT',
        at: T0 + 300,
        ms: 4,
        response: '[{"orderId":"150695552314857005","orderIdString":"150695552314857005","symbol":"BTCUSDT","price":"29999","origQty":"0.5","executedQty":"0","avgPrice":"0","status":"NEW","type":"LIMIT","side":"BUY","time":1700000000102}]',
      }),
    );
  }
  const book = (at: number) => call(seq++, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT&limit=20', at, ms: 2, response: `{"time":${at},"bids":[["29999","1.5"],["29998","1"]],"asks":[["30001","1"]]}` });
  calls.push(book(T0 + 1000));
  calls.push(call(seq++, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=BTCUSDT&limit=100', at: TRADE_AT, ms: 2, response: JSON.stringify([{ id: 1, price: '29999', qty: '1.05', time: TRADE_AT, side: 'SELL' }]) }));
  for (let s = 10; s <= 20; s++) calls.push(book(T0 + s * 1000));
  const path = join(dir, `own-${withOwn}.jsonl`);
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
  const result = await runBacktest({ config, strategies: [loaded('bidder', probe.definition, { everyMs: 100 })], log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), tapeName: 'own', ...source });
  const book = result.sim.markets.get('BTCUSDT')!.book;
  // Lots of other traders at the touch, as the last recorded book left them.
  const others = book.bids.filter((o) => o.priceTicks === TOUCH_TICKS && o.owner === OTHERS).reduce((n, o) => n + o.lots, 0);
  return { fills: probe.fills, others, report: result.report };
}

describe('a backtest of a tape recorded while the account quoted a bid at the touch', () => {
  // In this order: the last run reads the event cache the in-process decoding wrote.
  it.each<How>(['in memory', 'decoded in process', 'decoded on a thread', 'from the event cache'])('the book holds only other traders’ size, and a recorded sell at the touch fills the strategy’s bid (%s)', async (how) => {
    const tapePath = ownTape(true);
    if (how === 'from the event cache') expect(readdirSync(join(dir, 'cache')).filter((n) => n.endsWith('.events'))).toHaveLength(1);
    const { fills, others } = await run(tapePath, how);
    // 1.0 (other traders), not 1.5: the recording account's 0.5 is taken out.
    expect(others).toBe(100_000);
    // The sell of 1.05 took other traders' 1.0 ahead of the bid, then 0.05 of the bid.
    expect(fills.map((f) => [f.side, f.price, f.volume, f.isMaker, f.time])).toEqual([['BUY', '29999', '0.05', true, TRADE_AT + 2]]);
  }, 60_000);

  it('is what the same books give when the recording placed nothing', async () => {
    const own = await run(ownTape(true), 'in memory');
    const none = await run(ownTape(false), 'in memory');
    // Without the account's answers the tape's 1.5 is other traders' size: the sell stops before the bid.
    expect(none.others).toBe(150_000);
    expect(none.fills).toEqual([]);
    expect(own.fills).toHaveLength(1);
  }, 60_000);
});
