// Position drift: what our fills say we hold against what the venue holds, as pure functions.
//
// Spot has no "position" on the venue, only balances, and the account held coins before sluice
// traded it. So each base asset gets a baseline, taken once when the journal first sees the
// account (venue total minus what our fills explain) and kept in the journal; afterwards the
// venue total must equal baseline + our net fills - the fees we paid in that coin. Futures
// positions are compared the same way per contract (the account may hold a position opened by
// hand before sluice started). Anything else moving the balance (a manual trade, a deposit, a
// fill we never saw) shows up as drift.
import { amend } from '../core/amend.js';
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

/** A fill's effect on one drift line: what it moved in that asset or contract, and when the venue booked it. */
export interface Movement {
  time: number;
  /** Signed: a spot buy adds its volume less a fee paid in the asset; a sell takes it away. */
  delta: Decimal;
}

export interface SnapshotInput extends Omit<DriftInput, 'ours'> {
  /** What our fills explain now. */
  oursNow: Decimal;
  /** Movements of this line's fills booked from `from` on (earlier ones need not be given). */
  recent: readonly Movement[];
  /** The read was sent at `from` and answered at `to` (venue time): the venue took its figure in between. */
  from: number;
  to: number;
}

/**
 * Compares like with like: a holdings figure the venue took somewhere between `from` and `to`
 * against what our fills explain at that moment. Fills booked in between may or may not be in
 * the figure, so every moment of the span is tried (after each of its fills, in booking order)
 * and the closest is the line's difference. Fills booked after `to` are never in it.
 * Judge a read only once every fill booked before it has had time to show in myTrades.
 */
export function driftAt(input: SnapshotInput): DriftLine {
  const moves = [...input.recent].sort((a, b) => a.time - b.time);
  // What our fills explained just before `from`, then after each fill of the span.
  let explained = moves.filter((m) => m.time >= input.from).reduce((v, m) => dec.sub(v, m.delta), input.oursNow);
  const moments = [explained];
  for (const m of moves) {
    if (m.time < input.from) continue;
    if (m.time > input.to) break;
    explained = dec.add(explained, m.delta);
    moments.push(explained);
  }
  const lines = moments.map((ours) => driftOf(amend(input, { ours })));
  return lines.reduce((best, l) => (dec.lt(dec.abs(l.difference), dec.abs(best.difference)) ? l : best));
}

/**
 * Drift acts when a holdings read, judged once fills booked before it have had `graceMs` to
 * show (see driftAt), still disagrees; it clears when one agrees. A balance moves the moment a
 * fill happens while the fill itself may show in myTrades later: judging the read that late,
 * against the fills booked before it, is what keeps a busy account from looking drifted.
 */
export class DriftWatch {
  private acting = false;

  /** 'act' on the first judged drift, 'clear' when a judged read agrees again, 'wait' otherwise. */
  observe(lines: readonly DriftLine[]): 'act' | 'clear' | 'wait' {
    const beyond = lines.some((l) => l.beyond);
    if (beyond === this.acting) return beyond ? 'wait' : 'clear';
    this.acting = beyond;
    return beyond ? 'act' : 'clear';
  }
}

export function describeDrift(l: DriftLine): string {
  const what = l.market === 'spot' ? `${l.name} balance` : `${l.name} position`;
  return `${what} on the venue is ${l.venue}, our fills explain ${l.expected} (difference ${l.difference}, tolerance ${l.tolerance})`;
}


/** The operator's alert for a judged drift: every line beyond tolerance, and what trading does until it is resolved. */
export function driftAlert(lines: readonly DriftLine[], mode: string): string {
  return `position drift: ${lines.map(describeDrift).join('; ')}; trading is ${mode} until it is resolved`;
}
