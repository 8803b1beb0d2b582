// What `sluice status` shows: the journal and the venue side by side. Read-only: it changes nothing in the
// journal (no adoption, no baselines, no order updates), so it is safe while the daemon runs.
import { dec, type Decimal } from '../core/decimal.js';
import { shownAveragePrice, shownFees, shownMoney, shownQuantity } from '../core/display.js';
import { PRUNED_KEY } from '../core/ids.js';
import type { Journal } from '../core/ports.js';
import type { SymbolInfo } from '../core/market.js';
import type { Market, Order, OrderStatus, Position } from '../core/types.js';
import type { PrunedNote } from '../store/prune.js';
import { describeDrift } from '../reconciler/drift.js';
import type { HoldingsRead } from '../reconciler/drift-judge.js';
import type { App } from './build.js';

export interface StatusReport {
  text: string;
  /** A position differs from the venue's beyond its tolerance (and, in a second look, lasted). */
  drift: boolean;
  /**
   * Open orders disagree: one the journal holds open that the venue does not list (or not under
   * that id), or one the venue lists that the journal does not hold open (and, in a second look,
   * the same one did in the first).
   */
  ordersDisagree: boolean;
  /** What this look saw differ, by what it concerns: `position:spot:BTC`, `journal:<client id>`, `venue:spot:BTCUSDT:<id>`. */
  differences: ReadonlySet<string>;
  /** This look's holdings reads, and the journal's last fill before them: a second look judges them again. */
  reads: { holdings: ReadonlyMap<Market, HoldingsRead>; afterFillId: number };
}

/** What `sluice status` knows of the strategies beyond the app: the config's list, and what a running daemon says. */
export interface StatusStrategies {
  /** Every strategy the config names (those with `enabled: false` have no host). */
  configured?: readonly { id: string; market: Market; symbols: readonly string[]; enabled: boolean }[];
  /** The running daemon's word (its /status.json), when its ops endpoint answered. */
  daemon?: readonly { id: string; enabled: boolean; disabledReason?: string }[];
}

/** Engines whose strategies' own books statusReport loaded (the ledger replays the journal once). */
const ownLoaded = new WeakSet<object>();

/** Awaiting the venue's answer or its settling (a running daemon's, or an answer lost): the reconciler settles them. */
const IN_FLIGHT: ReadonlySet<OrderStatus> = new Set(['pending', 'unknown', 'pending_cancel']);

/**
 * One look. `first`, the look graceMs before this one: a difference counts only when it saw the
 * same one (the same position line, the same order), and a position's only when its read, judged
 * against the fills journaled since that the venue booked before it, still differs: a busy daemon
 * always has fills and answers on their way, a different few at each look.
 */
