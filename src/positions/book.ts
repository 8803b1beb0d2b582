// The position book: positions derive from fills only, each trade applied once.
// The book owns its state and changes nothing else; it reads no clock and does no I/O.
import { BoundedSet } from '../core/bounded.js';
import { dec, isDecimal, toDecimal, ZERO, type Decimal } from '../core/decimal.js';
import { fillKey, type Fill, type Market, type Position } from '../core/types.js';
import { averageEntry, chargeFee, emptyEntry, toPosition, trade, unrealizedOf } from './entry.js';
import type { ApplyOutcome, BookEntry, BookJSON, BookSnapshotInput, QuoteAssetOf } from './types.js';

const lineKey = (market: Market, symbol: string) => `${market}:${symbol}`;
const byMarketSymbol = (a: Position, b: Position) => cmp(a.market, b.market) || cmp(a.symbol, b.symbol);
// Code-unit order, not localeCompare: the same book sorts the same on every machine.
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Without a resolver, a fee asset is the quote asset when the symbol ends with it (BTCUSDT and
 * E-BTC-USDT end with USDT). An empty fee asset counts as quote: futures fills name none and
 * charge the margin coin.
 */
function suffixRule(symbol: string, feeAsset: string): boolean {
  return feeAsset === '' || symbol.toUpperCase().endsWith(feeAsset.toUpperCase());
}

export interface PositionBookOptions {
  /** Names each symbol's quote asset (from the instruments); the suffix rule otherwise. */
  quoteAssetOf?: QuoteAssetOf;
  /** How many applied fill keys to remember (APPLIED_KEPT by default). */
  appliedKept?: number;
}

/**
 * Applied fill keys the book remembers (about 125 bytes each). What repeats a fill is the
 * reconciler reading trades again: those within drift.graceMs (10 s; at the venue's ceiling of
 * 300 orders/s, 3,000 fills) and, every fifth pass, each symbol's latest page (1,000 at most).
 * 20,000 covers that for ten symbols with half again to spare. A key forgotten costs a
 * journal insert that the fill's unique key refuses, never a fill counted twice (test/unit/reconciler/commit.test.ts).
 * The former 100,000 held 12 MB once full, at about hour 2.3 of bench/memory.bench.ts.
 */
export const APPLIED_KEPT = 20_000;

export class PositionBook {
  private readonly lines = new Map<string, BookEntry>();
  /**
   * Keys of the fills applied, the latest APPLIED_KEPT of them: the journal is what makes a fill
   * count once (its key is unique there, and only a fill it newly recorded reaches the book);
   * this is the book's own guard against a repeat, and the reconciler's cheap check for trades it
   * reads again within its grace. Bounded, so a daemon's memory does not grow with every fill.
   */
  private readonly applied: BoundedSet;
  /** Contract sizes by line key; a line without one counts its quantity in base units (1). */
  private readonly multipliers = new Map<string, Decimal>();

  constructor(private readonly options: PositionBookOptions = {}) {
    this.applied = new BoundedSet(options.appliedKept ?? APPLIED_KEPT);
  }

  /**
   * The contract size of a futures line: base quantity per contract. Futures quantities are
   * contracts, so its values (entry, realised and unrealised PnL) are quantity x price x
   * multiplier. Set it (from the venue's contract list) before the line's first fill; a line
   * that already holds fills at another size throws, as its numbers would be wrong.
   */
  setMultiplier(market: Market, symbol: string, multiplier: Decimal): void {
    const at = `multiplier of ${market} ${symbol}`;
    if (!dec.isPositive(toDecimal(multiplier, at))) throw new RangeError(`${at} must be above 0 (got ${multiplier})`);
    const k = lineKey(market, symbol);
    const line = this.lines.get(k);
    if (line && !dec.eq(line.multiplier, multiplier)) throw new RangeError(`${at}: the line already holds fills at contract size ${line.multiplier}, not ${multiplier}`);
    this.multipliers.set(k, multiplier);
  }

  /** Applies a fill once. Returns true when it changed the book, false for a duplicate or a malformed fill. */
  apply(fill: Fill): boolean {
    return this.applyFill(fill).kind === 'applied';
  }

  /** Applies a fill once, saying what happened. The first fill seen for a side of a trade wins. */
  applyFill(fill: Fill): ApplyOutcome {
    const key = fillKey(fill);
    if (this.applied.has(key)) return { kind: 'duplicate' };
    const problem = malformed(fill);
    if (problem) return { kind: 'invalid', reason: `fill ${key}: ${problem}` };
    const before = this.entry(fill.market, fill.symbol);
    const traded = trade(before, fill.side, fill.volume, fill.price);
    const line = chargeFee(traded, fill.fee, fill.feeAsset, this.isQuote(fill));
    this.lines.set(lineKey(fill.market, fill.symbol), line);
    this.applied.add(key);
    return { kind: 'applied', position: line };
  }

  /** Whether this side of this trade was applied. */
  has(fill: Pick<Fill, 'market' | 'symbol' | 'tradeId' | 'side'>): boolean {
    return this.applied.has(fillKey(fill));
  }

  position(market: Market, symbol: string): Position {
    return toPosition(this.entry(market, symbol));
  }

  /** The full line, with the exact entry value and the fees paid in other assets. */
  entry(market: Market, symbol: string): BookEntry {
    const k = lineKey(market, symbol);
    return this.lines.get(k) ?? emptyEntry(market, symbol, this.multipliers.get(k));
  }

  /** Profit of the open quantity at `mark`, in quote, before fees. */
  unrealizedPnl(market: Market, symbol: string, mark: Decimal): Decimal {
    return unrealizedOf(this.entry(market, symbol), mark);
  }

