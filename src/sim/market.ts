// One instrument's market: its order book, the other participants (a seeded random walk of the
// mid price with quotes around it, and occasional trades at the top of the book), or a tape that
// drives the same book; and what the market-data endpoints read: trades, 1-minute candles.
import type { Decimal } from '../core/decimal.js';
import type { Side } from '../core/types.js';
import { OrderBook, type Resting, type Taker } from './book.js';
import { OTHERS, OthersOrder } from './others.js';
import { LEVEL_CELLS, TRADE_CELLS, type MarketFill, type RecordedMarketEvent, type TapeDecimal } from './types.js';
import { contractMid, type ContractSpec, type MarketShape, type SymbolSpec } from './instruments.js';
import type { IdSource } from './ids.js';
import { stream, type Rng } from './random.js';
import { PrintLog, type PublicTrade } from './prints.js';
import { keepQueue, queueAhead } from './queue.js';
import { RecordedKlines } from './recorded-klines.js';
import { fromUnits, scaledUnits, tapeUnits, toUnits } from './units.js';

export type { PublicTrade } from './prints.js';

interface Candle {
  open: number;
  high: number;
  low: number;
  close: number;
  lots: number;
  /** Sum of ticks * lots: `amount + pending` (see amountOf). */
  amount: bigint;
  /** The part of the sum not yet moved into `amount`: exact while it is a safe integer. */
  pending: number;
}

/** A candle as the kline and ticker routes read it: the whole sum of ticks * lots. */
type CandleTotals = Omit<Candle, 'pending'>;

const amountOf = (c: Candle): bigint => c.amount + BigInt(c.pending);

const MINUTE = 60_000;
const MAX_CANDLES = 50_000;
const MAX_TRADES = 1000;

export class InstrumentMarket {
  readonly book = new OrderBook();
  midTicks: number;
  lastTicks: number;
  /** A tape drives this market: no random walk, no synthetic quotes or trades. */
  external = false;
  /** It keeps its opening book: nobody can see it (SimOptions.moving). */
  still = false;
  /** Its mid is a price: a synthetic market's, or the tape's once it gave a book or a ticker (a market only a tape moves has none before). */
  midKnown: boolean;
  /** The venue's candles a tape recorded (recorded-klines.ts): they move nothing here. */
  readonly recorded = new RecordedKlines();
  private readonly prints = new PrintLog(MAX_TRADES);
  private readonly candles = new Map<number, Candle>();
  private readonly candleOrder: number[] = [];
  private seq = 0;
  private othersSeq = 0;
  private lastMinute = NaN;
  private lastCandle: Candle | undefined;
  /** The taker execute() is matching and its time, for onFill (fields, not an object a match). */
  private matchingTaker: Taker | undefined;
  private matchingAt = 0;
  /** A tape book's levels in units (see readLevels). */
  private levelUnits = new Float64Array(0);
  /** The taker of the tape's trades (see applyTrade). */
  private readonly tapeTaker = new OthersOrder(0, 'BUY', 0, 0, 0, 0);

  constructor(
    readonly name: string,
    readonly pricePrecision: number,
    readonly quantityPrecision: number,
    private readonly shape: Omit<MarketShape, 'startPrice'>,
    startTicks: number,
    private readonly rng: Rng,
    private readonly tradeIds: Pick<IdSource, 'next' | 'skip'>,
    /** Called for every fill in which an account (not only other participants) takes part. */
    private readonly settle: (fill: MarketFill) => void,
  ) {
    this.midTicks = startTicks;
    this.lastTicks = startTicks;
    this.midKnown = shape.levels > 0;
  }

  price(ticks: number): Decimal {
    return fromUnits(ticks, this.pricePrecision);
  }

  qty(lots: number): Decimal {
    return fromUnits(lots, this.quantityPrecision);
  }

  nextSeq(): number {
    return ++this.seq;
  }

  /**
   * Matches a taker and rests what is left when `restRemainder` (a LIMIT order); records
   * public trades and candles; returns the lots filled.
   */
  execute(taker: Taker, at: number, restRemainder: boolean): number {
    const outerTaker = this.matchingTaker;
    const outerAt = this.matchingAt;
    this.matchingTaker = taker;
    this.matchingAt = at;
    let filled: number;
    try {
      filled = this.book.match(taker, this.onFill);
    } finally {
      this.matchingTaker = outerTaker;
      this.matchingAt = outerAt;
    }
    const left = taker.lots - filled;
    if (restRemainder && left > 0 && taker.limitTicks !== undefined) {
      this.book.rest({ id: taker.id, owner: taker.owner, side: taker.side, priceTicks: taker.limitTicks, lots: left, seq: this.nextSeq() });
    }
    return filled;
  }

