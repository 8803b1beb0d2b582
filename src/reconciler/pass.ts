// One symbol's reads, decided: what the open orders and trades the venue just showed change in
// our orders, which lost answers they settle, what is foreign, and which trades are still
// awaited. Pure: the poller journals and reports what this returns.
import { amend } from '../core/amend.js';
import { dec, ZERO } from '../core/decimal.js';
import type { VenueOrderId } from '../core/ids.js';
import type { OpenOrdersPage } from '../core/ports.js';
import type { Market, Order, PlaceIntent } from '../core/types.js';
import type { VenueOrder, VenueTrade } from '../core/venue.js';
import { ownOrderId } from './fills.js';
import { adoptedOrder, foreignAction } from './foreign.js';
import { readOpenOrders, type OpenOrdersResult, type OrderChange } from './open-orders.js';
import { couldBe, matchUnknown, openCandidate, tradeCandidates, unknownsToGiveUp, type Candidate, type Coverage, type Match, type Slack } from './unknown.js';

export interface SymbolInput {
  market: Market;
  symbol: string;
  now: number;
  /** Our orders of this symbol that are not final. */
  ours: readonly Order[];
  page: OpenOrdersPage;
  /** When the page was asked for (our clock): orders changed since are not judged by it. */
  pageAskedAt: number;
  /** Trades read this pass. */
  trades: readonly VenueTrade[];
  /** Any journal order of this symbol by venue id (final ones too), and by client order id. */
  byVenueId(id: VenueOrderId | string): Order | undefined;
  byClientId(id: string): Order | undefined;
  /** Venue clock minus ours: venue times become ours by taking it off. */
  offsetMs: number;
  /** How far a venue time may sit from ours when judging whether something can be ours. */
  slack: Slack;
  coverage: Coverage;
  foreignOrders: 'adopt' | 'cancel';
  unknownTimeoutMs: number;
  strategyIds: readonly string[];
  /** When we last asked to cancel a foreign order. */
  cancelAskedAt(venueOrderId: string): number | undefined;
  /** The client order id the venue's order query named for a venue order: a string, null for none, undefined when not asked yet. */
  nameOf(venueOrderId: string): string | null | undefined;
  /** The venue orders of this symbol named so far, by client order id (Lookups.named): in this pass's reads or not. */
  named: ReadonlyMap<string, VenueOrderId>;
  /** Whether a venue order a lost answer could be waits to be named before it is matched (false once the venue is known not to name them). */
  waitForNames: boolean;
  /** How many venue orders the poller asks to name per pass. */
  namesPerPass: number;
  /** Local time before which every trade is shown (now less drift.graceMs): a later one may still have siblings to come. */
  shownBefore: number;
  /** Whether a cancel the venue took for an order may still be under way when the page was asked for (settle.ts cancelInProgress). */
  cancelling(order: Order): boolean;
}

export interface SymbolDecision {
  /** Order changes, in the order they were decided (journal them in this order). */
  changes: PassChanges;
  open: OpenOrdersResult;
  /** Foreign open orders to journal as ours (reconcile.foreignOrders: adopt). */
  adoptions: { intent: PlaceIntent; order: Order }[];
  /** Foreign open orders to cancel (reconcile.foreignOrders: cancel). */
  cancels: VenueOrder[];
  /** Unknown orders found on the venue this pass. */
  found: Order[];
  /** Trades nobody claims that an order awaiting its answer may still own: on the account, not yet ours. */
  awaited: VenueTrade[];
  /** Trades nobody claims and none of ours can own. */
  foreignTrades: VenueTrade[];
  /** The order of ours a venue order id belongs to, with this pass's decisions applied. */
  claimant(id: string): Order | undefined;
  /** Venue orders nobody claims that a lost answer could be, not named yet: ask the venue, oldest first. */
  toIdentify: VenueOrderId[];
  /** Venue ids of the orders nobody claimed this pass. */
  unclaimedIds: ReadonlySet<string>;
  /** Client order ids of lost answers still awaiting their venue order: a name the venue gave one of them is kept. */
  awaitingIds: ReadonlySet<string>;
}

