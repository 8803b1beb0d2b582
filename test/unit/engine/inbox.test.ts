import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { PublicTrade } from '../../../src/core/market.js';
import { Inbox, MAX_WAITING_EVENTS, type FeedEvent } from '../../../src/engine/inbox.js';
import { MAX_JOINED_TRADES } from '../../../src/engine/market-data.js';
import type { MarketEvent } from '../../../src/strategy/api.js';
import { MemoryLog, settle } from '../../fixtures/engine-parts.js';

const TICKER = 'spot:BTCUSDT:ticker:';
const TRADES = 'spot:BTCUSDT:trades:';

/** A ticker event whose last price names it, handed on into `ran`. */
function ticker(ran: string[], last: string, key = TICKER): FeedEvent {
  const event: MarketEvent = { kind: 'ticker', symbol: 'BTCUSDT', ticker: { high: d('0'), low: d('0'), last: d(last), vol: d('0'), buy: d('0'), sell: d('0'), rose: d('0'), time: 0 } };
  return { key, event, deliver: async (e) => void ran.push(e.kind === 'ticker' ? `${key.split(':')[2]} @${e.ticker.last}` : '?') };
}

const trade = (time: number): PublicTrade => ({ price: d(String(100 + time)), qty: d('1'), time, side: 'BUY' });

const timesOf = (e: MarketEvent) => (e.kind === 'trades' ? e.trades.map((t) => t.time) : []);

/** A trades event of trades at `times`, handed on into `heard`. */
function trades(heard: MarketEvent[], times: number[], gap?: true): FeedEvent {
  const event: MarketEvent = gap ? { kind: 'trades', symbol: 'BTCUSDT', trades: times.map(trade), gap } : { kind: 'trades', symbol: 'BTCUSDT', trades: times.map(trade) };
  return { key: TRADES, event, deliver: async (e) => void heard.push(e) };
}

