// The strategy test harness, public as `sluice/testing`: a plugin runs in the real StrategyHost
// against a hand-set account view (prices, positions, balances, open orders, instruments) on a
// clock the test moves, and each tick's intents come back as values to assert on. No venue, no
// engine, no waiting. strategies/README.md shows how to use it.
import { d, type Decimal } from '../core/decimal.js';
import type { SymbolInfo } from '../core/market.js';
import type { Balance, Market, Order, Position } from '../core/types.js';
import type { StrategyDefinition, StrategyLogger } from './api.js';
import { StrategyHost, type EngineView } from './host.js';

export const BTCUSDT: SymbolInfo = {
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  pricePrecision: 2,
  quantityPrecision: 5,
  limitVolumeMin: d('0.00001'),
  limitPriceMin: d('0.01'),
};

/** The account as the strategy sees it, set by the test. */
export class FakeView implements EngineView {
  /** Signed base quantity per symbol, and the average entry price behind it. */
  positions = new Map<string, Decimal>();
  entryPrices = new Map<string, Decimal>();
  orders: Order[] = [];
  balances = new Map<string, Decimal>([
    ['BTC', d('1')],
    ['USDT', d('100000')],
  ]);
  prices = new Map<string, Decimal>();
  instruments = new Map<string, SymbolInfo>([['BTCUSDT', BTCUSDT]]);

  position(market: Market, symbol: string): Position {
    return { market, symbol, quantity: this.positions.get(symbol) ?? d('0'), avgEntryPrice: this.entryPrices.get(symbol) ?? d('0'), realizedPnl: d('0'), fees: d('0') };
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
}

export interface LogLine {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

/** A plugin in a StrategyHost over a FakeView; `advance(ms)` moves its clock, `logs` holds what it logged. */
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
  const params = definition.params.parse(rawParams);
  const host = new StrategyHost(
    { id: opts.id ?? 'test', market: opts.market ?? 'spot', symbols: opts.symbols ?? ['BTCUSDT'], everyMs: 1000 },
    definition,
    params,
    { view, log, now: () => now, nextSequence: () => seq++ },
  );
  return { host, view, logs, advance: (ms: number) => (now += ms) };
}
