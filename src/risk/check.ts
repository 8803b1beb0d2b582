// The risk gate as one pure function: (intents, account snapshot, limits, state, now) -> verdicts
// and the next state. Rules run in RISK_RULES order and the first that fails names the
// rejection, so every rejected intent carries exactly one rule and a reason with the numbers.
// Intents are judged one by one in input order, each against what the earlier accepted ones
// in the same call already used (open orders, balance, rate, notional).
import { dec, isDecimal, ONE, ZERO, type Decimal } from '../core/decimal.js';
import { shownQuantity } from '../core/display.js';
import type { SymbolInfo } from '../core/market.js';
import type { CancelIntent, OrderIntent, PlaceIntent, Side } from '../core/types.js';
import { emptyRiskState, pruneRiskState } from './state.js';
import { DEFAULT_FEE_ALLOWANCE, symbolKey, type BalanceHold, type KillSwitchMode, type RiskLimits, type RiskRejection, type RiskResult, type RiskRule, type RiskSnapshot, type RiskState } from './types.js';

const HUNDRED = '100' as Decimal;

type Verdict = { ok: true; commit: () => void } | { ok: false; rule: RiskRule; reason: string };
const fail = (rule: RiskRule, reason: string): Verdict => ({ ok: false, rule, reason: `${rule}: ${reason}` });

/** Base volume resting on each side of a symbol. */
interface Resting {
  buy: Decimal;
  sell: Decimal;
}

/** Working copies for one call; nothing the caller passed is ever mutated. */
class Tally {
  readonly placedAt: number[];
  readonly notional: { at: number; asset: string; value: Decimal }[];
  readonly recent: Record<string, number>;
  /** Notional per quote asset inside the 60 s window, kept as a running sum. */
  readonly minuteSum = new Map<string, Decimal>();
  readonly openCount = new Map<string, number>();
  readonly resting = new Map<string, Resting>();
  /** Balance already promised to intents accepted earlier in this call, per asset. */
  readonly reserved = new Map<string, Decimal>();
  readonly canceled = new Set<string>();
  /** What each accepted spot place holds of a balance, for the caller to count until the venue's balances show it. */
  readonly holds: BalanceHold[] = [];

  constructor(state: RiskState, snapshot: RiskSnapshot) {
    this.placedAt = [...state.placedAt];
    this.notional = [...state.notional];
    this.recent = { ...state.recent };
    for (const [asset, total] of Object.entries(state.notionalTotal)) this.minuteSum.set(asset, total);
    // Summed per symbol and side in one pass each: a busy daemon has a thousand orders open.
    const remaining = new Map<string, { buy: Decimal[]; sell: Decimal[] }>();
    for (const o of snapshot.openOrders) {
      if (!o.offBook) this.openCount.set(o.strategyId, (this.openCount.get(o.strategyId) ?? 0) + 1);
      const key = symbolKey(o.market, o.symbol);
      let sides = remaining.get(key);
      if (!sides) remaining.set(key, (sides = { buy: [], sell: [] }));
      (o.side === 'BUY' ? sides.buy : sides.sell).push(o.remaining);
    }
    for (const [key, { buy, sell }] of remaining) this.resting.set(key, { buy: dec.sum(buy), sell: dec.sum(sell) });
  }

  restingOf(key: string): Resting {
    return this.resting.get(key) ?? { buy: ZERO, sell: ZERO };
  }

  addResting(key: string, side: Side, qty: Decimal): void {
    const r = this.restingOf(key);
    this.resting.set(key, side === 'BUY' ? { ...r, buy: dec.add(r.buy, qty) } : { ...r, sell: dec.add(r.sell, qty) });
  }

  state(): RiskState {
    return { placedAt: this.placedAt, notional: this.notional, notionalTotal: Object.fromEntries(this.minuteSum), recent: this.recent };
  }
}

