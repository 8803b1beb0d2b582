// Whether protective exits may judge a symbol's last price: only a fresh one, read within
// STALE_AFTER_POLLS market-data poll intervals. A ticker read that fails (the venue down for that
// read) leaves the last price as it was; judged later, an old price could fire an exit (or move a
// trailing stop's best) on a market that is no longer there. While a position with exits has no
// fresh price, exits are blind there: said once per symbol (and once when a fresh price is back),
// and alerted once the blindness lasts BLIND_ALERT_AFTER_MS (or BLIND_ALERT_AFTER_POLLS poll
// intervals, whichever is longer).
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { Log } from '../core/log.js';
import type { AlertKind, Market } from '../core/types.js';

/** A price older than this many poll intervals is stale: two polls in a row did not read one. */
export const STALE_AFTER_POLLS = 3;
/** Blind this long (at least) raises an `exit` alert. */
export const BLIND_ALERT_AFTER_MS = 60_000;
export const BLIND_ALERT_AFTER_POLLS = 20;

export interface BlindDeps {
  clock: Clock;
  log: Log;
  /** engine.marketDataEveryMs: exits' ticker feeds are polled at least this often. */
  pollEveryMs: number;
  alert?: ((kind: AlertKind, message: string, details: Record<string, unknown>) => void) | undefined;
}

interface Blind {
  market: Market;
  symbol: string;
  since: number;
  alerted: boolean;
  /** Noted in the pass under way. */
  seen: boolean;
}

/** Whether a price read at `at` may be judged at `now`: read within STALE_AFTER_POLLS poll intervals (the exits' and the loss limits' rule). */
export function priceFresh(at: number | undefined, now: number, pollEveryMs: number): boolean {
  return at !== undefined && now - at <= STALE_AFTER_POLLS * pollEveryMs;
}

export class BlindPrices {
  private readonly blind = new Map<string, Blind>();
  readonly freshMs: number;
  readonly alertAfterMs: number;

  constructor(private readonly deps: BlindDeps) {
    this.freshMs = STALE_AFTER_POLLS * deps.pollEveryMs;
    this.alertAfterMs = Math.max(BLIND_ALERT_AFTER_MS, BLIND_ALERT_AFTER_POLLS * deps.pollEveryMs);
  }

  /** Whether a price read at `at` (engine clock) may be judged now. */
  fresh(at: number | undefined): boolean {
    return priceFresh(at, this.deps.clock.now(), this.deps.pollEveryMs);
  }

  /** A pass starts: what is not noted again by its end is no longer blind. */
  begin(): void {
    for (const b of this.blind.values()) b.seen = false;
  }

  /** A position with exits in `symbol` has no fresh price this pass (`last` as it was, read at `at`). */
  note(market: Market, symbol: string, strategy: string, last: Decimal | undefined, at: number | undefined): void {
    const { clock, log } = this.deps;
    const k = `${market}:${symbol}`;
    const now = clock.now();
    let b = this.blind.get(k);
    const lastReadAt = at === undefined ? null : new Date(at).toISOString();
    if (!b) {
      b = { market, symbol, since: now, alerted: false, seen: true };
      this.blind.set(k, b);
      log.warn({ market, symbol, strategy, last: last ?? null, lastReadAt, freshMs: this.freshMs }, 'exits: no fresh price; exits of this symbol are not judged until one is read');
    }
    b.seen = true;
    if (!b.alerted && now - b.since >= this.alertAfterMs) {
      b.alerted = true;
      const message = `exits of ${market} ${symbol} have had no fresh price for ${Math.round((now - b.since) / 1000)} s (the last ${last ?? 'none'}, read ${lastReadAt ?? 'never'}): stop-loss, take-profit and trailing stop are not judged there until the venue answers ticker reads again. Check the venue and the position`;
      this.deps.alert?.('exit', message, { market, symbol, strategy, last: last ?? null, lastReadAt, blindMs: now - b.since });
    }
  }

  /** A pass ended: a symbol not noted is judged again (said once) or has no position with exits left. */
  end(freshNow: (market: Market, symbol: string) => boolean): void {
    const now = this.deps.clock.now();
    for (const [k, b] of this.blind) {
      if (b.seen) continue;
      this.blind.delete(k);
      if (freshNow(b.market, b.symbol)) this.deps.log.info({ market: b.market, symbol: b.symbol, blindMs: now - b.since }, 'exits: a fresh price again; exits of this symbol are judged again');
    }
  }
}