export async function statusReport(app: App, first?: StatusReport, known: StatusStrategies = {}): Promise<StatusReport> {
  const { engine, journal, readers } = app;
  const symbols = engine.activeSymbols();
  // Each strategy's own books too (its own position), from the same read of the journal; they
  // load once per engine (a second look in the same process keeps the first's).
  await engine.load({ strategiesOwn: !ownLoaded.has(engine) });
  ownLoaded.add(engine);
  const positions = engine.positions;
  const afterFillId = journal.lastFillId();
  await engine.reconciler.holdings.read(new Set<Market>(symbols.map((s) => s.market)));
  const drift = engine.reconciler.driftNow(symbols);
  const then = first ? engine.reconciler.driftThen(symbols, first.reads.holdings, first.reads.afterFillId) : [];
  const differences = new Set<string>();
  /** Why a difference this look saw does not count; undefined when it does. */
  const notCounted = (key: string, explained = false): string | undefined => {
    differences.add(key);
    if (!first) return undefined;
    if (!first.differences.has(key)) return 'not counted: new since the first look';
    return explained ? "not counted: fills journaled since explain the first look's difference" : undefined;
  };

  const lines: string[] = [];
  lines.push(`positions (${positionsSource(journal, engine.checkpoint.covers)})`);
  // Shown rounded (core/display.ts): the book's average entry and realised PnL divide to 30 places.
  const { instruments } = engine.riskInputs();
  for (const { market, symbol } of symbols) {
    const p = positions.position(market, symbol);
    const info = instruments.get(`${market}:${symbol}`);
    lines.push(`  ${market} ${symbol}: ${positionLine(p, positions.entry(market, symbol).otherFees, info)}`);
  }
  lines.push(...strategyLines(app, known));
  lines.push('venue vs journal');
  let drifting = false;
  for (const l of drift) {
    const explained = then.some((t) => t.market === l.market && t.name === l.name && !t.beyond);
    const why = l.beyond ? notCounted(`position:${l.market}:${l.name}`, explained) : undefined;
    if (l.beyond && !why) drifting = true;
    lines.push(`  ${!l.beyond ? 'ok   ' : why ? 'late ' : 'DRIFT'} ${describeDrift(l)}${why ? ` (${why})` : ''}`);
  }
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
    // Neither side can be judged by an order in flight yet. One awaiting its answer may be a
    // venue order the journal has no id for; a cancel the venue accepted may have left the book.
    const awaiting = mine.some((o) => o.status === 'pending' || o.status === 'unknown');
    lines.push(`  ${market} ${symbol}: ${mine.length} open in the journal, ${venueIds.size} open on the venue${page.complete ? '' : ' (a full page: there may be more)'}`);
    for (const o of mine) {
      const both = o.venueOrderId !== undefined && venueIds.has(o.venueOrderId);
      const flying = IN_FLIGHT.has(o.status);
      // Beyond an incomplete page an order may rest unseen: only a complete page proves it gone.
      const differs = !both && !flying && (page.complete || !o.venueOrderId);
      const why = differs ? notCounted(`journal:${o.clientOrderId}`) : undefined;
      if (differs && !why) ordersDisagree = true;
      lines.push(`    ${both ? 'both        ' : flying ? 'in flight   ' : 'journal only'} ${describeOrder(o)}${why ? ` (${why})` : ''}`);
    }
    for (const v of page.items.filter((x) => !known.has(x.orderId))) {
      // One of ours the venue lists before the journal has its id: by its client id, or, when the venue lists none, maybe.
      const ours = v.clientOrderId !== undefined && ourIds.has(v.clientOrderId);
      const maybeOurs = !ours && v.clientOrderId === undefined && awaiting;
      const why = !ours && !maybeOurs ? notCounted(`venue:${market}:${symbol}:${v.orderId}`) : undefined;
      if (!ours && !maybeOurs && !why) ordersDisagree = true;
      const label = ours ? 'venue (ours)' : maybeOurs ? 'venue only? ' : 'venue only  ';
      const note = maybeOurs ? ' (maybe one of ours in flight)' : why ? ` (${why})` : '';
      lines.push(`    ${label} ${v.clientOrderId ?? '-'} #${v.orderId} ${v.side} ${v.type} ${v.origQty}${v.price ? ` @ ${v.price}` : ''} executed ${v.executedQty}${note}`);
    }
    for (const s of page.skipped) lines.push(`    unreadable   ${s.key ? `#${s.key} ` : ''}${s.problem}`);
  }
  let fills = 0;
  for (const _ of journal.eachFill()) fills++;
  lines.push(`journal: ${fills} fills, ban until ${journal.banUntil() > 0 ? new Date(journal.banUntil()).toISOString() : 'none'}`);
  lines.push(`journal: ${lastPrune(journal)}`);
  return { text: lines.join('\n'), drift: drifting, ordersDisagree, differences, reads: { holdings: engine.reconciler.holdingsReads(), afterFillId } };
}

/**
 * Per strategy: enabled or disabled and why, its open orders, a loss limit that blocks it now,
 * and its own position in each of its symbols (ctx.ownPosition), rounded as the account's lines.
 */
