// One host per configured strategy: its view of the engine, its clock and timers, its logger
// (fields second, as plugin authors write it) and its client-order sequences; and what decides
// when a strategy may start (its klines warm-up) and which market data it hears.
import { amend } from '../core/amend.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from 'pino';
import type { Market } from '../core/types.js';
import { StrategyHost, type EngineView, type HandlerDeadline, type HostOutput, type LoadedStrategy, type MarketEvent, type MarketSubscription } from '../strategy/index.js';
import { ZERO } from '../core/decimal.js';
import type { Journal } from '../core/ports.js';
import { toStrategyPosition, type PositionBook } from '../positions/index.js';
import type { Holdings } from '../reconciler/holdings.js';
import type { BalanceHolds } from '../risk/index.js';
import type { SequenceAllocator } from '../store/sequences.js';
import type { InstrumentCatalog } from './instruments.js';
import type { StrategyLedger } from './ledger.js';
import type { Feed, MarketDataPoller } from './market-data.js';
import { withUnbooked, type UnbookedExecutions } from './unbooked.js';

export function strategyHosts(
  parts: { strategies: readonly LoadedStrategy[]; clock: Clock; log: Logger; pluginLog?: Logger; sequences: SequenceAllocator; deadline: HandlerDeadline },
  view: EngineView,
  /** Where a timer's output goes (the engine hands it to risk and the pipeline, as a tick's). */
  onTimer: (host: StrategyHost, out: HostOutput) => Promise<void>,
): StrategyHost[] {
  return parts.strategies.map((s) => {
    const log = (parts.pluginLog ?? parts.log).child({ strategy: s.entry.id });
    const host: StrategyHost = new StrategyHost({ id: s.entry.id, market: s.entry.market, symbols: s.entry.symbols, everyMs: s.entry.everyMs }, s.definition, s.params, {
      view,
      now: () => parts.clock.now(),
      log: pluginLogger(log),
      nextSequence: () => parts.sequences.next(s.entry.id),
      deadline: parts.deadline,
      setTimer(delayMs, fire) {
        let live = true;
        void parts.clock
          .sleep(delayMs)
          .then(async () => {
            if (live) await onTimer(host, await fire());
          })
          .catch((err: unknown) => log.error({ err }, 'timer failed'));
        return () => {
          live = false;
        };
      },
    });
    return host;
  });
}

/** What strategies read of the engine: positions, orders, balances and margin, market data, their own history. */
export function engineView(
  parts: { positions: PositionBook; journal: Journal; marketData: MarketDataPoller; instruments: InstrumentCatalog; holds: BalanceHolds },
  ledger: StrategyLedger,
  holdings: () => Pick<Holdings, 'balancesNow' | 'balancesAskedAt' | 'margins'>,
  unbooked: Pick<UnbookedExecutions, 'quantity'>,
): EngineView {
  const { positions, journal, marketData, instruments } = parts;
  return {
    // With what the venue said executed and the trades read has not booked: an order leaves
    // openOrders at that word, and a position without it made a stop-loss sell twice.
    position: (market, symbol) => withUnbooked(toStrategyPosition(positions.entry(market, symbol), instruments.get(market, symbol)?.baseAsset), unbooked.quantity(market, symbol)),
    openOrders: (strategyId, symbol) => journal.orders({ openOnly: true, strategyId }).filter((o) => !symbol || o.symbol === symbol),
    // As risk judges it: less what accepted places hold until a read shows it.
    balance: (asset) => {
      const b = holdings().balancesNow().get(asset) ?? { asset, free: ZERO, locked: ZERO };
      return amend(b, { free: parts.holds.free([b], holdings().balancesAskedAt).get(asset)! });
    },
    lastPrice: (market, symbol) => marketData.lastPrice(market, symbol),
    instrument: (market, symbol) => instruments.get(market, symbol),
    ticker: (market, symbol) => marketData.ticker(market, symbol),
    depth: (market, symbol) => marketData.depth(market, symbol),
    klines: (market, symbol, interval) => marketData.klines(market, symbol, interval),
    margin: () => holdings().margins[0],
    ownFills: (strategyId) => ledger.fills(strategyId),
    ownOrders: (strategyId) => ledger.orders(strategyId),
    ownPosition: (strategyId, market, symbol) => withUnbooked(ledger.position(strategyId, market, symbol), unbooked.quantity(market, symbol, strategyId)),
  };
}

/** The feeds a strategy asked for, on each of its symbols. */
export function feedsOf(h: StrategyHost): Feed[] {
  return h.setup.symbols.flatMap((symbol) => h.subscriptions.map((subscription) => ({ market: h.setup.market, symbol, subscription })));
}

/** Whether `event` is one of the feeds `h` subscribed to (a klines event of its interval). */
export function hears(h: StrategyHost, market: Market, event: MarketEvent): boolean {
  if (h.setup.market !== market || !h.setup.symbols.includes(event.symbol)) return false;
  return h.subscriptions.some((s) => s.kind === event.kind && (event.kind !== 'klines' || (s.kind === 'klines' && s.interval === event.interval)));
}

/** How many closed candles each klines subscription with a warm-up still lacks, by feed; empty when warm. */
export function warmUpLacking(h: StrategyHost, market: MarketDataPoller): string[] {
  const lacking: string[] = [];
  for (const s of h.subscriptions) {
    if (s.kind !== 'klines' || !s.history) continue;
    for (const symbol of h.setup.symbols) {
      const closed = (market.klines(h.setup.market, symbol, s.interval) ?? []).filter((c) => c.closed).length;
      if (closed < s.history) lacking.push(`${symbol} ${s.interval} ${closed}/${s.history}`);
    }
  }
  return lacking;
}

/** A klines subscription asks for at least its warm-up and the forming candle. */
export function withHistory(s: MarketSubscription): MarketSubscription {
  return s.kind === 'klines' && s.history ? amend(s, { limit: Math.max(s.limit ?? 0, s.history + 1) }) : s;
}

function pluginLogger(log: Logger) {
  return {
    debug: (msg: string, fields?: Record<string, unknown>) => log.debug(fields ?? {}, msg),
    info: (msg: string, fields?: Record<string, unknown>) => log.info(fields ?? {}, msg),
    warn: (msg: string, fields?: Record<string, unknown>) => log.warn(fields ?? {}, msg),
    error: (msg: string, fields?: Record<string, unknown>) => log.error(fields ?? {}, msg),
  };
}
