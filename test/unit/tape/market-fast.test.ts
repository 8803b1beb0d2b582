// The fast paths of tape market data give exactly what the plain ones give: the decoder (plain
// decimals read directly, overlapping trade polls parsed only where new) against the original
// algorithm kept here as the oracle, the streamed events against marketEvents(), and tape
// events applied through InstrumentMarket.applyEvent against SimExchange.applyMarketEvent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { decodeResponse } from '../../../src/exchange/codec.js';
import { parseJsonLossless } from '../../../src/exchange/json.js';
import { SimExchange, type RecordedMarketEvent } from '../../../src/sim/index.js';
import { marketEvents, streamMarketEvents, type TapeCall, type TapeMarketEvent } from '../../../src/tape/index.js';
import { call, T0 } from './helpers.js';

/** marketEvents as first written: every answer parsed and decoded whole, every trade remembered. */
function oracle(calls: TapeCall[]): TapeMarketEvent[] {
  const ordered = [...calls].sort((a, b) => a.at + a.ms - (b.at + b.ms) || a.seq - b.seq);
  const ids = new Set<string>();
  const counts = new Map<string, number>();
  const out: TapeMarketEvent[] = [];
  for (const c of ordered) {
    if (!('response' in c) || c.response.status !== 200) continue;
    const symbol = new URLSearchParams(c.request.query).get('symbol')!.toUpperCase();
    let events: RecordedMarketEvent[];
    try {
      const raw = parseJsonLossless(c.response.body);
      if (c.endpoint === 'spot.depth') {
        const d = decodeResponse('spot.depth', raw);
        events = [{ type: 'book', symbol, bids: d.bids, asks: d.asks }];
      } else if (c.endpoint === 'spot.ticker') events = [{ type: 'ticker', symbol, last: decodeResponse('spot.ticker', raw).last }];
      else {
        const trades = decodeResponse('spot.trades', raw);
        const items = raw as { id?: unknown }[];
        const fresh: typeof trades = [];
        const inThis = new Map<string, number>();
        trades.forEach((t, i) => {
          const id = items[i]?.id;
          if (id !== undefined) {
            if (!ids.has(String(id))) fresh.push(t);
            ids.add(String(id));
            return;
          }
          const key = `${t.time}|${t.price}|${t.qty}`;
          const n = (inThis.get(key) ?? 0) + 1;
          inThis.set(key, n);
          if (n > (counts.get(key) ?? 0)) fresh.push(t);
        });
        for (const [key, n] of inThis) counts.set(key, Math.max(n, counts.get(key) ?? 0));
        const newestFirst = trades.length < 2 || trades[0]!.time >= trades[trades.length - 1]!.time;
        events = (newestFirst ? fresh.reverse() : fresh).sort((a, b) => a.time - b.time).map((t) => ({ type: 'trade', symbol, price: t.price, qty: t.qty, side: t.side }));
      }
    } catch {
      continue;
    }
    for (const event of events) out.push({ at: c.at + c.ms, market: c.market, event });
  }
  return out;
}

// Prices and quantities as venues write them: mostly plain, sometimes with trailing zeros,
// a JSON number, an exponent, a sign, or junk (which must drop the answer either way).
const decimal = fc.oneof(
  { weight: 40, arbitrary: fc.integer({ min: 1, max: 99_999_999 }).map((n) => String(n / 100)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 9999 }).map((n) => `${n}.10`) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 9999 }).map((n) => n / 10) },
  { weight: 1, arbitrary: fc.constantFrom('1e-5', '-2', ' 3', '0', '00.5', 'x', '12345678901234567.5') },
);
const side = fc.oneof({ weight: 20, arbitrary: fc.constantFrom('BUY', 'SELL') }, { weight: 1, arbitrary: fc.constant('sell') });
const trade = fc.record({ price: decimal, qty: decimal, side, dt: fc.constantFrom(0, 0, 1, 7), twin: fc.boolean() });

/** A venue's trade log polled with `limit`, newest first; some answers garbled or spaced, some rewrite an old trade. */
type GenTrade = typeof trade extends fc.Arbitrary<infer T> ? T : never;
function tradeTape(spec: { batches: GenTrade[][]; limit: number; ids: boolean; spaced: number[]; garbled: number[]; rewritten: number[] }): TapeCall[] {
  const log: object[] = [];
  let time = T0;
  return spec.batches.map((batch, i) => {
    for (const t of batch) {
      time += t.dt;
      const item = { ...(spec.ids ? { id: log.length + 1 } : {}), price: t.price, qty: t.qty, time, side: t.side };
      log.push(item);
      if (t.twin) log.push({ ...item, ...(spec.ids ? { id: log.length + 1 } : {}) });
    }
    const answer = log.slice(-spec.limit).reverse();
    // The oldest trade listed, written differently (or changed): its text no longer matches.
    if (spec.rewritten.includes(i) && answer.length > 1) answer[answer.length - 1] = { ...answer[answer.length - 1], qty: i % 2 ? '0.50' : '7' };
    let body = spec.spaced.includes(i) ? JSON.stringify(answer, null, 1) : JSON.stringify(answer);
    if (spec.garbled.includes(i)) body = i % 2 ? body.slice(0, -1) : body.replace('"qty"', '"qty":1,"x"');
    return call(i, 'spot', 'GET', '/sapi/v1/trades', { query: 'symbol=BTCUSDT&limit=100', at: T0 + i * 100, response: body });
  });
}

