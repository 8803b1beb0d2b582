// The strategy test harness, public as `sluice/testing`: a plugin runs in the real StrategyHost
// against a hand-set view of the account and the market (prices, depth, klines, positions,
// balances, orders, fills, instruments) on a clock the test moves, and each handler's intents
// come back as values to assert on. No venue, no engine, no waiting. strategies/README.md shows
// how to use it.
import { d, type Decimal } from '../core/decimal.js';
import type { Depth, KlineInterval, SymbolInfo, Ticker } from '../core/market.js';
import type { Balance, Fill, Market, Order, Position, StrategyPosition } from '../core/types.js';
import type { Candle, Margin, StrategyDefinition, StrategyLogger } from './api.js';
import { StrategyHost, type EngineView, type HostOutput } from './host.js';

export const BTCUSDT: SymbolInfo = {
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  pricePrecision: 2,
  quantityPrecision: 5,
  limitVolumeMin: d('0.00001'),
  limitPriceMin: d('0.01'),
};

const flat = (market: Market, symbol: string, quantity = d('0'), avgEntryPrice = d('0'), realizedPnl = d('0'), fees = d('0')): StrategyPosition => ({ market, symbol, quantity, avgEntryPrice, realizedPnl, fees, otherFees: {}, netQuantity: quantity, unbookedQuantity: d('0') });

/** The account and market as the strategy sees them, set by the test. */
export class FakeView implements EngineView {
  /** Signed base quantity per symbol, and the average entry price behind it (the whole account). */
  positions = new Map<string, Decimal>();
  entryPrices = new Map<string, Decimal>();
  /** Open orders (ctx.openOrders), and the strategy's order history (ctx.orders). */
  orders: Order[] = [];
  history: Order[] = [];
  /** The strategy's own fills (ctx.fills) and own position per symbol (ctx.ownPosition). */
  fills: Fill[] = [];
  /** A Position, or a whole StrategyPosition to set netQuantity (a buy's base-coin fee) and unbookedQuantity too. */
  ownPositions = new Map<string, Position | StrategyPosition>();
  balances = new Map<string, Decimal>([
    ['BTC', d('1')],
    ['USDT', d('100000')],
  ]);
  prices = new Map<string, Decimal>();
  tickers = new Map<string, Ticker>();
  depths = new Map<string, Depth>();
  /** Candles by `SYMBOL:interval`, oldest first. */
  candles = new Map<string, Candle[]>();
  marginView: Margin | undefined;
  instruments = new Map<string, SymbolInfo>([['BTCUSDT', BTCUSDT]]);

  position(market: Market, symbol: string): StrategyPosition {
    return flat(market, symbol, this.positions.get(symbol), this.entryPrices.get(symbol));
  }
  openOrders(strategyId: string, symbol?: string): readonly Order[] {
    return this.orders.filter((o) => o.strategyId === strategyId && (!symbol || o.symbol === symbol));
  }
  balance(asset: string): Balance {
    return { asset, free: this.balances.get(asset) ?? d('0'), locked: d('0') };
  }
  lastPrice(_market: Market, symbol: string): Decimal | undefined {
    return this.prices.get(symbol);
  }
  instrument(_market: Market, symbol: string): SymbolInfo | undefined {
    return this.instruments.get(symbol);
  }
  ticker(_market: Market, symbol: string): Ticker | undefined {
    return this.tickers.get(symbol);
  }
  depth(_market: Market, symbol: string): Depth | undefined {
    return this.depths.get(symbol);
  }
  klines(_market: Market, symbol: string, interval: KlineInterval): readonly Candle[] | undefined {
    return this.candles.get(`${symbol}:${interval}`);
  }
  margin(): Margin | undefined {
    return this.marginView;
  }
  ownFills(): readonly Fill[] {
    return this.fills;
  }
  ownOrders(): readonly Order[] {
    return this.history;
  }
  ownPosition(_strategyId: string, market: Market, symbol: string): StrategyPosition {
    const p = this.ownPositions.get(symbol);
    if (p && 'netQuantity' in p) return p;
    return p ? flat(market, symbol, p.quantity, p.avgEntryPrice, p.realizedPnl, p.fees) : flat(market, symbol);
  }
}

export interface LogLine {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

/**
 * A plugin in a StrategyHost over a FakeView. `advance(ms)` moves its clock; `fireTimers()`
 * runs the timers (ctx.setTimer) due by then and returns what they queued; `logs` holds what
 * it logged.
 */
export function harness(definition: StrategyDefinition, rawParams: unknown = {}, opts: { id?: string; symbols?: string[]; market?: Market } = {}) {
  const view = new FakeView();
  const logs: LogLine[] = [];
  const log: StrategyLogger = {
    debug: (msg, fields) => logs.push({ level: 'debug', msg, fields }),
    info: (msg, fields) => logs.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => logs.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => logs.push({ level: 'error', msg, fields }),
  };
  let seq = 0;
  let now = 1_700_000_000_000;
  const timers: { at: number; seq: number; fire: () => Promise<HostOutput>; live: boolean }[] = [];
  const params = definition.params.parse(rawParams);
  const host = new StrategyHost({ id: opts.id ?? 'test', market: opts.market ?? 'spot', symbols: opts.symbols ?? ['BTCUSDT'], everyMs: 1000 }, definition, params, {
    view,
    log,
    now: () => now,
    nextSequence: () => seq++,
    setTimer(delayMs, fire) {
      const t = { at: now + delayMs, seq: timers.length, fire, live: true };
      timers.push(t);
      return () => {
        t.live = false;
      };
    },
  });
  async function fireTimers(): Promise<HostOutput> {
    const out: HostOutput = { intents: [], invalid: [] };
    for (;;) {
      const due = timers.filter((t) => t.live && t.at <= now).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) return out;
      due.live = false;
      const got = await due.fire();
      out.intents.push(...got.intents);
      out.invalid.push(...got.invalid);
    }
  }
  return { host, view, logs, advance: (ms: number) => (now += ms), fireTimers };
}
