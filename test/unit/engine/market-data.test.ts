// MarketDataPoller, mergeFeeds and recordingFeeds against a hand-written MarketReader.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { Depth, Kline, KlineInterval, PublicTrade, Ticker } from '../../../src/core/market.js';
import type { MarketReader } from '../../../src/core/ports.js';
import type { Market } from '../../../src/core/types.js';
import { CLOSE_GRACE_MS, closesAt } from '../../../src/engine/candles.js';
import { feedKey, MarketDataPoller, mergeFeeds, recordingFeeds, type Feed } from '../../../src/engine/market-data.js';
import type { MarketEvent } from '../../../src/strategy/api.js';
import { MemoryLog } from '../../fixtures/engine-parts.js';

const ticker = (last: string): Ticker => ({ high: d('0'), low: d('0'), last: d(last), vol: d('0'), buy: d('0'), sell: d('0'), rose: d('0'), time: 0 });
const trade = (price: string, time: number): PublicTrade => ({ price: d(price), qty: d('1'), time, side: 'BUY' });
const kline = (close: string, openTime: number): Kline => ({ openTime, open: d('1'), high: d('1'), low: d('1'), close: d(close), vol: d('1') });
const depth = (bid: string, ask: string): Depth => ({ time: 0, bids: [[d(bid), d('1')]], asks: [[d(ask), d('1')]] });

type Answer<T> = T | Error;

/** A reader answering from tables keyed by symbol; every call is recorded as text. */
class TableReader implements MarketReader {
  readonly calls: string[] = [];
  tickers = new Map<string, Answer<Ticker>>();
  depths = new Map<string, Answer<Depth>>();
  tradeLists = new Map<string, Answer<PublicTrade[]>>();
  klineLists = new Map<string, Answer<Kline[]>>();

  constructor(readonly market: Market) {}

  instruments(): Promise<never> {
    return Promise.reject(new Error('not asked here'));
  }
  ticker(symbol: string): Promise<Ticker> {
    this.calls.push(`ticker ${symbol}`);
    return this.answer(this.tickers, symbol);
  }
  depth(symbol: string, limit?: number): Promise<Depth> {
    this.calls.push(`depth ${symbol} ${limit}`);
    return this.answer(this.depths, symbol);
  }
  trades(symbol: string, limit?: number): Promise<PublicTrade[]> {
    this.calls.push(`trades ${symbol} ${limit}`);
    return this.answer(this.tradeLists, symbol);
  }
  klines(symbol: string, interval: KlineInterval, limit?: number): Promise<Kline[]> {
    this.calls.push(`klines ${symbol} ${interval} ${limit}`);
    return this.answer(this.klineLists, symbol);
  }
  private answer<T>(table: Map<string, Answer<T>>, symbol: string): Promise<T> {
    const a = table.get(symbol);
    if (a === undefined) return Promise.reject(new Error(`no answer for ${symbol}`));
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
  }
}

/** `venueTime`: the venue clock's floor the poller reads (undefined: not measured). */
function rig(venueTime: () => number | undefined = () => 0, now = { ms: 0 }) {
  const spot = new TableReader('spot');
  const futures = new TableReader('futures');
  const log = new MemoryLog();
  const poller = new MarketDataPoller({ spot, futures }, log, venueTime, () => now.ms);
  const delivered: Array<[string, MarketEvent]> = [];
  const poll = (feeds: Feed[]) => poller.poll(feeds, async (feed, event) => void delivered.push([feedKey(feed), event]));
  return { spot, futures, log, poller, delivered, poll };
}

const feed = (symbol: string, subscription: Feed['subscription'], market: Market = 'spot'): Feed => ({ market, symbol, subscription });

