// Market data: ping, time, symbols and contracts, depth, ticker, trades, klines. Everything is
// read from the same books and prints the matching engine uses, so it is consistent with fills.
import { amend } from '../core/amend.js';
import { dec } from '../core/decimal.js';
import { VenueCode } from '../exchange/codes.js';
import { reject } from './errors.js';
import { contractJson, symbolJson } from './instruments.js';
import type { InstrumentMarket } from './market.js';
import { integer, required, text, type Params } from './params.js';
import { bucketOf, INTERVALS } from './recorded-klines.js';
import type { Call, Route, VenueView } from './venue.js';
import { fromUnits } from './units.js';

function spotMarket(ex: VenueView, p: Params): InstrumentMarket {
  const symbol = required(p, 'symbol').toUpperCase();
  if (!ex.symbols.has(symbol)) reject(VenueCode.BAD_SYMBOL, 'Invalid symbol.');
  return ex.markets.get(symbol)!;
}

function contractMarket(ex: VenueView, p: Params): InstrumentMarket {
  const name = required(p, 'contractName').toUpperCase();
  if (!ex.contracts.has(name)) reject(VenueCode.BAD_SYMBOL, 'Invalid contract name.');
  return ex.markets.get(name)!;
}

function depth(m: InstrumentMarket, p: Params, now: number) {
  const limit = integer(p, 'limit', 100, 1, 100)!;
  const side = (s: 'BUY' | 'SELL') => m.book.levels(s, limit).map(([t, l]) => [m.price(t), m.qty(l)]);
  return { time: now, bids: side('BUY'), asks: side('SELL') };
}

function ticker(m: InstrumentMarket, now: number) {
  const s = m.stats(now);
  const bid = m.book.best('BUY');
  const ask = m.book.best('SELL');
  const last = m.price(m.lastTicks);
  const open = m.price(s.open);
  return {
    high: m.price(s.high),
    low: m.price(s.low),
    last,
    vol: m.qty(s.lots),
    amount: fromUnits(s.amount, m.pricePrecision + m.quantityPrecision),
    buy: bid ? m.price(bid.priceTicks) : last,
    sell: ask ? m.price(ask.priceTicks) : last,
    // Rounded once at 6 places: the same digits as rounding the 30-place ratio again (ticks are
    // integers below 10^15, so the ratio is never within 10^-30 of a 6-place half).
    rose: dec.isZero(open) ? '0' : dec.div(dec.sub(last, open), open, 6),
    time: now,
  };
}

function trades(m: InstrumentMarket, p: Params) {
  const limit = integer(p, 'limit', 100, 1, 1000)!;
  return m.recentTrades(limit).map((t) => ({ price: m.price(t.priceTicks), qty: m.qty(t.lots), time: t.at, side: t.side }));
}

/** The intervals futures serves (the notes): the hour is 1h, not spot's 60min, and no 4h. */
const FUTURES_INTERVALS: ReadonlySet<string> = new Set(['1min', '5min', '15min', '30min', '1h', '1day', '1week', '1month']);

function klines(m: InstrumentMarket, p: Params, now: number, served?: ReadonlySet<string>) {
  const name = required(p, 'interval');
  const span = (served === undefined || served.has(name) ? INTERVALS[name] : undefined) ?? reject(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, `Invalid interval '${name}'.`);
  const limit = integer(p, 'limit', 100, 1, 300)!;
  const startTime = integer(p, 'startTime', undefined, 0, Number.MAX_SAFE_INTEGER);
  const endTime = integer(p, 'endTime', undefined, 0, Number.MAX_SAFE_INTEGER);
  const bucket = bucketOf(span);
  const built = m.klines(bucket, { limit, startTime, endTime }).map((c) => ({
    idx: c.idx,
    open: m.price(c.open),
    close: m.price(c.close),
    high: m.price(c.high),
    low: m.price(c.low),
    vol: m.qty(c.lots),
    amount: fromUnits(c.amount, m.pricePrecision + m.quantityPrecision),
  }));
  // A tape's recorded candles (a backtest): the venue's own for the time before this market's
  // first candle, as the recording read them (no amount: the contract's candle has none).
  const recorded = m.recorded.before(span, bucket(m.firstMinute() ?? now), { startTime, endTime });
  if (recorded.length === 0) return built;
  const past = recorded.map((k) => ({ idx: k.openTime, open: k.open, close: k.close, high: k.high, low: k.low, vol: k.vol }));
  return [...past, ...built].slice(-limit);
}

const time = (_ex: VenueView, c: Call) => ({ timezone: 'UTC', serverTime: c.clockNow });

export const PUBLIC_ROUTES: Readonly<Record<string, Route>> = {
  'spot.ping': () => ({}),
  'spot.time': time,
  'spot.symbols': (ex) => ({ symbols: [...ex.symbols.values()].map((s) => symbolJson(s, ex.profile.symbolsMarketMinimums)) }),
  'spot.depth': (ex, c) => depth(spotMarket(ex, c.params), c.params, c.now),
  'spot.ticker': (ex, c) => ticker(spotMarket(ex, c.params), c.now),
  'spot.trades': (ex, c) => trades(spotMarket(ex, c.params), c.params),
  'spot.klines': (ex, c) => klines(spotMarket(ex, c.params), c.params, c.now),
  'futures.ping': () => ({}),
  'futures.time': time,
  'futures.contracts': (ex) => [...ex.contracts.values()].map(contractJson),
  'futures.depth': (ex, c) => depth(contractMarket(ex, c.params), c.params, c.now),
  'futures.ticker': (ex, c) => {
    const t = ticker(contractMarket(ex, c.params), c.now);
    return amend(t, { contractName: text(c.params, 'contractName')!.toUpperCase() });
  },
  'futures.klines': (ex, c) => klines(contractMarket(ex, c.params), c.params, c.now, FUTURES_INTERVALS),
};
