// The end of a stop, after strategies have stopped and the queue is settled: cancel our open
// orders when the config says so, and reconcile a last few times so the final fills and the
// cancels' outcomes are journaled now rather than at the next start.
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { Journal } from '../core/ports.js';
import type { CancelIntent } from '../core/types.js';
import type { OrderPipeline } from './pipeline.js';

/** At most this many reconcile passes at shutdown, this far apart, while cancels settle. */
export const FINAL_PASSES = 8;
const FINAL_PASS_GAP_MS = 300;

export interface StopSettlement {
  journal: Journal;
  clock: Clock;
  log: Log;
  pipeline: OrderPipeline;
  /** Ids of our strategies: an adopted order belongs to whoever placed it by hand. */
  ours: ReadonlySet<string>;
  /** engine.shutdown.cancelOpenOrders. */
  cancel: boolean;
  /** One pass reading everything (all open orders, trades to the end). */
  reconcile(): Promise<void>;
}

export async function settleAtStop({ journal, clock, log, pipeline, ours, cancel, reconcile }: StopSettlement): Promise<void> {
  const ourOpen = () => journal.orders({ openOnly: true }).filter((o) => ours.has(o.strategyId));
  // An order without a venue id yet (its answer lost) gets its cancel once a pass finds it.
  const cancelOurs = async () => {
    pipeline.submit(ourOpen().map((o): CancelIntent => ({ kind: 'cancel', intentId: `${o.clientOrderId}:shutdown`, strategyId: o.strategyId, market: o.market, symbol: o.symbol, clientOrderId: o.clientOrderId })));
    await pipeline.drain();
  };
  if (cancel) await cancelOurs();
  // A venue settles a cancel a moment after accepting it, and an order whose answer was lost
  // shows only on a pass. A venue that cannot answer leaves the rest to the next start.
  for (let pass = 0; pass < FINAL_PASSES; pass++) {
    if (pass > 0) await clock.sleep(FINAL_PASS_GAP_MS);
    try {
      await reconcile();
    } catch (err) {
      log.warn({ reason: errorText(err) }, 'final reconcile failed; the next start settles it');
      break;
    }
    if (!cancel || ourOpen().length === 0) break;
    await cancelOurs();
  }
}