/**
 * Judges `intents` in order. Never throws for well-typed input: malformed intents (bad
 * decimals, missing or extra price, unknown symbol) are rejected under `invalid`.
 *
 * Cancels are always accepted (they only reduce risk), except a second cancel of the same
 * client order id in one call. Accepted cancels free nothing for later places in the same
 * call: the order rests until the venue confirms, so counting it gone early could let a
 * replacement through that breaks a limit if the cancel fails.
 */
export function checkIntents(intents: readonly OrderIntent[], snapshot: RiskSnapshot, limits: RiskLimits, state: RiskState, now: number): RiskResult {
  const tally = new Tally(pruneRiskState(state, limits, now), snapshot);
  const accepted: OrderIntent[] = [];
  const rejected: RiskRejection[] = [];
  for (const intent of intents) {
    const verdict = intent.kind === 'cancel' ? checkCancel(intent, tally) : checkPlace(intent, snapshot, limits, tally, now);
    if (verdict.ok) {
      verdict.commit();
      accepted.push(intent);
    } else {
      rejected.push({ intent, rule: verdict.rule, reason: verdict.reason });
    }
  }
  return { accepted, rejected, holds: tally.holds, nextState: tally.state() };
}

/**
 * Only the kill-switch rule, in order, each place counted as resting once allowed (so two
 * reduce-only orders cannot together flip the position): for places accepted earlier that are
 * about to be sent.
 */
export function killSwitchVerdicts(intents: readonly PlaceIntent[], snapshot: RiskSnapshot, mode: KillSwitchMode): { allowed: PlaceIntent[]; refused: RiskRejection[] } {
  if (mode === 'off') return { allowed: [...intents], refused: [] };
  const tally = new Tally(emptyRiskState(), snapshot);
  const allowed: PlaceIntent[] = [];
  const refused: RiskRejection[] = [];
  for (const intent of intents) {
    if (!snapshot.instruments.has(symbolKey(intent.market, intent.symbol))) {
      refused.push({ intent, rule: 'kill_switch', reason: `kill_switch: trading is ${mode}; ${intent.symbol} is not listed to judge it` });
      continue;
    }
    const facts = factsOf(intent, snapshot, tally);
    const verdict = checkKillSwitch(intent, facts, { killSwitch: { mode } });
    if (verdict && !verdict.ok) refused.push({ intent, rule: verdict.rule, reason: verdict.reason });
    else {
      allowed.push(intent);
      if (facts.baseQty) tally.addResting(facts.key, intent.side, facts.baseQty);
    }
  }
  return { allowed, refused };
}

function checkCancel(intent: CancelIntent, tally: Tally): Verdict {
  if (tally.canceled.has(intent.clientOrderId)) return fail('duplicate', `cancel of ${intent.clientOrderId} already requested in this call`);
  return { ok: true, commit: () => tally.canceled.add(intent.clientOrderId) };
}

/** What the rules need to know about one place intent, worked out once. */
interface Facts {
  key: string;
  info: SymbolInfo;
  last: Decimal | undefined;
  /** Base quantity; unknown only for a spot market buy before any last price. */
  baseQty: Decimal | undefined;
  /** Quote notional; unknown only for a market order before any last price. */
  notional: Decimal | undefined;
  position: Decimal;
  resting: Resting;
}

function checkPlace(intent: PlaceIntent, snapshot: RiskSnapshot, limits: RiskLimits, tally: Tally, now: number): Verdict {
  const malformed = checkWellFormed(intent, snapshot);
  if (malformed) return malformed;
  const facts = factsOf(intent, snapshot, tally);
  return (
    checkPrecision(intent, facts.info) ??
    checkMinimum(intent, facts.info) ??
    checkKillSwitch(intent, facts, limits) ??
    checkDuplicate(intent, limits, tally, now) ??
    checkOrderRate(limits, tally) ??
    checkOpenOrders(intent, limits, tally) ??
    checkPriceBand(intent, facts, limits) ??
    checkNotionalPerOrder(intent, facts, limits) ??
    checkNotionalPerMinute(facts, limits, tally) ??
    checkMaxPosition(intent, facts, limits) ??
    checkBalance(intent, facts, snapshot, limits, tally, now)
  );
}