const tapeSpec = fc.record({
  batches: fc.array(fc.array(trade, { maxLength: 6 }), { minLength: 1, maxLength: 25 }),
  limit: fc.integer({ min: 1, max: 12 }),
  ids: fc.boolean(),
  spaced: fc.array(fc.nat(25), { maxLength: 3 }),
  garbled: fc.array(fc.nat(25), { maxLength: 2 }),
  rewritten: fc.array(fc.nat(25), { maxLength: 3 }),
});

describe('tape market data fast paths', () => {
  it('trades: the same events as decoding every answer whole (overlaps, twins, ids, odd decimals, broken answers)', () => {
    fc.assert(
      fc.property(tapeSpec, (spec) => {
        const calls = tradeTape(spec);
        expect(marketEvents(calls)).toEqual(oracle(calls));
      }),
      { numRuns: 300 },
    );
  });

  it('depth and ticker: the same events as the codec gives', () => {
    const level = fc.tuple(decimal, decimal);
    fc.assert(
      fc.property(fc.array(fc.record({ bids: fc.array(level, { maxLength: 4 }), asks: fc.array(level, { maxLength: 4 }), last: decimal, rose: fc.constantFrom('0', '-0.5', '+1', '', 'x') }), { maxLength: 6 }), (answers) => {
        const calls = answers.flatMap((a, i) => [
          call(2 * i, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT', response: JSON.stringify({ time: T0, bids: a.bids, asks: a.asks }) }),
          call(2 * i + 1, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT', response: JSON.stringify({ high: '2', low: '1', last: a.last, vol: '0', buy: '1', sell: '2', rose: a.rose, time: T0 }) }),
        ]);
        expect(marketEvents(calls)).toEqual(oracle(calls));
      }),
      { numRuns: 200 },
    );
  });

  it('streamed: the same events in the same order when lines come out of order within the window', async () => {
    await fc.assert(
      fc.asyncProperty(tapeSpec, fc.array(fc.nat(40), { maxLength: 30 }), async (spec, jitter) => {
        // Arrival times tie and cross (answers of one moment written in any order).
        const calls = tradeTape(spec).map((c, i) => ({ ...c, ms: 5 + (jitter[i] ?? 0) * 5 }));
        const fileOrder = [...calls].sort((a, b) => a.at + a.ms - (b.at + b.ms) || b.seq - a.seq);
        const streamed: TapeMarketEvent[] = [];
        for await (const batch of streamMarketEvents((async function* () {
          yield* fileOrder;
        })())) streamed.push(...batch);
        expect(streamed).toEqual(marketEvents(calls));
      }),
      { numRuns: 100 },
    );
  });

  it('InstrumentMarket.applyEvent leaves the simulator as applyMarketEvent does, errors included', () => {
    const event = fc.oneof(
      fc.record({ type: fc.constant('trade' as const), symbol: fc.constant('BTCUSDT'), price: decimal, qty: decimal, side: fc.constantFrom('BUY' as const, 'SELL' as const) }),
      fc.record({ type: fc.constant('ticker' as const), symbol: fc.constant('btcusdt'), last: decimal }),
      fc.record({ type: fc.constant('book' as const), symbol: fc.constant('BTCUSDT'), bids: fc.array(fc.tuple(decimal, decimal), { maxLength: 3 }), asks: fc.array(fc.tuple(decimal, decimal), { maxLength: 3 }) }),
    );
    fc.assert(
      fc.property(fc.array(event.map((e) => JSON.parse(JSON.stringify(e)) as RecordedMarketEvent), { maxLength: 12 }), (events) => {
        const a = new SimExchange({ clock: new ManualClock(T0), seed: 5 });
        const b = new SimExchange({ clock: new ManualClock(T0), seed: 5 });
        for (const e of events) {
          const viaExchange = attempt(() => a.applyMarketEvent(e));
          const viaMarket = attempt(() => {
            b.catchUp(b.now());
            b.markets.get(e.symbol.toUpperCase())!.applyEvent(e, b.now());
          });
          expect(viaMarket).toEqual(viaExchange);
        }
        const state = (s: SimExchange) => {
          const m = s.markets.get('BTCUSDT')!;
          return { bids: m.book.levels('BUY', 50), asks: m.book.levels('SELL', 50), mid: m.midTicks, last: m.lastTicks, trades: m.recentTrades(1000) };
        };
        expect(state(b)).toEqual(state(a));
      }),
      { numRuns: 300 },
    );
  });
});

function attempt(f: () => void): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}
