// The periodic summary line (and the ops endpoint's figures): orders, fills, positions, PnL,
// fees and the limiter, from the journal and the position book. A log line is for people:
// money is rounded to MONEY_PLACES (the book's realised PnL divides to 30 places); positions are
// sums of fill volumes, so they already have their instrument's quantity precision.
import { dec } from '../core/decimal.js';
import { shownFees, shownMoney } from '../core/display.js';
import type { Journal, Pacer } from '../core/ports.js';
import type { PositionBook } from '../positions/index.js';
import type { PipelineStats } from './pipeline.js';

export interface SummaryInputs {
  journal: Journal;
  positions: PositionBook;
  pacer: Pacer;
  pipeline: PipelineStats;
  engine: { fills: number; riskRejections: number };
  disabled: string[];
}

export function summarize({ journal, positions: book, pacer, pipeline: p, engine, disabled }: SummaryInputs): Record<string, unknown> {
  const positions = book.snapshot().filter((x) => !dec.isZero(x.quantity) || !dec.isZero(x.realizedPnl));
  const usage = Object.fromEntries(
    Object.entries(pacer.usage())
      .filter(([, u]) => u.inWindow > 0 || u.queued > 0)
      .map(([e, u]) => [e, `${u.inWindow}/${u.limit}${u.queued ? ` +${u.queued} queued` : ''}`]),
  );
  return {
    orders: { sent: p.sent, open: journal.orders({ openOnly: true }).length, rejected: p.rejected, unknown: p.unknown, riskRejected: engine.riskRejections },
    fills: engine.fills,
    // Keyed by market too: a spot and a futures symbol may share a name.
    positions: Object.fromEntries(positions.map((x) => [`${x.market}:${x.symbol}`, x.quantity])),
    realizedPnl: shownMoney(dec.sum(positions.map((x) => x.realizedPnl))),
    // The quote's, and each other asset's beside it (a spot buy's fee in the base coin).
    fees: shownFees(dec.sum(positions.map((x) => x.fees)), book.otherFees()),
    limiter: usage,
    disabled,
  };
}