function checkWellFormed(intent: PlaceIntent, snapshot: RiskSnapshot): Verdict | undefined {
  if (!isDecimal(intent.volume) || !dec.isPositive(intent.volume)) return fail('invalid', `volume must be a decimal above 0 (got ${String(intent.volume)})`);
  if (intent.type === 'LIMIT') {
    if (intent.price === undefined) return fail('invalid', `a LIMIT order needs a price`);
    if (!isDecimal(intent.price) || !dec.isPositive(intent.price)) return fail('invalid', `price must be a decimal above 0 (got ${String(intent.price)})`);
  } else if (intent.type === 'MARKET') {
    if (intent.price !== undefined) return fail('invalid', `a MARKET order takes no price (got ${String(intent.price)})`);
    // The notes: a futures MARKET OPEN's volume is a value, not contracts (unlike every other
    // futures order). Sent as contracts it would open a position of another size altogether.
    if (intent.market === 'futures' && intent.open !== 'CLOSE') {
      return fail('invalid', `a futures MARKET order that opens a position is sized by value on this venue, not in contracts, and sluice does not send one: open with a LIMIT order at a marketable price (timeInForce IOC takes what it can at once); MARKET is for open: CLOSE`);
    }
  } else {
    return fail('invalid', `unknown order type ${String(intent.type)}`);
  }
  if (intent.side !== 'BUY' && intent.side !== 'SELL') return fail('invalid', `unknown side ${String(intent.side)}`);
  if (!snapshot.instruments.has(symbolKey(intent.market, intent.symbol))) {
    return fail('invalid', `unknown symbol ${intent.symbol} on ${intent.market} (not in the market snapshot)`);
  }
  return undefined;
}

/**
 * The venue refuses a volume or price with more decimals than the instrument allows (spot: the
 * quantity's precision, or the price's for a market buy's quote amount; futures: whole
 * contracts), so such an intent is refused here, with the fix, before it costs a request.
 */
function checkPrecision(intent: PlaceIntent, info: SymbolInfo): Verdict | undefined {
  const fix = (what: string, value: Decimal, allowed: number) =>
    fail('precision', `${what} ${value} has ${dec.places(value)} decimals; ${intent.symbol} allows ${allowed}: round it to ${allowed} decimals, e.g. ${dec.truncate(value, allowed)} (dec.truncate(x, ${allowed}))`);
  if (intent.market === 'futures') {
    if (dec.places(intent.volume) > 0) {
      return fail('precision', `volume ${intent.volume} is not a whole number: futures volumes are contracts of ${intent.symbol}; round it to a whole number, e.g. ${dec.truncate(intent.volume, 0)} (dec.truncate(x, 0))`);
    }
  } else if (isQuoteSized(intent)) {
    if (dec.places(intent.volume) > info.pricePrecision) return fix(`a market buy's volume is ${info.quoteAsset} to spend:`, intent.volume, info.pricePrecision);
  } else if (dec.places(intent.volume) > info.quantityPrecision) {
    return fix('volume', intent.volume, info.quantityPrecision);
  }
  if (intent.price !== undefined && dec.places(intent.price) > info.pricePrecision) return fix('price', intent.price, info.pricePrecision);
  return undefined;
}

/**
 * The venue refuses an order below the instrument's minimums (the notes: -1136), which the
 * listing gives where the venue lists them: spot limitVolumeMin and limitPriceMin for a LIMIT,
 * marketBuyMin (quote to spend) and marketSellMin for a MARKET; futures minOrderVolume.
 */