export function decideSymbol(input: SymbolInput): SymbolDecision {
  const { now, page, trades, market } = input;
  const changes = new PassChanges();
  const open = readOpenOrders({ ours: input.ours, page, askedAt: input.pageAskedAt, cancelling: input.cancelling, byVenueId: input.byVenueId, byClientId: input.byClientId, now });
  for (const c of open.changes) changes.set(c);

  // Orders whose answer was lost, matched to what nobody claims: exactly where the venue's order
  // query named the order's client order id, else by what it looks like (see unknown.ts).
  const current = input.ours.map((o) => changes.get(o));
  const claimedNow = new Set(open.changes.flatMap((c) => (c.order.venueOrderId ? [c.order.venueOrderId] : [])));
  const unclaimedTrades = trades.filter((t) => {
    const id = ownOrderId(t);
    return id !== undefined && !claimedNow.has(id) && !input.byVenueId(id);
  });
  const unknowns = current.filter((o) => o.status === 'unknown' && !o.venueOrderId);
  const pending = current.filter((o) => o.status === 'pending');
  const local = (c: Candidate): Candidate => amend(c, { time: c.time === undefined ? undefined : c.time - input.offsetMs, placedAt: c.placedAt === undefined ? undefined : c.placedAt - input.offsetMs });
  const openIds = new Set(open.unclaimed.map((v) => v.orderId));
  const candidates = [...open.unclaimed.map(openCandidate), ...tradeCandidates(unclaimedTrades).filter((c) => !openIds.has(c.venueOrderId))].map(local);
  const named: Match[] = [];
  const unnamed: Candidate[] = [];
  const unasked: Candidate[] = [];
  for (const c of candidates) {
    const name = input.nameOf(c.venueOrderId);
    if (typeof name === 'string') {
      // Ours awaiting its answer, or one we gave up too early: the venue says so. One named for
      // an order already bound by looks to another venue order was swapped with an identical
      // one: it goes to whoever is left by looks. Anything else named (a pending order's, which
      // its answer will bind, or not ours at all) is not matched.
      const order = unknowns.find((u) => u.clientOrderId === name) ?? givenUp(input.byClientId(name));
      if (order) named.push({ order, candidate: c });
      else if (swapped(input.byClientId(name), c)) unnamed.push(c);
    } else if (name === undefined && input.waitForNames && unknowns.some((u) => couldBe(u, c, input.slack))) unasked.push(c);
    else unnamed.push(c);
  }
  // Unasked orders wait a pass for their names while this pass's queries can ask them all; more
  // (a storm of lost answers outruns the query budget) are matched by looks at once, for a
  // backlog would hold the trade cursor and every fill behind it.
  const held = unasked.length <= input.namesPerPass ? unasked : [];
  if (held.length === 0) unnamed.push(...unasked);
  // Named earlier for a venue order that is in neither read now (it filled between two reads and
  // its trades are not shown yet, or it left the book): that order is this one all the same.
  // Bound to it, it is settled as any order that left the book is, and its trades count when
  // they show; it takes nothing by looks meanwhile.
  const inReads = new Set(candidates.map((c) => c.venueOrderId as string));
  const namedAway = unknowns.flatMap((u) => {
    const id = input.named.get(u.clientOrderId);
    return id !== undefined && !inReads.has(id) && !claimedNow.has(id) && !input.byVenueId(id) && !named.some((m) => m.order === u) ? [{ order: u, venueOrderId: id }] : [];
  });
  const namedOrders = new Set([...named, ...namedAway].map((m) => m.order));
  // A taker trade fits every limit at or beyond its price: one that lost answers of different
  // prices or volumes could own waits, so a sibling that fits only one of them (a maker trade at
  // its price) can claim it first. It waits while trades of its moment may still show
  // (drift.graceMs), and while one of those lost answers may have a venue order we have not
  // seen: one filled between two reads whose trades show late is in neither read. In rounds:
  // each round's matches may leave a waiting one with a single kind of owner.
  const unseen = unknowns.filter((u) => !namedOrders.has(u) && !shownSince(u, input.coverage, input.slack));
  let young = unnamed.filter((c) => c.source === 'trades' && ((c.time ?? 0) >= input.shownBefore || unseen.some((u) => couldBe(u, c, input.slack))));
  let left = unknowns.filter((u) => !namedOrders.has(u));
  let pool = unnamed.filter((c) => !young.includes(c));
  const matches = [...named];
  for (;;) {
    const clear = young.filter((c) => !ambiguous(left.filter((u) => couldBe(u, c, input.slack))));
    young = young.filter((c) => !clear.includes(c));
    pool.push(...clear);
    if (pool.length === 0) break;
    const round = matchUnknown(left, pool, pending, input.slack);
    matches.push(...round);
    left = left.filter((u) => !round.some((m) => m.order === u));
    pool = [];
  }
  const waiting = [...held, ...young];
  for (const { order, candidate } of matches) {
    const listed = open.unclaimed.find((v) => v.orderId === candidate.venueOrderId);
    const status = listed ? (listed.status === 'open' && dec.isPositive(listed.executedQty) ? 'partially_filled' : listed.status) : 'open';
    const executedVolume = dec.max(order.executedVolume, listed?.executedQty ?? ZERO);
    const how = namedOrders.has(order) ? (order.status === 'rejected' ? 'the venue named it after it was given up as never placed' : 'the venue named its client order id') : 'by its side, price, volume and time';
    changes.set({ order: amend(order, { venueOrderId: candidate.venueOrderId, status, executedVolume, updatedAt: now }), reason: `found on the venue: ${how} (${candidate.source})` });
  }
  for (const { order, venueOrderId } of namedAway) {
    changes.set({ order: amend(order, { venueOrderId, status: 'open', updatedAt: now }), reason: 'found on the venue: the venue named its client order id (it has left the reads since)' });
  }
  const matchedIds = new Set(matches.map((m) => m.candidate.venueOrderId));
  const awaitingUnknowns = unknowns.filter((u) => !namedOrders.has(u) && !matches.some((m) => m.order === u));
  const stillAwaiting = [...pending, ...awaitingUnknowns];
  const byLooks = new Set(unnamed.map((c) => c.venueOrderId));
  const mayBeOurs = (c: Candidate) => {
    const name = input.nameOf(c.venueOrderId);
    return typeof name === 'string' && !byLooks.has(c.venueOrderId) ? stillAwaiting.some((o) => o.clientOrderId === name) : stillAwaiting.some((o) => couldBe(o, c, input.slack));
  };

  // Open orders none of ours can be: foreign.
  const adoptions: SymbolDecision['adoptions'] = [];
  const cancels: VenueOrder[] = [];
  for (const v of open.unclaimed) {
    if (matchedIds.has(v.orderId) || mayBeOurs(local(openCandidate(v)))) continue;
    const action = foreignAction(input.foreignOrders, input.cancelAskedAt(v.orderId), now);
    if (action === 'cancel') cancels.push(v);
    else if (action === 'adopt') adoptions.push(adoptedOrder(v, market, input.strategyIds, now));
  }
  const adoptedById = new Map(adoptions.map((a) => [a.order.venueOrderId as string, a.order]));
  const claimant = (id: string) => changes.byVenueId(id) ?? input.byVenueId(id) ?? adoptedById.get(id);

  // Trades nobody claims: awaited while one of ours may still be theirs, otherwise foreign.
  const unclaimed = trades.filter((t) => !claimant(ownOrderId(t)!));
  const awaited = unclaimed.filter((t) => tradeCandidates([t]).some((c) => mayBeOurs(local(c))));
  const foreignTrades = unclaimed.filter((t) => !awaited.includes(t));

  const unknownTimeoutMs = input.unknownTimeoutMs;
  // An unknown a venue order still waiting (to be named, or for its siblings) could be waits too.
  const givingUp = stillAwaiting.filter((x) => x.status === 'unknown' && !waiting.some((c) => couldBe(x, c, input.slack)));
  for (const o of unknownsToGiveUp(givingUp, input.coverage, now, unknownTimeoutMs)) {
    changes.set({ order: { ...o, status: 'rejected', updatedAt: now }, reason: `not found on the venue within ${unknownTimeoutMs} ms of its lost answer: it was never placed (not sent again)` });
  }
  const toIdentify = [...held].sort((a, b) => (a.time ?? 0) - (b.time ?? 0)).map((c) => c.venueOrderId);
  const unclaimedIds = new Set(candidates.filter((c) => !matchedIds.has(c.venueOrderId)).map((c) => c.venueOrderId as string));
  return { changes, open, adoptions, cancels, found: [...matches, ...namedAway].map((m) => m.order), awaited, foreignTrades, claimant, toIdentify, unclaimedIds, awaitingIds: new Set(awaitingUnknowns.map((u) => u.clientOrderId)) };
}

