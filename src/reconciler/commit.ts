// A symbol's pass, journaled: the decisions first, then its fills in commits of at most
// FILLS_PER_COMMIT, the event loop breathing between them. A saturated daemon reads ~600 fills
// a pass, and one commit of them all (with the order updates, position book and handlers
// behind it) held the event loop for 100-300 ms, delaying every answer and timer meanwhile.
//
// Safe to cut because:
// - the trade cursor moves only with the last commit, so a crash between commits leaves the
//   committed fills behind the cursor: the next pass reads them again and drops them (the
//   journal and the position book key fills by trade id);
// - after a breath, the pipeline may have written an order meanwhile (an answer, a cancel): a
//   fill builds on the journal's version, and an absent order that someone else changed since
//   is left for the next pass's page to judge.
import type { Journal } from '../core/ports.js';
import { FINAL_STATUSES, type Fill, type Market, type Order } from '../core/types.js';
import type { VenueTrade } from '../core/venue.js';
import type { FillTotals } from './fill-totals.js';
import { afterFills, ownOrderId, toFill } from './fills.js';
import type { SymbolDecision } from './pass.js';
import { cancelsShown, settleAbsent } from './settle.js';
import type { CoverageLog } from './unknown.js';

/** Order look-ups (20 per 2 s on the venue) per symbol and pass: queries never crowd out the other reads. */
export const QUERIES_PER_PASS = 4;

/** Orders whose cancel was accepted, waiting for their fills to show, that are asked about rather than waited for: one batch cancel's worth. */
const CANCELS_ASKED_AT_MOST = 10;

/** New fills journaled per commit. */
export const FILLS_PER_COMMIT = 50;

export interface CommitInput {
  market: Market;
  symbol: string;
  trades: readonly VenueTrade[];
  decision: SymbolDecision;
  now: number;
  /** Where the trade cursor moves with the last commit, if it moves. */
  cursor: string | undefined;
  /** The symbol's read coverage (the poller's): when trades have shown every fill of an order gone from the book. */
  coverage: CoverageLog;
}

export interface CommitDeps {
  journal: Journal;
  /** Whether this side of this trade is in the position book already. */
  applied(fill: Fill): boolean;
  fillTotals: FillTotals;
  breathe(): Promise<void>;
}

/** What one commit wrote: told to the engine before the next commit. */
export interface Committed {
  /** Each with its order as it was before the fill (the poller tells the journal's version after the commit). */
  fills: { fill: Fill; order: Order | undefined }[];
  /** The orders it changed, each in its latest version, in the order first changed. */
  changed: Order[];
}

/** Journals a pass; `told` hears each commit before the next begins. Returns the orders to query. */
export async function commitPass(input: CommitInput, deps: CommitDeps, told: (part: Committed) => Promise<void>): Promise<Order[]> {
  const { market, symbol, trades, decision: d, now, cursor } = input;
  const { journal, fillTotals } = deps;
  const changes = d.changes;
  let next = 0;
  let breathed = false;
  // Until the first breath nothing else has written: this pass's versions are the latest.
  const latest = (o: Order) => (breathed ? (journal.order(o.clientOrderId) ?? changes.get(o)) : changes.get(o));

  for (let first = true; ; first = false) {
    if (!first) {
      await deps.breathe();
      breathed = true;
    }
    const changed = new Map<string, Order>();
    const write = (o: Order, reason: string) => {
      journal.updateOrder(o, reason);
      changes.note(o);
      changed.set(o.clientOrderId, o);
    };
    let part: { fills: Committed['fills']; toQuery?: Order[] };
    try {
      part = journal.transaction(() => {
        if (first) {
          for (const a of d.adoptions) journal.recordIntent(a.intent, a.order);
          for (const c of changes.list) {
            journal.updateOrder(c.order, c.reason);
            changed.set(c.order.clientOrderId, changes.get(c.order));
          }
        }
        const fills: Committed['fills'] = [];
        for (; next < trades.length && fills.length < FILLS_PER_COMMIT; next++) {
          const t = trades[next]!;
          const id = ownOrderId(t)!;
          const owner = d.claimant(id);
          if (!owner) continue;
          const fill = toFill(t, market, symbol, id);
          // Trades re-read within graceMs are mostly ours already: the book knows, cheaper than a write.
          if (deps.applied(fill) || !journal.recordFill(fill)) continue;
          const before = latest(owner);
          const after = afterFills(before, fillTotals.add(fill), now);
          if (after) write(after, `fill ${fill.tradeId}`);
          fills.push({ fill, order: before });
        }
        if (next < trades.length) return { fills };
        const toQuery = settle(d, journal, fillTotals, { market, symbol, now, breathed, coverage: input.coverage }, write);
        // The cursor moves in the commit of the last fills it passes, never ahead of them.
        if (cursor !== undefined) journal.setCursor(`trades:${market}:${symbol}`, cursor);
        return { fills, toQuery };
      });
    } catch (err) {
      fillTotals.clear(); // it counted fills the failed commit did not keep
      throw err;
    }
    await told({ fills: part.fills, changed: [...changed.values()] });
    if (part.toQuery) return part.toQuery;
  }
}

/** Orders that left the book, settled where the evidence is enough; returns the ones to ask the venue about. */
function settle(
  d: SymbolDecision,
  journal: Journal,
  fillTotals: FillTotals,
  pass: { market: Market; symbol: string; now: number; breathed: boolean; coverage: CoverageLog },
  write: (o: Order, reason: string) => void,
): Order[] {
  const toQuery: Order[] = [];
  const waiting: Order[] = [];
  const cancelling = d.open.absent.map((o) => d.changes.get(o)).filter((o) => o.status === 'pending_cancel');
  const shown = cancelsShown(pass.coverage, cancelling, d.open.askedAt);
  for (const o of d.open.absent) {
    const mine = d.changes.get(o);
    if (FINAL_STATUSES.has(mine.status)) continue;
    if (pass.breathed && changedSince(journal.order(o.clientOrderId), mine)) continue;
    const settled = settleAbsent(mine, fillTotals.of(pass.market, pass.symbol, mine.venueOrderId!), pass.now, shown.has(mine.clientOrderId));
    if (settled === 'query') toQuery.push(mine);
    else if (settled === 'wait') waiting.push(mine);
    else write(settled.order, settled.reason);
  }
  // Cancels waiting for their fills to show, up to a batch cancel's worth, are asked about
  // (QUERIES_PER_PASS a pass) and settle in a pass or three: a stop-loss waits for the sell it
  // cancelled. More at once (a stop, a mass cancel) wait for the trades, as the venue's 20 order
  // queries per 2 s could not keep up.
  if (waiting.length <= CANCELS_ASKED_AT_MOST) toQuery.push(...waiting);
  // Beyond an incomplete page, only orders we asked to cancel are worth a query: the rest
  // may simply be resting past the page's end.
  toQuery.push(...d.open.unseen.map((o) => d.changes.get(o)).filter((o) => o.status === 'pending_cancel'));
  return toQuery;
}

/** Whether another writer changed the order after this pass's version of it. */
function changedSince(stored: Order | undefined, mine: Order): boolean {
  return stored !== undefined && (stored.status !== mine.status || stored.executedVolume !== mine.executedVolume || stored.updatedAt !== mine.updatedAt);
}