/** A job that waits until the test lets it end. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, run: () => opened };
}

describe('Inbox', () => {
  it('runs one job at a time, in order; a newer market-data event takes the place of a waiting one of its feed', async () => {
    const ran: string[] = [];
    const inbox = new Inbox('t', new MemoryLog(), () => undefined);
    void inbox.open();
    const first = gate();
    inbox.post(async () => {
      ran.push('order 1');
      await first.run();
    });
    inbox.postFeed(ticker(ran, '1'));
    inbox.post(async () => void ran.push('fill 1'));
    inbox.postFeed(ticker(ran, '2'));
    await settle();
    expect(ran).toEqual(['order 1']);
    first.open();
    await inbox.idle();
    expect(ran).toEqual(['order 1', 'ticker @2', 'fill 1']);
  });

  it(`past ${MAX_WAITING_EVENTS} waiting events, drops them and says so (the engine disables the strategy); a stop's job is kept`, async () => {
    const ran: string[] = [];
    const overflows: number[] = [];
    const inbox = new Inbox('t', new MemoryLog(), (waiting) => overflows.push(waiting));
    void inbox.open();
    const stuck = gate();
    inbox.post(stuck.run);
    const stopped = inbox.run(async () => void ran.push('stop'));
    for (let i = 0; i < MAX_WAITING_EVENTS; i++) inbox.post(async () => void ran.push(`event ${i}`));
    expect(overflows).toEqual([MAX_WAITING_EVENTS]);
    stuck.open();
    await stopped;
    await inbox.idle();
    expect(ran).toEqual(['stop']);
  });

  it('holds what comes before its strategy started; at the start, the market data polled so far, then what waited, in order', async () => {
    const ran: string[] = [];
    const overflows: Array<[number, boolean]> = [];
    const inbox = new Inbox('t', new MemoryLog(), (waiting, started) => overflows.push([waiting, started]));
    inbox.post(async () => void ran.push('order filled'));
    inbox.postFeed(ticker(ran, '1'));
    inbox.post(async () => void ran.push('fill'));
    await settle();
    await inbox.idle();
    expect(ran).toEqual([]);
    await inbox.open([ticker(ran, '2'), ticker(ran, '2', 'spot:BTCUSDT:depth:')]);
    expect(ran).toEqual(['ticker @2', 'depth @2', 'order filled', 'fill']);
    inbox.post(async () => void ran.push('order canceled'));
    await inbox.idle();
    expect(ran.at(-1)).toBe('order canceled');
    expect(overflows).toEqual([]);
  });

  it(`past ${MAX_WAITING_EVENTS} events before the start, drops them and says the strategy had not started`, () => {
    const overflows: Array<[number, boolean]> = [];
    const inbox = new Inbox('t', new MemoryLog(), (waiting, started) => overflows.push([waiting, started]));
    for (let i = 0; i <= MAX_WAITING_EVENTS; i++) inbox.post(async () => undefined);
    expect(overflows).toEqual([[MAX_WAITING_EVENTS, false]]);
    expect(inbox.discard()).toBe(0);
  });

  it('a trades event waiting joins a newer one of its feed: a strategy that is behind hears every trade once, oldest first', async () => {
    const heard: MarketEvent[] = [];
    const inbox = new Inbox('t', new MemoryLog(), () => undefined);
    void inbox.open();
    const stuck = gate();
    inbox.post(stuck.run);
    inbox.postFeed(trades(heard, [1, 2]));
    inbox.post(async () => void heard.push({ kind: 'trades', symbol: 'fill', trades: [] }));
    inbox.postFeed(trades(heard, [3]));
    inbox.postFeed(trades(heard, [4, 5]));
    stuck.open();
    await inbox.idle();
    expect(heard.map((e) => (e.kind === 'trades' ? [e.symbol, e.trades.map((t) => t.time), e.gap] : []))).toEqual([
      ['BTCUSDT', [1, 2, 3, 4, 5], undefined],
      ['fill', [], undefined],
    ]);
  });

  it(`a joined trades event keeps the latest ${MAX_JOINED_TRADES} and says gap when it drops any, or when a part had one`, async () => {
    const heard: MarketEvent[] = [];
    const inbox = new Inbox('t', new MemoryLog(), () => undefined);
    void inbox.open();
    const stuck = gate();
    inbox.post(stuck.run);
    const many = Array.from({ length: MAX_JOINED_TRADES }, (_, i) => i);
    inbox.postFeed(trades(heard, many));
    inbox.postFeed(trades(heard, [MAX_JOINED_TRADES, MAX_JOINED_TRADES + 1]));
    stuck.open();
    await inbox.idle();
    const [joined] = heard;
    expect(joined?.kind === 'trades' && [joined.trades.length, joined.trades[0]!.time, joined.trades.at(-1)!.time, joined.gap]).toEqual([MAX_JOINED_TRADES, 2, MAX_JOINED_TRADES + 1, true]);

    const again = gate();
    inbox.post(again.run);
    inbox.postFeed(trades(heard, [1]));
    inbox.postFeed(trades(heard, [9], true));
    inbox.postFeed(trades(heard, [10]));
    again.open();
    await inbox.idle();
    expect(heard.at(-1)).toMatchObject({ kind: 'trades', gap: true });
    expect(timesOf(heard.at(-1)!)).toEqual([1, 9, 10]);
  });

  it('at the start, a trades event that waited holds the latest poll\'s trades and those since: it stays, and nothing is heard twice', async () => {
    const heard: MarketEvent[] = [];
    const inbox = new Inbox('t', new MemoryLog(), () => undefined);
    // Polls since the start began; the latest of them is what the start hands over first.
    inbox.postFeed(trades(heard, [4]));
    inbox.postFeed(trades(heard, [5, 6]));
    await inbox.open([trades(heard, [5, 6])]);
    expect(heard.map(timesOf)).toEqual([[4, 5, 6]]);
    // With none waiting, the latest.
    const later = new Inbox('t', new MemoryLog(), () => undefined);
    const heardLater: MarketEvent[] = [];
    await later.open([trades(heardLater, [7])]);
    expect(heardLater.map(timesOf)).toEqual([[7]]);
  });
});
