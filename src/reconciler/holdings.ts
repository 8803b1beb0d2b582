// The account's holdings as the reconciler last read them: spot balances (and when that read was
// asked), futures margin accounts. Each read goes to the drift judge with the venue-time window
// it was answered in; the spot fills booked after it are added for risk and strategies
// (balance-credits.ts). A failed read keeps the last figures.
import { AuthError, errorText } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import type { Log } from '../core/log.js';
import type { SymbolInfo } from '../core/market.js';
import type { AccountReader, MarginAccount } from '../core/ports.js';
import type { Balance, Fill, Market } from '../core/types.js';
import { BalanceCredits } from './balance-credits.js';
import type { DriftJudge } from './drift-judge.js';
import type { VenueTimes } from './venue-times.js';

export interface HoldingsDeps {
  readers: Readonly<Record<Market, AccountReader>>;
  clock: Clock;
  log: Log;
  instruments: ReadonlyMap<string, SymbolInfo>;
  times: Pick<VenueTimes, 'current'>;
  drift: Pick<DriftJudge, 'record'>;
}

export class Holdings {
  /** Spot balances as last read, and when that read was sent (our clock). */
  balances: ReadonlyMap<string, Balance> = new Map();
  balancesAskedAt = Number.NEGATIVE_INFINITY;
  /** Futures margin accounts as last read. */
  margins: readonly MarginAccount[] = [];
  private readonly credits = new BalanceCredits();

  constructor(private readonly deps: HoldingsDeps) {}

  /** Reads each market's holdings. True when every one was read. */
  async read(markets: ReadonlySet<Market>): Promise<boolean> {
    const { readers, clock, log, times, drift } = this.deps;
    let all = true;
    for (const market of markets) {
      const sentAt = clock.now();
      try {
        const holdings = await readers[market].holdings();
        const answeredAt = clock.now();
        const { offsetMs, errorMs, slack } = times.current();
        drift.record(market, holdings, sentAt + offsetMs - errorMs, answeredAt + offsetMs + errorMs, answeredAt);
        if (market === 'spot') {
          this.balances = new Map(holdings.balances.map((b) => [b.asset, b]));
          this.balancesAskedAt = sentAt;
          // Trade stamps come from the matching engine, whose clock the time endpoint's may not
          // follow: the margin the reconciler allows them (venue-times.ts), so none counts twice.
          this.credits.read(answeredAt + offsetMs + slack.earlyMs);
        } else this.margins = holdings.margins ?? [];
      } catch (err) {
        if (err instanceof AuthError) throw err;
        all = false;
        log.warn({ err: errorText(err), market }, `${market} account read failed; keeping the last figures`);
      }
    }
    return all;
  }

  /** A fill just journaled: a spot one booked after the last read moves the balances risk judges. */
  booked(fill: Fill): void {
    this.credits.fill(fill, this.deps.instruments.get(`spot:${fill.symbol}`));
  }

  /** Spot balances as risk and strategies judge them: the last read with the fills booked after it. */
  balancesNow(): ReadonlyMap<string, Balance> {
    return this.credits.apply(this.balances);
  }
}
