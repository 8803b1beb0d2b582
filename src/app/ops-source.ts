// The daemon as the ops endpoint sees it: an OpsSource read from the running App at request
// time, plus the call tap that feeds metrics, venue reachability and ban alerts.
import { amend } from '../core/amend.js';
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { shownAveragePrice, shownMoney, shownQuantity } from '../core/display.js';
import { BannedError } from '../core/errors.js';
import type { Balance, Fill, Market } from '../core/types.js';
import type { MarginAccount } from '../core/ports.js';
import type { PositionBook } from '../positions/index.js';
import type { Config } from '../config/index.js';
import type { CallRecord } from '../executor/index.js';
import { OpsRecorder, type OpsAlert, type OpsFill, type OpsHealth, type OpsSource, type OpsStatus } from '../ops/index.js';
import { accountValue, assetValue, equitySample } from '../report/index.js';
import type { App } from './build.js';

/** Fills the dashboard lists and marks on its charts. */
export const RECENT_FILLS = 200;

/**
 * Transport-level failures in a row (no HTTP answer, or a 5xx) after which the venue counts as
 * unreachable. One lost answer is normal on the internet; three in a row is not.
 */
export const UNREACHABLE_AFTER_FAILURES = 3;

/**
 * Reconcile passes in a row that end with the venue unreachable before it is alerted: one pass
 * may catch a blip, three (several seconds, with their retries) are an outage.
 */
export const UNREACHABLE_ALERT_AFTER_PASSES = 3;

/** An alert the watch wants sent: the venue's reachability changed. */
export interface VenueAlert {
  kind: 'venue_unreachable' | 'venue_reachable';
  message: string;
  details: Record<string, unknown>;
}

/** What the call tap learns from every finished venue call. */
export class VenueWatch {
  lastOkAt: number | null = null;
  private failuresInARow = 0;
  private passesUnreachable = 0;
  /** While an unreachable alert stands: the venue's last answer before it (null: none this run). */
  private down: { since: number | null } | undefined;
  /** Requests that left, per endpoint: the dashboard shows the endpoints in use. */
  readonly sent = new Map<string, number>();

  /** Give it every CallRecord; returns the BannedError when this call found a ban. */
  observe(record: CallRecord): BannedError | undefined {
    if (record.sentAt !== undefined) this.sent.set(record.endpoint, (this.sent.get(record.endpoint) ?? 0) + 1);
    const answered = record.httpStatus !== undefined && record.httpStatus < 500;
    if (answered) {
      // Any answer of the venue's own (a 4xx included) proves it is there.
      this.lastOkAt = record.finishedAt;
      this.failuresInARow = 0;
    } else if (record.sentAt !== undefined) {
      // A call refused locally (banned while queued) never left and says nothing about the venue.
      this.failuresInARow++;
    }
    return record.error instanceof BannedError ? record.error : undefined;
  }

  reachable(): boolean {
    return this.failuresInARow < UNREACHABLE_AFTER_FAILURES;
  }

  /**
   * Called as each reconcile pass ends. The venue unreachable at the end of
   * UNREACHABLE_ALERT_AFTER_PASSES passes in a row is alerted once, and its first answer after
   * that once more: an outage makes two alerts, not one per request.
   */
  passEnded(): VenueAlert | undefined {
    if (this.reachable()) {
      this.passesUnreachable = 0;
      if (!this.down) return undefined;
      const since = this.down.since;
      this.down = undefined;
      const from = since === null ? 'the start' : new Date(since).toISOString();
      return {
        kind: 'venue_reachable',
        message: `the venue answers again: it was unreachable from ${from} to ${new Date(this.lastOkAt!).toISOString()}; reconcile passes catch up on what happened meanwhile`,
        details: { unreachableSince: since, answeredAt: this.lastOkAt, downMs: since === null ? null : this.lastOkAt! - since },
      };
    }
    this.passesUnreachable++;
    if (this.down || this.passesUnreachable < UNREACHABLE_ALERT_AFTER_PASSES) return undefined;
    this.down = { since: this.lastOkAt };
    const last = this.lastOkAt === null ? 'none since the start' : new Date(this.lastOkAt).toISOString();
    return {
      kind: 'venue_unreachable',
      message: `the venue is unreachable: no answer to the last ${this.failuresInARow} requests, over ${this.passesUnreachable} reconcile passes in a row (its last answer: ${last}); orders can be neither placed, cancelled nor read until it answers, and sluice keeps trying`,
      details: { lastOkAt: this.lastOkAt, failuresInARow: this.failuresInARow, passes: this.passesUnreachable },
    };
  }
}

export interface DaemonOpsSourceOptions {
  config: Config;
  /** The app is built after the source's call tap (buildApp takes onCall), so it is read late. */
  app: () => App | undefined;
  watch: VenueWatch;
  now: () => number;
  /** The latest alerts (the daemon's Alerts.recent). */
  alerts?: () => OpsAlert[];
  recorder?: OpsRecorder;
}