function checkMinimum(intent: PlaceIntent, info: SymbolInfo): Verdict | undefined {
  const below = (what: string, value: Decimal, min: Decimal | undefined, field: string) =>
    min !== undefined && dec.lt(value, min) ? fail('minimum', `${what} ${value} is below ${intent.symbol}'s minimum ${min} (${field}); raise it to at least ${min}`) : undefined;
  if (intent.market === 'futures') return below('volume', intent.volume, info.limitVolumeMin, 'minOrderVolume, in contracts');
  if (intent.type === 'LIMIT') return below('volume', intent.volume, info.limitVolumeMin, 'limitVolumeMin') ?? below('price', intent.price!, info.limitPriceMin, 'limitPriceMin');
  return intent.side === 'BUY' ? below(`a market buy's ${info.quoteAsset} to spend`, intent.volume, info.marketBuyMin, 'marketBuyMin') : below('volume', intent.volume, info.marketSellMin, 'marketSellMin');
}

function factsOf(intent: PlaceIntent, snapshot: RiskSnapshot, tally: Tally): Facts {
  const key = symbolKey(intent.market, intent.symbol);
  const info = snapshot.instruments.get(key)!;
  const raw = snapshot.lastPrices.get(key);
  // A last price of 0 or below cannot anchor a band or size an order: treat it as none.
  const last = raw !== undefined && isDecimal(raw) && dec.isPositive(raw) ? raw : undefined;
  let baseQty: Decimal | undefined = intent.volume;
  let notional: Decimal | undefined;
  if (isQuoteSized(intent)) {
    // Venue rule: a spot market buy's volume is the quote amount to spend.
    notional = intent.volume;
    baseQty = last ? dec.div(intent.volume, last) : undefined;
  } else {
    const price = intent.type === 'LIMIT' ? intent.price : last;
    // A futures volume is contracts, each worth `multiplier` of the base asset.
    notional = price ? dec.mul(dec.mul(intent.volume, price), info.multiplier ?? ONE) : undefined;
  }
  return { key, info, last, baseQty, notional, position: snapshot.positions.get(key) ?? ZERO, resting: tally.restingOf(key) };
}

export function isQuoteSized(intent: Pick<PlaceIntent, 'market' | 'type' | 'side'>): boolean {
  return intent.market === 'spot' && intent.type === 'MARKET' && intent.side === 'BUY';
}

const signedBy = (side: Side, qty: Decimal) => (side === 'BUY' ? qty : dec.neg(qty));
const restingOn = (side: Side, r: Resting) => (side === 'BUY' ? r.buy : r.sell);
const sideWord = (side: Side) => (side === 'BUY' ? 'buys' : 'sells');

function checkKillSwitch(intent: PlaceIntent, f: Facts, limits: Pick<RiskLimits, 'killSwitch'>): Verdict | undefined {
  const mode = limits.killSwitch.mode;
  if (mode === 'halted') return fail('kill_switch', 'trading is halted; no new orders until the kill switch is released');
  if (mode !== 'reduce_only') return undefined;
  // The venue keeps longs and shorts apart (the notes' hedge model): only a CLOSE order reduces
  // a futures position, and a CLOSE never does anything else (the venue refuses one above the
  // free volume of the position it closes, 10015). The book nets a hedged contract's long and
  // short into one figure, which cannot say which of the two a CLOSE reduces: judged by it, a
  // hedged book could never be unwound (each close would move the net away from zero or past
  // it). max_position still judges the net: closing one side of a hedge does add exposure.
  if (intent.market === 'futures') {
    if (intent.open === 'CLOSE') return undefined;
    return fail('kill_switch', `reduce-only: a futures order must close a position (open: CLOSE); ${intent.side} ${intent.volume} ${intent.symbol} would open one`);
  }
  // A market buy with no last price has no base size yet; the price band rejects it below.
  if (f.baseQty === undefined) return undefined;
  // Reduce-only: even if every same-side open order and this one fill, the position must end
  // no further from zero and on the same side (a flip would open new exposure).
  const sameSide = restingOn(intent.side, f.resting);
  const after = dec.add(f.position, signedBy(intent.side, dec.add(sameSide, f.baseQty)));
  const opposite = intent.side === 'BUY' ? dec.isNegative(f.position) : dec.isPositive(f.position);
  const shrinks = opposite && dec.lte(dec.add(sameSide, f.baseQty), dec.abs(f.position));
  if (shrinks) return undefined;
  return fail(
    'kill_switch',
    `reduce-only: ${intent.side} ${f.baseQty} ${intent.symbol} with open ${sideWord(intent.side)} ${sameSide} would take the position ${f.position} to ${after}; only orders that shrink it are allowed`,
  );
}