function strategyLines({ engine, journal }: App, known: StatusStrategies): string[] {
  const lines = ['strategies'];
  const { instruments } = engine.riskInputs();
  const daemon = new Map((known.daemon ?? []).map((s) => [s.id, s]));
  const hosted = engine.hosts.map((h) => ({ id: h.id, market: h.setup.market, symbols: h.setup.symbols, off: false, why: h.enabled ? undefined : (h.disabledReason ?? 'disabled') }));
  const off = (known.configured ?? []).filter((c) => !c.enabled && !hosted.some((h) => h.id === c.id));
  const open = journal.orders({ openOnly: true });
  for (const s of [...hosted, ...off.map((c) => ({ id: c.id, market: c.market, symbols: c.symbols, off: true, why: 'enabled: false in the config' }))]) {
    // The running daemon's word over this process's own load of the plugin (here it only loads).
    const said = s.off ? undefined : daemon.get(s.id);
    const state =
      said !== undefined
        ? said.enabled
          ? 'running in the daemon'
          : `disabled by the running daemon (${said.disabledReason ?? 'no reason given'})`
        : s.why !== undefined
          ? `disabled (${s.why})`
          : 'enabled';
    const orders = open.filter((o) => o.strategyId === s.id).length;
    const parts = [`${s.id} (${s.market}): ${state}`, `${orders} open order${orders === 1 ? '' : 's'}`];
    const blocked = engine.lossLimits?.blockedDay(s.id);
    if (blocked) {
      const lost = blocked.breachPnl === undefined ? '' : ` (lost ${shownMoney(blocked.breachPnl)} on UTC ${blocked.day}, past its daily limit of ${engine.lossLimits?.limitOf(s.id) ?? '?'})`;
      parts.push(`loss limit hit until ${new Date(blocked.blockedUntil).toISOString()}${lost}`);
    }
    lines.push(`  ${parts.join('; ')}`);
    for (const symbol of s.symbols) {
      const p = engine.view.ownPosition(s.id, s.market, symbol);
      const info = instruments.get(`${s.market}:${symbol}`);
      lines.push(`    ${symbol}: ${positionLine(p, p.otherFees, info)}`);
    }
  }
  if (lines.length === 1) lines.push('  (none)');
  return lines;
}

/**
 * A position as status shows it, the account's and a strategy's own alike: quantity, average
 * entry, realised PnL and fees (with those paid in other assets), rounded (core/display.ts).
 */
function positionLine(p: Position, otherFees: Readonly<Record<string, Decimal>>, info: SymbolInfo | undefined): string {
  return `${shownQuantity(p.quantity, info)} at ${shownAveragePrice(p.avgEntryPrice, info)}, realised ${shownMoney(p.realizedPnl)}, fees ${shownFees(p.fees, otherFees, info?.quoteAsset)}`;
}

/** Where the positions shown come from: the checkpoint restored and the fills after it, or every fill. */
function positionsSource(journal: Journal, through: number | undefined): string {
  if (through === undefined) {
    const pruned = journal.cursor(PRUNED_KEY) === undefined ? '' : '; the journal was pruned, so the fills it deleted are not in them: compare with the venue below';
    return `from every fill the journal holds${pruned}`;
  }
  let after = 0;
  for (const { id } of journal.eachFill(through)) if (id > through) after++;
  return `the positions checkpoint through fill ${through}, and the ${after} fill${after === 1 ? '' : 's'} journaled after it`;
}

/** The last prune that deleted something (store/prune.ts notes only those), as its note says it. */
function lastPrune(journal: Journal): string {
  const text = journal.cursor(PRUNED_KEY);
  if (text === undefined) return 'never pruned';
  let note: Partial<PrunedNote>;
  try {
    note = JSON.parse(text) as Partial<PrunedNote>;
  } catch {
    return `pruned (its note does not read: ${text.slice(0, 200)})`;
  }
  const iso = (ms: unknown) => (typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : '?');
  const d = note.deleted;
  const what = d ? `deleted ${d.orders} orders, ${d.events} order events, ${d.intents} intents, ${d.fills} fills` : 'what it deleted is not recorded';
  return `last pruned ${iso(note.at)}: final orders last updated before ${iso(note.before)}, fills up to ${note.throughFill ?? '?'}; ${what}`;
}

function describeOrder(o: Order): string {
  const filled = dec.isZero(o.executedVolume) ? '' : ` executed ${o.executedVolume}`;
  return `${o.clientOrderId} #${o.venueOrderId ?? '?'} ${o.side} ${o.type} ${o.volume}${o.price ? ` @ ${o.price}` : ''} ${o.status}${filled}`;
}