export interface DaemonOpsSource extends OpsSource {
  /** One sample of prices, equity and realised PnL from the engine, for the dashboard's charts. */
  sample(): void;
}

const EMPTY_HEALTH: OpsHealth = { bannedUntil: 0, killSwitch: 'off', venueReachable: true, lastVenueOkAt: null, journalFailure: null };

export function createDaemonOpsSource(opts: DaemonOpsSourceOptions): DaemonOpsSource {
  const { config, watch } = opts;
  const recorder = opts.recorder ?? new OpsRecorder();
  const fills = new RecentFills();
  const equity = new EquityBase();
  // Strategies the config names but turns off never get a host; they are listed as disabled too.
  const configDisabled = config.strategies.filter((s) => !s.enabled).map((s) => ({ id: s.id, enabled: false, disabledReason: 'enabled: false in the config' }));

  return {
    ready: () => opts.app()?.engine.ready ?? false,

    health(): OpsHealth {
      const app = opts.app();
      if (!app) return { ...EMPTY_HEALTH, killSwitch: config.risk.killSwitch.mode };
      return {
        bannedUntil: Math.max(app.client.pacer.pausedUntil(), journalBanUntil(app)),
        killSwitch: app.riskGate.killSwitch(),
        venueReachable: watch.reachable(),
        lastVenueOkAt: watch.lastOkAt,
        journalFailure: app.journal.writeFailure() ?? null,
      };
    },

    status(): OpsStatus {
      const app = opts.app();
      const now = opts.now();
      if (!app) {
        return {
          mode: config.mode,
          now,
          positions: [],
          openOrders: [],
          pnl: { realized: '0', fees: '0', feesOther: {} },
          limiter: {},
          strategies: configDisabled,
          drift: [],
          clockOffsetMs: 0,
          fills: [],
          alerts: opts.alerts?.() ?? [],
          quoteAsset: null,
        };
      }
      const { engine } = app;
      const book = engine.positions.snapshot();
      // Rounded as `sluice status` shows them (core/display.ts): the book's averages divide to 30 places.
      const { instruments } = engine.riskInputs();
      const positions = book
        .filter((p) => !dec.isZero(p.quantity) || !dec.isZero(p.realizedPnl) || !dec.isZero(p.fees))
        .map((p) => {
          const info = instruments.get(`${p.market}:${p.symbol}`);
          const feesOther = moneyByAsset(engine.positions.entry(p.market, p.symbol).otherFees);
          return { market: p.market, symbol: p.symbol, quantity: shownQuantity(p.quantity, info), avgEntryPrice: shownAveragePrice(p.avgEntryPrice, info), realizedPnl: shownMoney(p.realizedPnl), fees: shownMoney(p.fees), feesOther };
        });
      const openOrders = app.journal.orders({ openOnly: true }).map((o) => ({
        clientOrderId: o.clientOrderId,
        strategyId: o.strategyId,
        market: o.market,
        symbol: o.symbol,
        side: o.side,
        type: o.type,
        ...(o.price !== undefined ? { price: o.price } : {}),
        volume: o.volume,
        executedVolume: o.executedVolume,
        status: o.status,
        createdAt: o.createdAt,
      }));
      const strategies = [
        ...engine.hosts.map((h) => {
          const until = engine.lossLimits?.blockedUntil(h.id);
          const s: OpsStatus['strategies'][number] = h.enabled ? { id: h.id, enabled: true } : { id: h.id, enabled: false, disabledReason: h.disabledBy?.message ?? 'disabled' };
          if (until !== undefined) s.lossLimitUntil = new Date(until).toISOString();
          return s;
        }),
        ...configDisabled,
      ];
      const drift = engine.reconciler.lastDrift.map((l) => ({
        market: l.market,
        // Spot drift is per asset (BTC), futures per contract; the symbols it covers say which.
        symbol: l.symbols.length ? l.symbols.join(',') : l.name,
        ours: l.expected,
        venue: l.venue,
        difference: l.difference,
      }));
      return {
        mode: config.mode,
        now,
        positions,
        openOrders,
        pnl: { realized: shownMoney(dec.sum(book.map((p) => p.realizedPnl))), fees: shownMoney(dec.sum(book.map((p) => p.fees))), feesOther: moneyByAsset(engine.positions.otherFees()) },
        limiter: Object.fromEntries(Object.entries(app.client.pacer.usage()).map(([e, u]) => [e, amend(u, { requests: watch.sent.get(e) ?? 0 })])),
        strategies,
        drift,
        clockOffsetMs: Math.round(app.client.venueClocks.spot.offsetMs()),
        fills: fills.latest(app),
        alerts: opts.alerts?.() ?? [],
        quoteAsset: equity.quote ?? null,
      };
    },

    history: (cursor) => recorder.history(cursor),
    onSample: (listener) => recorder.onSample(listener),

    sample(): void {
      const app = opts.app();
      if (!app?.engine.ready) return;
      const { engine } = app;
      const inputs = engine.riskInputs();
      const prices: Record<string, string> = {};
      for (const { market, symbol } of engine.activeSymbols()) {
        const last = inputs.lastPrices.get(`${market}:${symbol}`);
        if (last !== undefined) prices[`${market}:${symbol}`] = last;
      }
      const book = engine.positions.snapshot();
      recorder.record({
        at: opts.now(),
        prices,
        equity: equity.value(app.engine, inputs.lastPrices, inputs.instruments),
        realized: dec.sub(dec.sum(book.map((p) => p.realizedPnl)), dec.sum(book.map((p) => p.fees))),
      });
    },
  };
}