describe('MarketDataPoller: last prices', () => {
  it('a ticker gives its last price', async () => {
    const r = rig();
    r.spot.tickers.set('BTCUSDT', ticker('20000.5'));
    await r.poll([feed('BTCUSDT', { kind: 'ticker' })]);
    expect(r.poller.lastPrice('spot', 'BTCUSDT')).toBe('20000.5');
    expect(r.delivered).toEqual([['spot:BTCUSDT:ticker:', { kind: 'ticker', symbol: 'BTCUSDT', ticker: ticker('20000.5') }]]);
  });

  it('a price is dated when read; a failing read leaves the price and its date as they were (exits judge only fresh ones)', async () => {
    const now = { ms: 5000 };
    const r = rig(() => 0, now);
    expect(r.poller.lastPriceAt('spot', 'BTCUSDT')).toBeUndefined();
    r.spot.tickers.set('BTCUSDT', ticker('20000.5'));
    await r.poll([feed('BTCUSDT', { kind: 'ticker' })]);
    expect(r.poller.lastPriceAt('spot', 'BTCUSDT')).toBe(5000);
    now.ms = 9000;
    r.spot.tickers.set('BTCUSDT', new Error('spot.ticker: 503 service unavailable'));
    await r.poll([feed('BTCUSDT', { kind: 'ticker' })]);
    expect([r.poller.lastPrice('spot', 'BTCUSDT'), r.poller.lastPriceAt('spot', 'BTCUSDT')]).toEqual(['20000.5', 5000]);
    r.spot.tickers.set('BTCUSDT', ticker('20000.5'));
    await r.poll([feed('BTCUSDT', { kind: 'ticker' })]);
    expect(r.poller.lastPriceAt('spot', 'BTCUSDT')).toBe(9000);
  });

  it('trades give the price of the latest by time, whatever order they come in', async () => {
    const r = rig();
    r.spot.tradeLists.set('BTCUSDT', [trade('101', 2), trade('103', 3), trade('100', 1)]);
    await r.poll([feed('BTCUSDT', { kind: 'trades', limit: 50 })]);
    expect(r.poller.lastPrice('spot', 'BTCUSDT')).toBe('103');
    expect(r.spot.calls).toEqual(['trades BTCUSDT 50']);
  });

  it('klines give the close of the latest candle by open time', async () => {
    const r = rig();
    r.spot.klineLists.set('BTCUSDT', [kline('7', 120_000), kline('9', 60_000)]);
    await r.poll([feed('BTCUSDT', { kind: 'klines', interval: '1min', limit: 2 })]);
    expect(r.poller.lastPrice('spot', 'BTCUSDT')).toBe('7');
    expect(r.spot.calls).toEqual(['klines BTCUSDT 1min 2']);
  });

  it('depth gives the mid only while no other price is known, and never overrides one', async () => {
    const r = rig();
    r.spot.depths.set('BTCUSDT', depth('99.99', '100.02'));
    await r.poll([feed('BTCUSDT', { kind: 'depth', limit: 5 })]);
    expect(r.poller.lastPrice('spot', 'BTCUSDT')).toBe('100.005');

    r.spot.tickers.set('BTCUSDT', ticker('101'));
    r.spot.depths.set('BTCUSDT', depth('200', '202'));
    await r.poll([feed('BTCUSDT', { kind: 'ticker' }), feed('BTCUSDT', { kind: 'depth', limit: 5 })]);
    expect(r.poller.lastPrice('spot', 'BTCUSDT')).toBe('101');
  });

  it('empty trades, empty klines and a one-sided book leave the price as it was', async () => {
    const r = rig();
    r.spot.tickers.set('BTCUSDT', ticker('50'));
    r.spot.tradeLists.set('BTCUSDT', []);
    r.spot.klineLists.set('BTCUSDT', []);
    r.spot.depths.set('ETHUSDT', { time: 0, bids: [[d('1'), d('1')]], asks: [] });
    await r.poll([feed('BTCUSDT', { kind: 'ticker' }), feed('BTCUSDT', { kind: 'trades' }), feed('BTCUSDT', { kind: 'klines', interval: '5min' }), feed('ETHUSDT', { kind: 'depth' })]);
    expect([...r.poller.lastPrices]).toEqual([['spot:BTCUSDT', '50']]);
    // Each event is still handed on, but klines and trades that tell nothing (none at all) are not.
    expect(r.delivered.map(([k]) => k)).toEqual(['spot:BTCUSDT:ticker:', 'spot:ETHUSDT:depth:']);
  });

  it('keeps prices per market: a futures feed reads the futures reader', async () => {
    const r = rig();
    r.spot.tickers.set('BTC', ticker('1'));
    r.futures.tickers.set('BTC', ticker('2'));
    await r.poll([feed('BTC', { kind: 'ticker' }, 'futures'), feed('BTC', { kind: 'ticker' })]);
    expect(r.poller.lastPrice('futures', 'BTC')).toBe('2');
    expect(r.poller.lastPrice('spot', 'BTC')).toBe('1');
    expect(r.futures.calls).toEqual(['ticker BTC']);
    expect(r.spot.calls).toEqual(['ticker BTC']);
    expect(r.poller.lastPrice('spot', 'ETHUSDT')).toBeUndefined();
  });
});

