// What `sluice status` shows: the journal and the venue side by side. Read-only: it changes nothing in the
// journal (no adoption, no baselines, no order updates), so it is safe while the daemon runs.
import { dec } from '../core/decimal.js';
import { shownAveragePrice, shownMoney, shownQuantity } from '../core/display.js';
import type { Market, Order } from '../core/types.js';
import { describeDrift } from '../reconciler/drift.js';
import type { App } from './build.js';

export interface StatusReport {
  text: string;
  /** A position differs from the venue's beyond its tolerance. */
  drift: boolean;
  /**
   * Open orders disagree: one the journal holds open that the venue does not list (or not under
   * that id), or one the venue lists that the journal does not hold open.
   */
  ordersDisagree: boolean;
}

export async function statusReport(app: App): Promise<StatusReport> {
  const { engine, journal, readers } = app;
  const symbols = engine.activeSymbols();
  await engine.load();
  const positions = engine.positions;
  await engine.reconciler.readHoldings(new Set<Market>(symbols.map((s) => s.market)));
  const drift = engine.reconciler.driftNow(symbols);

  const lines: string[] = [];
  lines.push("positions (from the journal's fills)");
  // Shown rounded (core/display.ts): the book's average entry and realised PnL divide to 30 places.
  const { instruments } = engine.riskInputs();
  for (const { market, symbol } of symbols) {
    const p = positions.position(market, symbol);
    const info = instruments.get(`${market}:${symbol}`);
    lines.push(`  ${market} ${symbol}: ${shownQuantity(p.quantity, info)} at ${shownAveragePrice(p.avgEntryPrice, info)}, realised ${shownMoney(p.realizedPnl)}, fees ${shownMoney(p.fees)}`);
  }
  lines.push('venue vs journal');
  for (const l of drift) lines.push(`  ${l.beyond ? 'DRIFT' : 'ok   '} ${describeDrift(l)}`);
  if (drift.length === 0) lines.push('  (no account data to compare)');

  lines.push('open orders');
  let ordersDisagree = false;
  const ours = journal.orders({ openOnly: true });
  for (const { market, symbol } of symbols) {
    const page = await readers[market].openOrders(symbol);
    const mine = ours.filter((o) => o.market === market && o.symbol === symbol);
    const venueIds = new Set([...page.items.map((v) => v.orderId), ...page.skipped.flatMap((s) => (s.key ? [s.key] : []))]);
    const known = new Set(mine.map((o) => o.venueOrderId).filter(Boolean));
    const ourIds = new Set(mine.map((o) => o.clientOrderId as string));
    // Sent and not yet answered (a running daemon's), or answer lost: the reconciler settles
    // them; neither side can be judged by them yet.
    const inFlight = mine.filter((o) => o.status === 'pending' || o.status === 'unknown');
    lines.push(`  ${market} ${symbol}: ${mine.length} open in the journal, ${venueIds.size} open on the venue${page.complete ? '' : ' (a full page: there may be more)'}`);
    for (const o of mine) {
      const both = o.venueOrderId !== undefined && venueIds.has(o.venueOrderId);
      const flying = inFlight.includes(o);
      // Beyond an incomplete page an order may rest unseen: only a complete page proves it gone.
      if (!both && !flying && (page.complete || !o.venueOrderId)) ordersDisagree = true;
      lines.push(`    ${both ? 'both        ' : flying ? 'in flight   ' : 'journal only'} ${describeOrder(o)}`);
    }
    for (const v of page.items.filter((x) => !known.has(x.orderId))) {
      // One of ours the venue lists before the journal has its id: by its client id, or, when the venue lists none, maybe.
      const ours = v.clientOrderId !== undefined && ourIds.has(v.clientOrderId);
      const maybeOurs = !ours && v.clientOrderId === undefined && inFlight.length > 0;
      if (!ours && !maybeOurs) ordersDisagree = true;
      const label = ours ? 'venue (ours)' : maybeOurs ? 'venue only? ' : 'venue only  ';
      lines.push(`    ${label} ${v.clientOrderId ?? '-'} #${v.orderId} ${v.side} ${v.type} ${v.origQty}${v.price ? ` @ ${v.price}` : ''} executed ${v.executedQty}${maybeOurs ? ' (maybe one of ours in flight)' : ''}`);
    }
    for (const s of page.skipped) lines.push(`    unreadable   ${s.key ? `#${s.key} ` : ''}${s.problem}`);
  }
  let fills = 0;
  for (const _ of journal.eachFill()) fills++;
  lines.push(`journal: ${fills} fills, ban until ${journal.banUntil() > 0 ? new Date(journal.banUntil()).toISOString() : 'none'}`);
  return { text: lines.join('\n'), drift: drift.some((l) => l.beyond), ordersDisagree };
}

function describeOrder(o: Order): string {
  const filled = dec.isZero(o.executedVolume) ? '' : ` executed ${o.executedVolume}`;
  return `${o.clientOrderId} #${o.venueOrderId ?? '?'} ${o.side} ${o.type} ${o.volume}${o.price ? ` @ ${o.price}` : ''} ${o.status}${filled}`;
}