  /** The fill handler of execute(), made once: a closure per match was most of a tape trade's garbage. */
  private readonly onFill = (maker: Resting, priceTicks: number, lots: number): void => {
    const taker = this.matchingTaker!;
    const at = this.matchingAt;
    // Every fill takes a trade id, settled or not, so ids stay the same whatever is read.
    this.print(priceTicks, lots, at, taker.side);
    if (taker.owner === OTHERS && maker.owner === OTHERS) this.tradeIds.skip();
    else this.settle({ tradeId: this.tradeIds.next(), at, priceTicks, lots, takerSide: taker.side, takerId: taker.id, takerOwner: taker.owner, maker });
  };

  /** One step of the other participants: move the mid, re-quote around it, maybe trade. */
  step(at: number, midOverride?: number): void {
    if (this.external || this.still) return;
    const s = this.shape;
    if (midOverride !== undefined) this.midTicks = midOverride;
    else {
      // Irwin-Hall(3) centred: a bell-shaped step with standard deviation volatilityTicks.
      const z = (this.rng.next() + this.rng.next() + this.rng.next() - 1.5) * 2;
      this.midTicks += Math.round(z * s.volatilityTicks);
    }
    const floor = s.halfSpreadTicks + s.levels * s.levelStepTicks + 1;
    if (this.midTicks < floor) this.midTicks = floor;
    this.book.removeOwner(OTHERS);
    for (let i = 0; i < s.levels; i++) {
      this.quote('SELL', this.midTicks + s.halfSpreadTicks + i * s.levelStepTicks, this.rng.int(s.levelLots.min, s.levelLots.max), at);
      this.quote('BUY', this.midTicks - s.halfSpreadTicks - i * s.levelStepTicks, this.rng.int(s.levelLots.min, s.levelLots.max), at);
    }
    const trades = this.rng.next() < s.tradeRate;
    const side: Side = this.rng.next() < 0.5 ? 'BUY' : 'SELL';
    const lots = this.rng.int(s.tradeLots.min, s.tradeLots.max);
    if (trades) this.execute(new OthersOrder(this.othersSeq++, side, 0, lots, 0), at, false);
    this.touchCandle(at);
  }

  /**
   * Applies a tape's market event at `at` (the venue has caught up to it): see
   * SimExchange.applyMarketEvent. The first event switches this market off the synthetic one.
   */
  applyEvent(ev: RecordedMarketEvent, at: number): void {
    if (ev.type === 'klines') return this.recorded.add(ev.interval, ev.klines);
    const first = !this.external;
    this.external = true;
    if (ev.type === 'book' || ev.type === 'bookCells') {
      // Every level is read before the book changes: a bad one leaves the book as it was.
      const bids = ev.type === 'book' ? this.readLevels(ev.bids, 0) : ev.bids;
      const asks = ev.type === 'book' ? this.readLevels(ev.asks, 2 * bids) : this.readCells(ev.cells) - bids;
      // The others' size ahead of each account order stays ahead of it (queue.ts).
      const ahead = queueAhead(this.book);
      this.book.removeOwner(OTHERS);
      this.quoteLevels('SELL', 2 * bids, 2 * (bids + asks), at);
      this.quoteLevels('BUY', 0, 2 * bids, at);
      if (ahead) keepQueue(this.book, ahead, this.behindQuote);
      this.bookChanged(at);
      // The synthetic market's last price means nothing once the tape has it: until its first trade, the tape's mid.
      if (first) this.lastTicks = this.midTicks;
    } else if (ev.type === 'trade') this.applyTrade(tapeUnits(ev.price, 'price', this.pricePrecision), tapeUnits(ev.qty, 'qty', this.quantityPrecision), ev.side, at);
    else if (ev.type === 'tradeCells') {
      const c = ev.cells;
      for (let i = 0; i < c.length; i += TRADE_CELLS) {
        this.applyTrade(scaledUnits(c[i]!, c[i + 1]!, 'price', this.pricePrecision), scaledUnits(c[i + 2]!, c[i + 3]!, 'qty', this.quantityPrecision), c[i + 4] === 1 ? 'BUY' : 'SELL', at);
      }
    } else {
      this.midTicks = tapeUnits(ev.last, 'price', this.pricePrecision);
      this.lastTicks = this.midTicks;
      this.midKnown = true;
    }
  }

  private readonly behindQuote = (side: Side, priceTicks: number, lots: number, seq: number): Resting => new OthersOrder(this.othersSeq++, side, priceTicks, lots, seq);

  private bookChanged(at: number): void {
    const b = this.book.best('BUY');
    const a = this.book.best('SELL');
    if (b && a) {
      this.midTicks = Math.round((b.priceTicks + a.priceTicks) / 2);
      this.midKnown = true;
    }
    this.touchCandle(at);
  }