describe('MarketDataPoller: klines', () => {
  const kl = (openTime: number, close: string, vol = '1'): Kline => ({ openTime, open: d('1'), high: d(close), low: d('1'), close: d(close), vol: d(vol) });
  const candlesOf = (e: MarketEvent | undefined) => (e?.kind === 'klines' ? e.klines.map((c) => [c.openTime, c.close, c.closed]) : undefined);

  it('marks the newest candle forming until the venue opens a newer one, and hands klines on only when they change', async () => {
    const r = rig(() => undefined);
    const feeds = [feed('BTCUSDT', { kind: 'klines', interval: '1min' })];
    // Newest first, as some venues list them: sorted oldest first.
    r.spot.klineLists.set('BTCUSDT', [kline('11', 60_000), kline('10', 0)]);
    await r.poll(feeds);
    const first = r.delivered.at(-1)![1];
    expect(candlesOf(first)).toEqual([
      [0, '10', true],
      [60_000, '11', false],
    ]);
    expect(r.poller.klines('spot', 'BTCUSDT', '1min')).toBe(first.kind === 'klines' ? first.klines : undefined);
    // The same answer again: nothing new, nothing handed on.
    await r.poll(feeds);
    expect(r.delivered).toHaveLength(1);
    // The forming candle moved: handed on.
    r.spot.klineLists.set('BTCUSDT', [kline('12', 60_000), kline('10', 0)]);
    await r.poll(feeds);
    expect(r.delivered).toHaveLength(2);
    // The venue opened the next candle: the one before it has closed, as the venue says it.
    r.spot.klineLists.set('BTCUSDT', [kline('12.5', 60_000), kline('10', 0), kline('13', 120_000)]);
    await r.poll(feeds);
    expect(r.delivered).toHaveLength(3);
    expect(candlesOf(r.delivered.at(-1)![1])).toEqual([
      [0, '10', true],
      [60_000, '12.5', true],
      [120_000, '13', false],
    ]);
    expect(r.poller.lastPrice('spot', 'BTCUSDT')).toBe('13');
  });

  it('a venue clock behind ours: a candle whose end our clock passed is still forming, and closes with the values the venue gives it last', async () => {
    // Our clock 3 s ahead of the venue's: at our 61 s the venue is at 58 s, in the first minute.
    let ours = 61_000;
    const r = rig(() => ours - 3_000);
    const feeds = [feed('BTCUSDT', { kind: 'klines', interval: '1min' })];
    r.spot.klineLists.set('BTCUSDT', [kl(0, '10', '5')]);
    await r.poll(feeds);
    expect(candlesOf(r.delivered.at(-1)![1])).toEqual([[0, '10', false]]);
    // Trades the venue matched in its last 2 s of that minute change it.
    ours = 62_500;
    r.spot.klineLists.set('BTCUSDT', [kl(0, '10.7', '6')]);
    await r.poll(feeds);
    expect(candlesOf(r.delivered.at(-1)![1])).toEqual([[0, '10.7', false]]);
    // The venue opens the next minute: the first closes as the venue last gave it.
    ours = 63_100;
    r.spot.klineLists.set('BTCUSDT', [kl(0, '10.7', '6'), kl(60_000, '10.8')]);
    await r.poll(feeds);
    const closed = r.delivered.at(-1)![1];
    expect(closed.kind === 'klines' && closed.klines[0]).toEqual({ openTime: 0, open: '1', high: '10.7', low: '1', close: '10.7', vol: '6', closed: true });
  });

  it(`with no newer candle, the newest closes once venue time (our clock, the offset, less its error) is ${CLOSE_GRACE_MS} ms past its end; never before the venue clock is measured`, async () => {
    let venue: number | undefined;
    const r = rig(() => venue);
    const feeds = [feed('BTCUSDT', { kind: 'klines', interval: '1min' })];
    r.spot.klineLists.set('BTCUSDT', [kl(0, '10')]);
    // No measured venue clock: forming, however late.
    await r.poll(feeds);
    expect(candlesOf(r.delivered.at(-1)![1])).toEqual([[0, '10', false]]);
    // Just past its end by the venue's clock: the venue's klines may lag its matching.
    venue = 60_001;
    await r.poll(feeds);
    expect(r.delivered).toHaveLength(1);
    expect(CLOSE_GRACE_MS).toBeGreaterThanOrEqual(1000);
    venue = 60_000 + CLOSE_GRACE_MS - 1;
    await r.poll(feeds);
    expect(r.delivered).toHaveLength(1);
    venue = 60_000 + CLOSE_GRACE_MS;
    await r.poll(feeds);
    expect(candlesOf(r.delivered.at(-1)![1])).toEqual([[0, '10', true]]);
  });

  it('the venue time is read before the request: an answer that took long is judged by when it was asked', async () => {
    let venue = 60_000 + CLOSE_GRACE_MS - 1;
    const r = rig(() => venue);
    r.spot.klines = async () => {
      // The venue's clock moves on while it answers; the answer may be from before the end.
      venue += 10_000;
      return [kl(0, '10')];
    };
    await r.poll([feed('BTCUSDT', { kind: 'klines', interval: '1min' })]);
    expect(candlesOf(r.delivered.at(-1)![1])).toEqual([[0, '10', false]]);
  });

  it('a candle handed on closed never changes and never closes twice: a revision is logged and left out, an answer from before is dropped', async () => {
    const r = rig(() => undefined);
    const feeds = [feed('BTCUSDT', { kind: 'klines', interval: '1min' })];
    r.spot.klineLists.set('BTCUSDT', [kl(0, '10'), kl(60_000, '11')]);
    await r.poll(feeds);
    const handed = r.delivered.at(-1)![1];
    // The venue revises the closed candle: strategies keep what they were handed.
    r.spot.klineLists.set('BTCUSDT', [kl(0, '9.5'), kl(60_000, '11.5')]);
    await r.poll(feeds);
    const next = r.delivered.at(-1)![1];
    expect(candlesOf(next)).toEqual([
      [0, '10', true],
      [60_000, '11.5', false],
    ]);
    expect(next.kind === 'klines' && handed.kind === 'klines' && next.klines[0]).toBe(handed.kind === 'klines' && handed.klines[0]);
    expect(r.log.lines).toEqual([
      {
        level: 'warn',
        fields: { err: 'the venue changed 1 candle(s) after they were handed on closed (open time 1970-01-01T00:00:00.000Z); strategies keep the values they were handed', symbol: 'BTCUSDT', interval: '1min' },
        msg: 'klines: a closed candle changed',
      },
    ]);
    // A newer candle closes 60 000; then an answer from before it (a lagging replica) would
    // show 60 000 forming again: dropped, and the latest klines stay.
    r.spot.klineLists.set('BTCUSDT', [kl(0, '10'), kl(60_000, '11.5'), kl(120_000, '12')]);
    await r.poll(feeds);
    const latest = r.poller.klines('spot', 'BTCUSDT', '1min');
    const count = r.delivered.length;
    r.spot.klineLists.set('BTCUSDT', [kl(0, '10'), kl(60_000, '11.9')]);
    await r.poll(feeds);
    expect(r.delivered).toHaveLength(count);
    expect(r.poller.klines('spot', 'BTCUSDT', '1min')).toBe(latest);
    // Every candle closed once, with one set of values.
    const closes = new Map<number, Set<string>>();
    for (const [, e] of r.delivered) for (const c of e.kind === 'klines' ? e.klines : []) if (c.closed) closes.set(c.openTime, (closes.get(c.openTime) ?? new Set()).add(JSON.stringify(c)));
    expect([...closes].map(([t, v]) => [t, v.size])).toEqual([
      [0, 1],
      [60_000, 1],
    ]);
  });

  it('closesAt: spans by interval, a month candle at the next month (UTC)', () => {
    expect(closesAt(0, '5min')).toBe(300_000);
    expect(closesAt(0, '4h')).toBe(4 * 3_600_000);
    expect(closesAt(Date.UTC(2026, 0, 1), '1month')).toBe(Date.UTC(2026, 1, 1));
    expect(closesAt(Date.UTC(2026, 11, 1), '1month')).toBe(Date.UTC(2027, 0, 1));
  });
});

