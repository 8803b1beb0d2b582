// Rounding for figures written for people: log lines, reports, CLI output. Arithmetic stays
// exact (an average entry price or a time-weighted mean divides to 30 places); these apply only
// where a figure is shown, so `0.012173333333333333333333333333` prints as `0.01217333`.
import { dec, type Decimal } from './decimal.js';

/**
 * Places money (PnL, fees, equity, in any asset) is shown with. The venue lists a precision per
 * symbol for its prices and quantities but none per asset, and money has more places than a
 * price: a fill's notional has pricePrecision + quantityPrecision places (7 for BTCUSDT), a fee
 * on it more. 8 places (a satoshi) keeps all of that to 1e-8 and drops only division noise.
 */
export const MONEY_PLACES = 8;

/** Significant digits a statistic (a ratio, a Sharpe ratio, a spacing) is shown with. */
export const STATISTIC_DIGITS = 6;

/** The instrument facts rounding needs (SymbolInfo has them). */
export interface Precision {
  pricePrecision: number;
  quantityPrecision: number;
}

/** Money, half-even to MONEY_PLACES. */
export function shownMoney(amount: Decimal): Decimal {
  return dec.round(amount, MONEY_PLACES);
}

/**
 * Fees as one text: the quote's, then each other asset's beside it (a spot buy's fee the venue
 * took in the base coin), never converted: `0.6 + 0.00013 BTC`. Every "fees" a person reads
 * says the whole cost this way; `quote` names the quote's asset when another asset follows it.
 */
export function shownFees(fees: Decimal, other: Readonly<Record<string, Decimal>>, quote?: string): string {
  const others = Object.keys(other)
    .sort()
    .filter((asset) => !dec.isZero(other[asset]!))
    .map((asset) => ` + ${shownMoney(other[asset]!)} ${asset}`);
  return `${shownMoney(fees)}${quote !== undefined && others.length > 0 ? ` ${quote}` : ''}${others.join('')}`;
}

/**
 * A quantity, half-even to the instrument's quantity precision. A position built from fills
 * already has at most that many places (each fill's volume has); without the instrument it is
 * left as it is.
 */
export function shownQuantity(quantity: Decimal, instrument: Precision | undefined): Decimal {
  return instrument ? dec.round(quantity, instrument.quantityPrecision) : quantity;
}

/**
 * An average price (an entry price over several fills), half-even to the price precision plus
 * 2 places, the way the venue writes an order's avgPrice; MONEY_PLACES without the instrument.
 */
export function shownAveragePrice(price: Decimal, instrument: Precision | undefined): Decimal {
  return dec.round(price, instrument ? instrument.pricePrecision + 2 : MONEY_PLACES);
}

/** A statistic to STATISTIC_DIGITS significant digits, so float noise (0.35398230088495575) does not print. */
export function shownStatistic(value: number): number {
  return Number.isFinite(value) && value !== 0 ? Number(value.toPrecision(STATISTIC_DIGITS)) : value;
}

/** A duration in the largest unit that keeps it at least 1, to 2 significant digits: "10 s", "30 min", "7 days". */
export function durationText(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, ' days'],
    [3_600_000, ' h'],
    [60_000, ' min'],
    [1000, ' s'],
  ];
  for (const [size, name] of units) {
    // Rounded first, so 59.99 min is "1 h", not "60 min".
    const n = Number((ms / size).toPrecision(2));
    if (n >= 1) return `${n}${n === 1 && name === ' days' ? ' day' : name}`;
  }
  return `${Number(ms.toPrecision(2))} ms`;
}
