// The daemon as the ops endpoint sees it: an OpsSource read from the running App at request
// time, plus the call tap that feeds metrics, venue reachability and ban alerts.
import { dec } from '../core/decimal.js';
import { BannedError } from '../core/errors.js';
import type { Config } from '../config/index.js';
import type { CallRecord } from '../executor/index.js';
import type { OpsHealth, OpsSource, OpsStatus } from '../ops/index.js';
import type { App } from './build.js';

/**
 * Transport-level failures in a row (no HTTP answer, or a 5xx) after which the venue counts as
 * unreachable. One lost answer is normal on the internet; three in a row is not.
 */
export const UNREACHABLE_AFTER_FAILURES = 3;

/** What the call tap learns from every finished venue call. */
export class VenueWatch {
  lastOkAt: number | null = null;
  private failuresInARow = 0;

  /** Give it every CallRecord; returns the BannedError when this call found a ban. */
  observe(record: CallRecord): BannedError | undefined {
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
}

export interface DaemonOpsSourceOptions {
  config: Config;
  /** The app is built after the source's call tap (buildApp takes onCall), so it is read late. */
  app: () => App | undefined;
  watch: VenueWatch;
  now: () => number;
}

const EMPTY_HEALTH: OpsHealth = { bannedUntil: 0, killSwitch: 'off', venueReachable: true, lastVenueOkAt: null };

export function createDaemonOpsSource(opts: DaemonOpsSourceOptions): OpsSource {
  const { config, watch } = opts;
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
      };
    },

    status(): OpsStatus {
      const app = opts.app();
      const now = opts.now();
      if (!app) {
        return { mode: config.mode, now, positions: [], openOrders: [], pnl: { realized: '0', fees: '0' }, limiter: {}, strategies: configDisabled, drift: [], clockOffsetMs: 0 };
      }
      const { engine } = app;
      const book = engine.positions.snapshot();
      const positions = book
        .filter((p) => !dec.isZero(p.quantity) || !dec.isZero(p.realizedPnl) || !dec.isZero(p.fees))
        .map((p) => ({ market: p.market, symbol: p.symbol, quantity: p.quantity, avgEntryPrice: p.avgEntryPrice, realizedPnl: p.realizedPnl, fees: p.fees }));
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
      }));
      const strategies = [
        ...engine.hosts.map((h) => (h.enabled ? { id: h.id, enabled: true } : { id: h.id, enabled: false, disabledReason: h.disabledBy?.message ?? 'disabled' })),
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
        pnl: { realized: dec.sum(book.map((p) => p.realizedPnl)), fees: dec.sum(book.map((p) => p.fees)) },
        limiter: app.client.pacer.usage(),
        strategies,
        drift,
        clockOffsetMs: Math.round(app.client.venueClock.offsetMs()),
      };
    },
  };
}

/** The journal's ban end; 0 once it is closed (shutdown), when the pacer still knows. */
function journalBanUntil(app: App): number {
  try {
    return app.journal.banUntil();
  } catch {
    return 0;
  }
}