describe('MarketDataPoller: trades', () => {
  const t = (time: number, price: string, qty = '1', side: 'BUY' | 'SELL' = 'BUY'): PublicTrade => ({ price: d(price), qty: d(qty), time, side });
  const tradesOf = (e: MarketEvent) => (e.kind === 'trades' ? e.trades.map((x) => `${x.time} ${x.price} ${x.qty} ${x.side}`) : []);
  const feeds = [feed('BTCUSDT', { kind: 'trades', limit: 4 })];

  it('hands on each trade once: the first page whole, then only what is newer, oldest first; a poll with none new is no event', async () => {
    const r = rig();
    // The venue lists its latest first.
    r.spot.tradeLists.set('BTCUSDT', [t(3, '103'), t(2, '102'), t(1, '101')]);
    await r.poll(feeds);
    r.spot.tradeLists.set('BTCUSDT', [t(5, '105'), t(4, '104'), t(3, '103'), t(2, '102')]);
    await r.poll(feeds);
    await r.poll(feeds);
    r.spot.tradeLists.set('BTCUSDT', [t(6, '106'), t(5, '105'), t(4, '104'), t(3, '103')]);
    await r.poll(feeds);
    expect(r.delivered.map(([, e]) => tradesOf(e))).toEqual([['1 101 1 BUY', '2 102 1 BUY', '3 103 1 BUY'], ['4 104 1 BUY', '5 105 1 BUY'], ['6 106 1 BUY']]);
    expect(r.delivered.map(([, e]) => e.kind === 'trades' && e.gap)).toEqual([undefined, undefined, undefined]);
    expect(r.poller.lastPrice('spot', 'BTCUSDT')).toBe('106');
    // The latest event is the last poll that found trades: a strategy that starts hears it first.
    expect(tradesOf(r.poller.latest(feeds[0]!)!)).toEqual(['6 106 1 BUY']);
  });

  it('trades that look alike in one millisecond count by how many there are', async () => {
    const r = rig();
    r.spot.tradeLists.set('BTCUSDT', [t(7, '100', '2'), t(7, '100', '2'), t(6, '99')]);
    await r.poll(feeds);
    // A third like them in the same millisecond, and one of another side: both new.
    r.spot.tradeLists.set('BTCUSDT', [t(7, '100', '2', 'SELL'), t(7, '100', '2'), t(7, '100', '2'), t(7, '100', '2')]);
    await r.poll(feeds);
    // The oldest of that millisecond fell off the page: nothing new.
    r.spot.tradeLists.set('BTCUSDT', [t(7, '100', '2', 'SELL'), t(7, '100', '2'), t(7, '100', '2')]);
    await r.poll(feeds);
    // A second sell, with two of the three buys in the page: the sell is new, and the three
    // buys handed on stay counted, so a page that shows all three again adds none.
    r.spot.tradeLists.set('BTCUSDT', [t(7, '100', '2', 'SELL'), t(7, '100', '2', 'SELL'), t(7, '100', '2'), t(7, '100', '2')]);
    await r.poll(feeds);
    r.spot.tradeLists.set('BTCUSDT', [t(7, '100', '2', 'SELL'), t(7, '100', '2', 'SELL'), t(7, '100', '2'), t(7, '100', '2'), t(7, '100', '2')]);
    await r.poll(feeds);
    expect(r.delivered.map(([, e]) => tradesOf(e))).toEqual([['6 99 1 BUY', '7 100 2 BUY', '7 100 2 BUY'], ['7 100 2 BUY', '7 100 2 SELL'], ['7 100 2 SELL']]);
  });

  it('says so when a page holds none of the trades handed on before: trades between may be missing', async () => {
    const r = rig();
    r.spot.tradeLists.set('BTCUSDT', [t(2, '102'), t(1, '101')]);
    await r.poll(feeds);
    // Six trades since, the page holds four: 3 and 4 were never seen.
    r.spot.tradeLists.set('BTCUSDT', [t(8, '108'), t(7, '107'), t(6, '106'), t(5, '105')]);
    await r.poll(feeds);
    r.spot.tradeLists.set('BTCUSDT', [t(9, '109'), t(8, '108'), t(7, '107'), t(6, '106')]);
    await r.poll(feeds);
    const events = r.delivered.map(([, e]) => e);
    expect(events.map((e) => e.kind === 'trades' && e.gap)).toEqual([undefined, true, undefined]);
    expect(tradesOf(events[1]!)).toEqual(['5 105 1 BUY', '6 106 1 BUY', '7 107 1 BUY', '8 108 1 BUY']);
  });

  it('a trade older than the newest handed on is not handed on (it was, or it would come out of order); oldest-first pages read the same', async () => {
    const r = rig();
    r.spot.tradeLists.set('BTCUSDT', [t(1, '101'), t(3, '103')]);
    await r.poll(feeds);
    r.spot.tradeLists.set('BTCUSDT', [t(2, '102'), t(3, '103'), t(4, '104')]);
    await r.poll(feeds);
    expect(r.delivered.map(([, e]) => tradesOf(e))).toEqual([['1 101 1 BUY', '3 103 1 BUY'], ['4 104 1 BUY']]);
  });

  it('keeps what it handed on per feed: two symbols do not mix', async () => {
    const r = rig();
    r.spot.tradeLists.set('BTCUSDT', [t(5, '100')]);
    r.spot.tradeLists.set('ETHUSDT', [t(5, '100')]);
    await r.poll([feed('BTCUSDT', { kind: 'trades' }), feed('ETHUSDT', { kind: 'trades' })]);
    expect(r.delivered.map(([k, e]) => [k, tradesOf(e)])).toEqual([
      ['spot:BTCUSDT:trades:', ['5 100 1 BUY']],
      ['spot:ETHUSDT:trades:', ['5 100 1 BUY']],
    ]);
  });
});