  /** Every line ever traded (flat ones included, they carry realised PnL), sorted by market then symbol. */
  snapshot(): Position[] {
    return [...this.lines.values()].map(toPosition).sort(byMarketSymbol);
  }

  /** The fees paid in assets other than each line's quote, summed per asset over every line, assets in code-unit order. */
  otherFees(): Record<string, Decimal> {
    const totals = new Map<string, Decimal>();
    for (const e of this.lines.values()) for (const [asset, fee] of Object.entries(e.otherFees)) totals.set(asset, dec.add(totals.get(asset) ?? ZERO, fee));
    const sorted: Record<string, Decimal> = {};
    for (const asset of [...totals.keys()].sort()) sorted[asset] = totals.get(asset)!;
    return sorted;
  }

  /** Everything needed to restore this book exactly, including the applied trade keys. */
  toJSON(): BookJSON {
    return {
      version: 1,
      positions: [...this.lines.values()].map((e) => ({ ...e, otherFees: { ...e.otherFees } })).sort(byMarketSymbol),
      appliedTradeKeys: [...this.applied.values()].sort(),
    };
  }

  /**
   * Restores a book from toJSON's output, or from plain positions plus the trade keys the
   * caller knows they contain (fills with other keys will then be applied on top). Throws on a
   * malformed decimal, naming the field: a checkpoint that cannot be read must stop the start.
   */
  static fromSnapshot(snapshot: BookJSON | BookSnapshotInput, options: PositionBookOptions = {}): PositionBook {
    const book = new PositionBook(options);
    book.restore(snapshot);
    return book;
  }

  /**
   * The lines as they are now, without the applied keys: what a restart restores before it
   * applies the fills journaled after (restore).
   */
  checkpoint(): BookSnapshotInput & { version: 1 } {
    return { version: 1, positions: [...this.lines.values()].map((e) => ({ ...e, otherFees: { ...e.otherFees } })).sort(byMarketSymbol) };
  }

  /**
   * Takes a snapshot's lines (and its trade keys) into this book, which must hold none yet: all
   * or nothing. Throws, naming the field, on a malformed value, and on a contract size other
   * than one already set (setMultiplier): lines valued at another size would be wrong.
   */
  restore(snapshot: BookJSON | BookSnapshotInput): void {
    if ('version' in snapshot && snapshot.version !== 1) throw new RangeError(`position book snapshot version ${String(snapshot.version)} is not supported`);
    if (this.lines.size > 0) throw new RangeError('a position book restores a snapshot only before it holds any line');
    const lines = new Map<string, BookEntry>();
    snapshot.positions.forEach((p, i) => {
      const at = `positions[${i}]`;
      const quantity = toDecimal(p.quantity, `${at}.quantity`);
      const multiplier = p.multiplier !== undefined ? toDecimal(p.multiplier, `${at}.multiplier`) : ('1' as Decimal);
      if (!dec.isPositive(multiplier)) throw new RangeError(`${at}.multiplier must be above 0 (got ${multiplier})`);
      const known = this.multipliers.get(lineKey(p.market, p.symbol));
      if (known !== undefined && !dec.eq(known, multiplier)) throw new RangeError(`${at}.multiplier is ${multiplier}, but ${p.market} ${p.symbol} has contract size ${known} now`);
      const entryValue =
        p.entryValue !== undefined ? toDecimal(p.entryValue, `${at}.entryValue`) : dec.mul(dec.mul(quantity, toDecimal(p.avgEntryPrice, `${at}.avgEntryPrice`)), multiplier);
      const signedEntry = dec.isNegative(quantity) ? dec.neg(dec.abs(entryValue)) : dec.isZero(quantity) ? ZERO : dec.abs(entryValue);
      const otherFees: Record<string, Decimal> = {};
      for (const [asset, v] of Object.entries(p.otherFees ?? {})) otherFees[asset] = toDecimal(v, `${at}.otherFees.${asset}`);
      lines.set(lineKey(p.market, p.symbol), {
        market: p.market,
        symbol: p.symbol,
        quantity,
        multiplier,
        entryValue: signedEntry,
        avgEntryPrice: averageEntry(quantity, signedEntry, multiplier),
        realizedPnl: toDecimal(p.realizedPnl, `${at}.realizedPnl`),
        fees: toDecimal(p.fees, `${at}.fees`),
        otherFees,
      });
    });
    for (const [k, line] of lines) {
      this.multipliers.set(k, line.multiplier);
      this.lines.set(k, line);
    }
    for (const key of snapshot.appliedTradeKeys ?? []) this.applied.add(key);
  }

  private isQuote(fill: Fill): boolean {
    const quote = this.options.quoteAssetOf?.(fill.market, fill.symbol);
    return quote !== undefined ? fill.feeAsset === '' || fill.feeAsset.toUpperCase() === quote.toUpperCase() : suffixRule(fill.symbol, fill.feeAsset);
  }
}

/** Why the book refuses a fill (it is never applied), or undefined for a fill it takes. */
export function malformed(fill: Fill): string | undefined {
  if (fill.side !== 'BUY' && fill.side !== 'SELL') return `unknown side ${String(fill.side)}`;
  if (!isDecimal(fill.volume) || !dec.isPositive(fill.volume)) return `volume must be a decimal above 0 (got ${String(fill.volume)})`;
  if (!isDecimal(fill.price) || !dec.isPositive(fill.price)) return `price must be a decimal above 0 (got ${String(fill.price)})`;
  if (!isDecimal(fill.fee)) return `fee must be a decimal (got ${String(fill.fee)})`;
  return undefined;
}