/** Identity of a place for duplicate suppression: who, where, and what exactly. */
export function fingerprint(intent: PlaceIntent): string {
  const price = intent.price === undefined ? '' : dec.add(intent.price, ZERO);
  return [intent.strategyId, intent.market, intent.symbol, intent.side, intent.type, price, dec.add(intent.volume, ZERO)].join('|');
}

function checkDuplicate(intent: PlaceIntent, limits: RiskLimits, tally: Tally, now: number): Verdict | undefined {
  if (limits.duplicateWindowMs <= 0) return undefined;
  const at = tally.recent[fingerprint(intent)];
  if (at === undefined) return undefined;
  const what = `${intent.side} ${intent.type} ${intent.volume} ${intent.symbol}${intent.price ? ` at ${intent.price}` : ''}`;
  return fail('duplicate', `${intent.strategyId} had the same ${what} accepted ${now - at} ms ago, within the ${limits.duplicateWindowMs} ms window`);
}

function checkOrderRate(limits: RiskLimits, tally: Tally): Verdict | undefined {
  const n = tally.placedAt.length;
  if (n < limits.maxOrdersPerSecond) return undefined;
  return fail('order_rate', `${n} orders accepted in the last second, at the ${limits.maxOrdersPerSecond} per second cap`);
}

function checkOpenOrders(intent: PlaceIntent, limits: RiskLimits, tally: Tally): Verdict | undefined {
  const open = tally.openCount.get(intent.strategyId) ?? 0;
  if (open < limits.maxOpenOrders) return undefined;
  return fail('max_open_orders', `${intent.strategyId} has ${open} open orders, at the ${limits.maxOpenOrders} limit`);
}

function checkPriceBand(intent: PlaceIntent, f: Facts, limits: RiskLimits): Verdict | undefined {
  // Every place needs a last price: a limit to judge its band, a market order to size it.
  if (!f.last) return fail('price_band', `no last price for ${intent.symbol} yet`);
  if (intent.type !== 'LIMIT') return undefined;
  const away = dec.abs(dec.sub(intent.price!, f.last));
  // Within the band without a division (the deviation's digits rarely end): |p - last| * 100 <= band * last.
  if (dec.isPositive(f.last) && dec.lte(dec.mul(away, HUNDRED), dec.mul(limits.priceBandPct, f.last))) return undefined;
  const deviation = dec.mul(dec.div(away, f.last), HUNDRED);
  if (dec.lte(deviation, limits.priceBandPct)) return undefined;
  return fail('price_band', `price ${intent.price} is ${dec.round(deviation, 2)}% from the last price ${f.last}, beyond ${limits.priceBandPct}%`);
}

function checkNotionalPerOrder(intent: PlaceIntent, f: Facts, limits: RiskLimits): Verdict | undefined {
  const notional = f.notional!; // known once the price band passed
  if (dec.lte(notional, limits.maxNotionalPerOrder)) return undefined;
  const quote = f.info.quoteAsset;
  const what = isQuoteSized(intent)
    ? `market buy of ${intent.symbol} for ${notional} ${quote} is`
    : `${intent.volume} ${intent.symbol} at ${intent.type === 'LIMIT' ? intent.price : `the last price ${f.last}`} is ${notional} ${quote},`;
  return fail('max_notional_per_order', `${what} above the ${limits.maxNotionalPerOrder} limit`);
}