describe('MarketDataPoller: a failing feed', () => {
  it('is logged and skipped; the feeds after it are polled and delivered in order', async () => {
    const r = rig();
    r.spot.tickers.set('BTCUSDT', new Error('spot.ticker: 503 service unavailable'));
    r.spot.tickers.set('ETHUSDT', ticker('3000'));
    r.spot.tradeLists.set('BTCUSDT', [trade('20001', 5)]);
    await r.poll([feed('BTCUSDT', { kind: 'ticker' }), feed('ETHUSDT', { kind: 'ticker' }), feed('BTCUSDT', { kind: 'trades', limit: 10 }), feed('XRPUSDT', { kind: 'depth', limit: 5 })]);

    expect(r.spot.calls).toEqual(['ticker BTCUSDT', 'ticker ETHUSDT', 'trades BTCUSDT 10', 'depth XRPUSDT 5']);
    expect(r.delivered.map(([k]) => k)).toEqual(['spot:ETHUSDT:ticker:', 'spot:BTCUSDT:trades:']);
    expect(Object.fromEntries(r.poller.lastPrices)).toEqual({ 'spot:ETHUSDT': '3000', 'spot:BTCUSDT': '20001' });
    expect(r.log.lines).toEqual([
      { level: 'warn', fields: { err: 'spot.ticker: 503 service unavailable', symbol: 'BTCUSDT', kind: 'ticker' }, msg: 'market data poll failed' },
      { level: 'warn', fields: { err: 'no answer for XRPUSDT', symbol: 'XRPUSDT', kind: 'depth' }, msg: 'market data poll failed' },
    ]);
  });

  it('a reader that throws a non-Error is logged by its text', async () => {
    const r = rig();
    r.spot.ticker = () => Promise.reject('venue went away');
    await r.poll([feed('BTCUSDT', { kind: 'ticker' })]);
    expect(r.log.lines.map((l) => l.fields)).toEqual([{ err: 'venue went away', symbol: 'BTCUSDT', kind: 'ticker' }]);
    expect(r.delivered).toEqual([]);
  });
});