/** The latest fills: the journal's at the first look, then each the engine reports. */
class RecentFills {
  private app: App | undefined;
  private kept: OpsFill[] = [];

  latest(app: App): OpsFill[] {
    if (this.app !== app) {
      this.app = app;
      // Once per app: the journal's latest (a bounded read: a running daemon's loop waits on it,
      // however long the journal), newest first by time; later fills arrive as events. Fills
      // are journaled about in time order: the latest 4 x RECENT_FILLS journaled hold the newest
      // RECENT_FILLS unless hundreds of older trades were journaled after them (a long catch-up).
      const latest = app.journal.latestFills(4 * RECENT_FILLS).reverse().sort((a, b) => b.time - a.time);
      this.kept = latest.slice(0, RECENT_FILLS).map(opsFill);
      app.engine.events.on('fill', (f) => {
        this.kept.unshift(opsFill(f));
        this.kept.length = Math.min(this.kept.length, RECENT_FILLS);
      });
    }
    return this.kept;
  }
}

const opsFill = (f: Fill): OpsFill => ({
  tradeId: f.tradeId,
  market: f.market,
  symbol: f.symbol,
  side: f.side,
  price: f.price,
  volume: f.volume,
  fee: f.fee,
  feeAsset: f.feeAsset,
  isMaker: f.isMaker,
  time: f.time,
});

/** What EquityBase reads of the running engine. */
export interface EquityEngine {
  activeSymbols(): readonly { market: Market; symbol: string }[];
  readonly positions: PositionBook;
  readonly reconciler: { readonly holdings: { readonly balances: ReadonlyMap<string, Balance>; readonly margins: readonly MarginAccount[] } };
}

/**
 * Equity as the backtest report counts it: the account's value when the dashboard first could
 * price it (the venue's spot balances and, when futures trade, the futures wallet in the quote
 * coin, marked at the last prices), moved since by the PnL of our positions (realised and
 * unrealised, less fees), so the curve shows the strategies, not the coins the account merely
 * holds. The wallet is its available and frozen margin as the account read gives them: margin
 * already held by a position open at that first moment is not in it.
 */
export class EquityBase {
  quote: string | undefined;
  private base: Decimal | undefined;

  value(engine: EquityEngine, lastPrices: ReadonlyMap<string, Decimal>, instruments: ReadonlyMap<string, { quoteAsset: string; multiplier?: Decimal }>): string | undefined {
    const active = engine.activeSymbols();
    const first = active.find((a) => a.market === 'spot') ?? active[0];
    this.quote ??= first && instruments.get(`${first.market}:${first.symbol}`)?.quoteAsset;
    if (this.quote === undefined) return undefined;
    const quote = this.quote;
    const spotMid = (symbol: string) => lastPrices.get(`spot:${symbol}`);
    const pnl = equitySample(
      engine.positions,
      ZERO,
      0,
      (market, symbol) => lastPrices.get(`${market}:${symbol}`),
      (symbol) => instruments.get(`futures:${symbol}`)?.multiplier,
      (asset, amount) => assetValue(asset, amount, quote, spotMid),
    ).equity;
    if (this.base === undefined) {
      if (active.some((a) => !lastPrices.has(`${a.market}:${a.symbol}`))) return undefined;
      const futures = active.some((a) => a.market === 'futures');
      // The futures wallet is not read yet: the base would miss it for good.
      if (futures && engine.reconciler.holdings.margins.length === 0) return undefined;
      const wallets = futures ? engine.reconciler.holdings.margins.map((m) => ({ asset: m.coin, free: m.available ?? ZERO, locked: m.locked ?? ZERO })) : [];
      this.base = dec.sub(accountValue([...engine.reconciler.holdings.balances.values(), ...wallets], quote, spotMid), pnl);
    }
    return dec.add(this.base, pnl);
  }
}

/** The journal's ban end; 0 once it is closed (shutdown), when the pacer still knows. */
/** Each asset's amount as money is shown. */
function moneyByAsset(amounts: Readonly<Record<string, Decimal>>): Record<string, Decimal> {
  const shown: Record<string, Decimal> = {};
  for (const [asset, amount] of Object.entries(amounts)) shown[asset] = shownMoney(amount);
  return shown;
}

function journalBanUntil(app: App): number {
  try {
    return app.journal.banUntil();
  } catch {
    return 0;
  }
}