  /**
   * A tape book's levels as ticks and lots, into levelUnits from `from` (ticks, lots, ...);
   * returns how many. One array reused: a book of 40 levels made 42 arrays.
   */
  private readLevels(levels: ReadonlyArray<readonly [TapeDecimal, TapeDecimal]>, from: number): number {
    if (this.levelUnits.length < from + 2 * levels.length) {
      const grown = new Float64Array(2 * (from + 2 * levels.length));
      grown.set(this.levelUnits);
      this.levelUnits = grown;
    }
    for (let i = 0; i < levels.length; i++) {
      const [p, q] = levels[i]!;
      this.levelUnits[from + 2 * i] = tapeUnits(p, 'price', this.pricePrecision);
      this.levelUnits[from + 2 * i + 1] = tapeUnits(q, 'qty', this.quantityPrecision);
    }
    return levels.length;
  }

  /** A `bookCells` event's levels into levelUnits as readLevels puts them; returns how many. */
  private readCells(cells: readonly number[]): number {
    const levels = cells.length / LEVEL_CELLS;
    if (this.levelUnits.length < 2 * levels) this.levelUnits = new Float64Array(2 * levels);
    for (let i = 0, c = 0; i < levels; i++, c += LEVEL_CELLS) {
      this.levelUnits[2 * i] = scaledUnits(cells[c]!, cells[c + 1]!, 'price', this.pricePrecision);
      this.levelUnits[2 * i + 1] = scaledUnits(cells[c + 2]!, cells[c + 3]!, 'qty', this.quantityPrecision);
    }
    return levels;
  }

  /**
   * A tape's trade: another participant trades `lots` at `priceTicks`, filling any order on the
   * book at that price or better; what the book cannot fill happened elsewhere and is printed.
   */
  applyTrade(priceTicks: number, lots: number, side: Side, at: number): void {
    // A taker is read only while it matches (it never rests), so one serves every tape trade,
    // unless a trade came in the middle of another's match.
    const taker = this.matchingTaker === this.tapeTaker ? new OthersOrder(0, side, 0, 0, 0) : this.tapeTaker;
    const filled = this.execute(taker.limit(this.othersSeq++, side, priceTicks, lots), at, false);
    if (filled < lots) this.print(priceTicks, lots - filled, at, side);
    this.touchCandle(at);
  }

  /**
   * Quotes the levels levelUnits[from, to) on `side` as quote() each in turn would. A tape's book
   * comes best level first and crosses nothing: then the quotes join the side in one merge
   * (OrderBook.restAll), not an insertion each among the account's resting orders.
   */
  private quoteLevels(side: Side, from: number, to: number, at: number): void {
    const l = this.levelUnits;
    // Decided before any quote is made: each takes its id and its seq as it is made, and the
    // fallback must make them in the same order.
    const count = this.mergeable(side, from, to);
    if (count === undefined) {
      for (let i = from; i < to; i += 2) this.quote(side, l[i]!, l[i + 1]!, at);
      return;
    }
    const quotes: Resting[] = new Array(count);
    let q = 0;
    for (let i = from; i < to; i += 2) if (l[i]! > 0 && l[i + 1]! > 0) quotes[q++] = new OthersOrder(this.othersSeq++, side, l[i]!, l[i + 1]!, this.nextSeq());
    this.book.restAll(side, quotes);
  }

  /** How many of the levels quote() would rest, when they come best first and the best crosses nothing (so none trades); else undefined. */
  private mergeable(side: Side, from: number, to: number): number | undefined {
    const l = this.levelUnits;
    const buy = side === 'BUY';
    let count = 0;
    let last = 0;
    for (let i = from; i < to; i += 2) {
      const price = l[i]!;
      if (price <= 0 || l[i + 1]! <= 0) continue; // quote() skips it
      if (count === 0 ? this.book.wouldCross(side, price) : buy ? price > last : price < last) return undefined;
      last = price;
      count++;
    }
    return count;
  }

  private quote(side: Side, priceTicks: number, lots: number, at: number): void {
    if (priceTicks <= 0 || lots <= 0) return;
    const n = this.othersSeq++;
    // Most quotes cross nothing: rest them directly (the step's hot path).
    if (!this.book.wouldCross(side, priceTicks)) this.book.rest(new OthersOrder(n, side, priceTicks, lots, this.nextSeq()), false);
    else {
      const filled = this.execute(new OthersOrder(n, side, priceTicks, lots, 0, priceTicks), at, false);
      if (filled < lots) this.book.rest(new OthersOrder(n, side, priceTicks, lots - filled, this.nextSeq()), false);
    }
  }