/** Merged feeds without the period each carries (tested on its own below). */
const merge = (feeds: Feed[]) =>
  mergeFeeds(feeds, 1000).map((f) => {
    const { everyMs, ...subscription } = f.subscription;
    expect(everyMs).toBe(1000);
    return { ...f, subscription } as Feed;
  });

describe('mergeFeeds', () => {
  it('polls a merged feed at the shortest period any subscription asked for, else the default', () => {
    const merged = mergeFeeds([feed('BTCUSDT', { kind: 'depth', limit: 5, everyMs: 250 }), feed('BTCUSDT', { kind: 'depth', limit: 20 }), feed('BTCUSDT', { kind: 'ticker' }), feed('BTCUSDT', { kind: 'ticker', everyMs: 5000 })], 1000);
    expect(merged.map((f) => [f.subscription.kind, 'limit' in f.subscription ? f.subscription.limit : undefined, f.subscription.everyMs])).toEqual([
      ['depth', 20, 250],
      ['ticker', undefined, 1000],
    ]);
  });

  it('keeps one feed per market, symbol, kind (and kline interval), with the largest limit asked, in first-seen order', () => {
    const merged = merge([
      feed('BTCUSDT', { kind: 'depth', limit: 5 }),
      feed('BTCUSDT', { kind: 'ticker' }),
      feed('BTCUSDT', { kind: 'depth', limit: 20 }),
      feed('BTCUSDT', { kind: 'klines', interval: '1min', limit: 10 }),
      feed('BTCUSDT', { kind: 'klines', interval: '5min' }),
      feed('BTCUSDT', { kind: 'klines', interval: '1min', limit: 3 }),
      feed('BTCUSDT', { kind: 'ticker' }),
      feed('BTCUSDT', { kind: 'depth', limit: 10 }),
      feed('BTCUSDT', { kind: 'ticker' }, 'futures'),
      feed('ETHUSDT', { kind: 'trades', limit: 7 }),
    ]);
    expect(merged).toEqual([
      feed('BTCUSDT', { kind: 'depth', limit: 20 }),
      feed('BTCUSDT', { kind: 'ticker' }),
      feed('BTCUSDT', { kind: 'klines', interval: '1min', limit: 10 }),
      feed('BTCUSDT', { kind: 'klines', interval: '5min' }),
      feed('BTCUSDT', { kind: 'ticker' }, 'futures'),
      feed('ETHUSDT', { kind: 'trades', limit: 7 }),
    ]);
  });

  it('no limit asks for the venue default page of 100: it beats a smaller limit and loses to a larger one', () => {
    expect(merge([feed('BTCUSDT', { kind: 'depth' }), feed('BTCUSDT', { kind: 'depth', limit: 5 })])).toEqual([feed('BTCUSDT', { kind: 'depth' })]);
    expect(merge([feed('BTCUSDT', { kind: 'trades', limit: 5 }), feed('BTCUSDT', { kind: 'trades' })])).toEqual([feed('BTCUSDT', { kind: 'trades' })]);
    expect(merge([feed('BTCUSDT', { kind: 'trades' }), feed('BTCUSDT', { kind: 'trades', limit: 500 })])).toEqual([feed('BTCUSDT', { kind: 'trades', limit: 500 })]);
  });

  it('names feeds by market, symbol, kind and interval', () => {
    expect(feedKey(feed('BTCUSDT', { kind: 'klines', interval: '4h', limit: 1 }, 'futures'))).toBe('futures:BTCUSDT:klines:4h');
    expect(feedKey(feed('BTCUSDT', { kind: 'depth', limit: 1 }))).toBe('spot:BTCUSDT:depth:');
  });
});

describe('recordingFeeds', () => {
  it('asks depth 20, trades 100 and the ticker of a spot symbol; depth and ticker of a futures contract (no public trades there)', () => {
    expect(
      recordingFeeds([
        { market: 'spot', symbol: 'BTCUSDT' },
        { market: 'futures', symbol: 'E-BTC-USDT' },
      ]),
    ).toEqual([
      feed('BTCUSDT', { kind: 'depth', limit: 20 }),
      feed('BTCUSDT', { kind: 'trades', limit: 100 }),
      feed('BTCUSDT', { kind: 'ticker' }),
      feed('E-BTC-USDT', { kind: 'depth', limit: 20 }, 'futures'),
      feed('E-BTC-USDT', { kind: 'ticker' }, 'futures'),
    ]);
    expect(recordingFeeds([])).toEqual([]);
  });
});
