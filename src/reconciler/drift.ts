// Position drift: what our fills say we hold against what the venue holds, as a pure function.
//
// Spot has no "position" on the venue, only balances, and the account held coins before sluice
// traded it. So each base asset gets a baseline, taken once when the journal first sees the
// account (venue total minus what our fills explain) and kept in the journal; afterwards the
// venue total must equal baseline + our net fills - the fees we paid in that coin. Futures
// positions are compared the same way per contract (the account may hold a position opened by
// hand before sluice started). Anything else moving the balance (a manual trade, a deposit, a
// fill we never saw) shows up as drift.
import { dec, type Decimal } from '../core/decimal.js';
import type { Market } from '../core/types.js';

export interface DriftInput {
  market: Market;
  /** The asset (spot) or contract (futures) compared. */
  name: string;
  /** Symbols whose positions make up `ours`. */
  symbols: readonly string[];
  /** Net quantity our fills explain: positions summed, minus fees paid in this asset. */
  ours: Decimal;
  /** What the venue holds now: balance free + locked (spot), net position (futures). */
  venue: Decimal;
  /** Venue minus ours when first seen; undefined on the first check. */
  baseline: Decimal | undefined;
  tolerance: Decimal;
}

export interface DriftLine {
  market: Market;
  name: string;
  symbols: readonly string[];
  /** What the venue should hold according to our fills (baseline + ours). */
  expected: Decimal;
  venue: Decimal;
  /** venue - expected. */
  difference: Decimal;
  tolerance: Decimal;
  beyond: boolean;
  baseline: Decimal;
}

export function driftOf(input: DriftInput): DriftLine {
  const baseline = input.baseline ?? dec.sub(input.venue, input.ours);
  const expected = dec.add(baseline, input.ours);
  const difference = dec.sub(input.venue, expected);
  return {
    market: input.market,
    name: input.name,
    symbols: input.symbols,
    expected,
    venue: input.venue,
    difference,
    tolerance: input.tolerance,
    beyond: dec.gt(dec.abs(difference), input.tolerance),
    baseline,
  };
}

/**
 * Drift must last `graceMs` before anything acts on it: a balance moves the moment a fill
 * happens, while the fill itself may show in myTrades seconds later.
 */
export class DriftWatch {
  private since: number | undefined;

  constructor(private readonly graceMs: number) {}

  /** 'act' once drift has lasted graceMs, 'clear' when it is gone, 'wait' in between. */
  observe(lines: readonly DriftLine[], now: number): 'act' | 'clear' | 'wait' {
    if (!lines.some((l) => l.beyond)) {
      this.since = undefined;
      return 'clear';
    }
    this.since ??= now;
    return now - this.since >= this.graceMs ? 'act' : 'wait';
  }
}

export function describeDrift(l: DriftLine): string {
  const what = l.market === 'spot' ? `${l.name} balance` : `${l.name} position`;
  return `${what} on the venue is ${l.venue}, our fills explain ${l.expected} (difference ${l.difference}, tolerance ${l.tolerance})`;
}