  private print(priceTicks: number, lots: number, at: number, side: Side): void {
    this.lastTicks = priceTicks;
    this.prints.push(priceTicks, lots, at, side);
    const c = this.touchCandle(at);
    c.high = Math.max(c.high, priceTicks);
    c.low = Math.min(c.low, priceTicks);
    c.close = priceTicks;
    c.lots += lots;
    // Summed as a number while that is exact: two BigInts a print are most of a tape trade's cost.
    const pending = c.pending + priceTicks * lots;
    if (Number.isSafeInteger(pending)) c.pending = pending;
    else {
      c.amount += BigInt(c.pending) + BigInt(priceTicks) * BigInt(lots);
      c.pending = 0;
    }
  }

  private touchCandle(at: number): Candle {
    const minute = Math.floor(at / MINUTE) * MINUTE;
    // Every trade and quote lands in the current minute: skip the map for it.
    if (minute === this.lastMinute && this.lastCandle) return this.lastCandle;
    let c = this.candles.get(minute);
    if (!c) {
      const p = this.lastTicks;
      c = { open: p, high: p, low: p, close: p, lots: 0, amount: 0n, pending: 0 };
      this.candles.set(minute, c);
      const order = this.candleOrder;
      // An earlier minute than the last (a prehistory made after the market opened at now) goes
      // in its place: klines are read in this order, oldest first.
      if (order.length === 0 || order[order.length - 1]! < minute) order.push(minute);
      else order.splice(order.findIndex((m) => m > minute), 0, minute);
      if (this.candleOrder.length > MAX_CANDLES) this.candles.delete(this.candleOrder.shift()!);
    }
    this.lastMinute = minute;
    this.lastCandle = c;
    return c;
  }

  /** The minute of the oldest candle this market keeps, if any. */
  firstMinute(): number | undefined {
    return this.candleOrder[0];
  }

  /** Most recent public trades, newest first. */
  recentTrades(limit: number): PublicTrade[] {
    return this.prints.recent(limit);
  }

  /** Candles aggregated into buckets of `bucket(t)` start, ascending, filtered by time. */
  klines(bucket: (t: number) => number, opts: { limit: number; startTime?: number; endTime?: number }) {
    const out: Array<{ idx: number } & CandleTotals> = [];
    for (const minute of this.candleOrder) {
      if (opts.startTime !== undefined && minute < opts.startTime) continue;
      if (opts.endTime !== undefined && minute > opts.endTime) continue;
      const c = this.candles.get(minute)!;
      const idx = bucket(minute);
      const last = out[out.length - 1];
      if (last && last.idx === idx) {
        last.high = Math.max(last.high, c.high);
        last.low = Math.min(last.low, c.low);
        last.close = c.close;
        last.lots += c.lots;
        last.amount += amountOf(c);
      } else out.push({ idx, open: c.open, high: c.high, low: c.low, close: c.close, lots: c.lots, amount: amountOf(c) });
    }
    return out.slice(-opts.limit);
  }

  /** Rolling 24 h statistics from the 1-minute candles. */
  stats(now: number): { open: number; high: number; low: number; lots: number; amount: bigint } {
    const from = now - 24 * 60 * MINUTE;
    let open: number | undefined;
    let high = this.lastTicks;
    let low = this.lastTicks;
    let lots = 0;
    let amount = 0n;
    for (let i = this.candleOrder.length - 1; i >= 0; i--) {
      const minute = this.candleOrder[i]!;
      if (minute < from) break;
      const c = this.candles.get(minute)!;
      open = c.open;
      high = Math.max(high, c.high);
      low = Math.min(low, c.low);
      lots += c.lots;
      amount += amountOf(c);
    }
    return { open: open ?? this.lastTicks, high, low, lots, amount };
  }
}

/** Opens into `markets` one market per listed symbol and contract, each on its own seeded stream; a contract's starts at its spot market's mid. */
export function openMarkets(
  markets: Map<string, InstrumentMarket>,
  symbols: ReadonlyMap<string, SymbolSpec>,
  contracts: ReadonlyMap<string, ContractSpec>,
  seed: number,
  tradeIds: Pick<IdSource, 'next' | 'skip'>,
  settle: { spot(fill: MarketFill): void; futures(fill: MarketFill): void },
): void {
  for (const s of symbols.values()) {
    const start = toUnits(s.market.startPrice, s.pricePrecision) ?? 1;
    markets.set(s.symbol, new InstrumentMarket(s.symbol, s.pricePrecision, s.quantityPrecision, s.market, start, stream(seed, `market:${s.symbol}`), tradeIds, settle.spot));
  }
  for (const c of contracts.values()) {
    const start = contractMid(c, symbols.get(c.underlying), markets.get(c.underlying)) ?? 1;
    markets.set(c.symbol, new InstrumentMarket(c.symbol, c.pricePrecision, 0, c.market, start, stream(seed, `market:${c.symbol}`), tradeIds, settle.futures));
  }
}