/**
 * Whether the venue order a lost answer may have has had time to show: the venue took it by
 * the answer's loss plus `slack.lateMs`; a complete open-orders read made after that listed it
 * if it still rested, and a trades read to the end made graceMs after that read shows it if it
 * had traded by then.
 */
function shownSince(o: Order, coverage: Coverage, slack: Slack): boolean {
  return coverage.settledOpenAt >= o.updatedAt + slack.lateMs;
}

/** Whether lost answers differ in what they would accept (type, price or volume). */
function ambiguous(orders: readonly Order[]): boolean {
  return new Set(orders.map((o) => `${o.type} ${o.price ?? ''} ${o.volume}`)).size > 1;
}

/** Whether the order a venue order is named for was bound by looks to another venue order. */
function swapped(o: Order | undefined, c: Candidate): boolean {
  return o !== undefined && o.venueOrderId !== undefined && o.venueOrderId !== c.venueOrderId;
}

/** An order we gave up as never placed (no venue id), which the venue has after all. */
function givenUp(o: Order | undefined): Order | undefined {
  return o && o.status === 'rejected' && !o.venueOrderId ? o : undefined;
}

/** An order's changes within one pass: the latest version of each, and the reasons in order. */
export class PassChanges {
  readonly list: OrderChange[] = [];
  private readonly latest = new Map<string, Order>();
  private readonly byVenue = new Map<string, Order>();

  set(c: OrderChange): void {
    this.list.push(c);
    this.note(c.order);
  }

  /** A version written directly (inside the commit). */
  note(order: Order): void {
    this.latest.set(order.clientOrderId, order);
    if (order.venueOrderId) this.byVenue.set(order.venueOrderId, order);
  }

  get(o: Order): Order {
    return this.latest.get(o.clientOrderId) ?? o;
  }

  byVenueId(id: string): Order | undefined {
    return this.byVenue.get(id);
  }
}
