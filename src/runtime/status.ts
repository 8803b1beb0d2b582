// `sluice status`: the journal and the venue side by side. Read-only: it changes nothing in the
// journal (no adoption, no baselines, no order updates), so it is safe while the daemon runs.
import { dec } from '../core/decimal.js';
import type { Market, Order } from '../core/types.js';
import type { VenueOrder } from '../core/venue.js';
import { describeDrift } from '../reconciler/drift.js';
import type { App } from './wire.js';

export async function statusReport(app: App): Promise<{ text: string; drift: boolean }> {
  const { engine, journal } = app;
  const symbols = engine.activeSymbols();
  await engine.loadInstruments();
  const positions = engine.positionsFromJournal();
  const markets = new Set<Market>(symbols.map((s) => s.market));
  await engine.reconciler.refreshAccounts(markets);
  const drift = engine.reconciler.drift(symbols, false);

  const lines: string[] = [];
  lines.push('positions (from the journal\'s fills)');
  for (const { market, symbol } of symbols) {
    const p = positions.position(market, symbol);
    lines.push(`  ${market} ${symbol}: ${p.quantity} at ${p.avgEntryPrice}, realised ${p.realizedPnl}, fees ${p.fees}`);
  }
  lines.push('venue vs journal');
  for (const l of drift) lines.push(`  ${l.beyond ? 'DRIFT' : 'ok   '} ${describeDrift(l)}`);
  if (drift.length === 0) lines.push('  (no account data to compare)');

  lines.push('open orders');
  const ours = journal.orders({ openOnly: true });
  for (const { market, symbol } of symbols) {
    const venue: VenueOrder[] = (
      market === 'spot' ? await app.client.executor.call('spot.openOrders', { symbol }) : await app.client.executor.call('futures.openOrders', { contractName: symbol })
    ).items;
    const mine = ours.filter((o) => o.market === market && o.symbol === symbol);
    const venueIds = new Set(venue.map((v) => v.orderId));
    const known = new Set(mine.map((o) => o.venueOrderId).filter(Boolean));
    lines.push(`  ${market} ${symbol}: ${mine.length} open in the journal, ${venue.length} open on the venue`);
    for (const o of mine) lines.push(`    ${o.venueOrderId && venueIds.has(o.venueOrderId) ? 'both        ' : 'journal only'} ${describeOrder(o)}`);
    for (const v of venue.filter((x) => !known.has(x.orderId))) {
      lines.push(`    venue only   ${v.clientOrderId ?? '-'} #${v.orderId} ${v.side} ${v.type} ${v.origQty}${v.price ? ` @ ${v.price}` : ''} executed ${v.executedQty}`);
    }
  }
  lines.push(`journal: ${journal.fills().length} fills, ban until ${journal.banUntil() > 0 ? new Date(journal.banUntil()).toISOString() : 'none'}`);
  return { text: lines.join('\n'), drift: drift.some((l) => l.beyond) };
}

function describeOrder(o: Order): string {
  const filled = dec.isZero(o.executedVolume) ? '' : ` executed ${o.executedVolume}`;
  return `${o.clientOrderId} #${o.venueOrderId ?? '?'} ${o.side} ${o.type} ${o.volume}${o.price ? ` @ ${o.price}` : ''} ${o.status}${filled}`;
}