function checkNotionalPerMinute(f: Facts, limits: RiskLimits, tally: Tally): Verdict | undefined {
  const quote = f.info.quoteAsset;
  const soFar = tally.minuteSum.get(quote) ?? ZERO;
  const total = dec.add(soFar, f.notional!);
  if (dec.lte(total, limits.maxNotionalPerMinute)) return undefined;
  return fail('max_notional_per_minute', `${soFar} ${quote} accepted in the last 60 s + ${f.notional} would be ${total}, above the ${limits.maxNotionalPerMinute} limit`);
}

function checkMaxPosition(intent: PlaceIntent, f: Facts, limits: RiskLimits): Verdict | undefined {
  const cap = limits.maxPosition[intent.symbol];
  if (cap === undefined) return undefined;
  const qty = f.baseQty!;
  const open = restingOn(intent.side, f.resting);
  // A market buy's base quantity is its quote amount over the last price: shown to the quantity's precision.
  const shown = (v: Decimal) => shownQuantity(v, f.info);
  // One-sided on purpose: a buy is judged against the long cap only, so an order that brings a
  // short back toward zero is never blocked by the size of the short.
  if (intent.side === 'BUY') {
    const worst = dec.add(dec.add(f.position, open), qty);
    if (dec.lte(worst, cap)) return undefined;
    return fail('max_position', `position ${f.position} + open buys ${open} + this ${shown(qty)} = ${shown(worst)} ${intent.symbol}, above the ${cap} limit`);
  }
  const worst = dec.sub(dec.sub(f.position, open), qty);
  if (dec.gte(worst, dec.neg(cap))) return undefined;
  return fail('max_position', `position ${f.position} - open sells ${open} - this ${shown(qty)} = ${shown(worst)} ${intent.symbol}, below the -${cap} limit`);
}

/**
 * The last rule, so its `commit` records everything an accepted place uses. Spot only: futures
 * margin is not modelled here (the venue rejects an order without margin).
 */
function checkBalance(intent: PlaceIntent, f: Facts, snapshot: RiskSnapshot, limits: RiskLimits, tally: Tally, now: number): Verdict {
  let hold: { asset: string; amount: Decimal } | undefined;
  if (intent.market === 'spot') {
    const fee = limits.feeAllowance ?? DEFAULT_FEE_ALLOWANCE;
    hold = intent.side === 'BUY' ? { asset: f.info.quoteAsset, amount: dec.mul(f.notional!, dec.add(ONE, fee)) } : { asset: f.info.baseAsset, amount: intent.volume };
    const reserved = tally.reserved.get(hold.asset) ?? ZERO;
    const free = dec.sub(snapshot.balances.get(hold.asset) ?? ZERO, reserved);
    if (dec.gt(hold.amount, free)) {
      const feeNote = intent.side === 'BUY' ? ` (with the ${dec.mul(fee, HUNDRED)}% fee allowance)` : '';
      const reservedNote = dec.isZero(reserved) ? '' : ` after ${reserved} held for earlier intents in this call`;
      return fail('balance', `${intent.side} ${intent.volume} ${intent.symbol} needs ${hold.amount} ${hold.asset}${feeNote}, ${free} ${hold.asset} free${reservedNote}`);
    }
  }
  return {
    ok: true,
    commit: () => {
      tally.placedAt.push(now);
      tally.notional.push({ at: now, asset: f.info.quoteAsset, value: f.notional! });
      tally.minuteSum.set(f.info.quoteAsset, dec.add(tally.minuteSum.get(f.info.quoteAsset) ?? ZERO, f.notional!));
      if (limits.duplicateWindowMs > 0) tally.recent[fingerprint(intent)] = now;
      tally.openCount.set(intent.strategyId, (tally.openCount.get(intent.strategyId) ?? 0) + 1);
      tally.addResting(f.key, intent.side, f.baseQty!);
      if (hold) {
        tally.reserved.set(hold.asset, dec.add(tally.reserved.get(hold.asset) ?? ZERO, hold.amount));
        tally.holds.push({ clientOrderId: intent.clientOrderId, ...hold });
      }
    },
  };
}
