// Client order ids are a pure function of (strategy, sequence), so a restarted daemon can
// recognise its own orders on the venue. Futures allows fewer than 32 characters.

const STRATEGY_PART = /^[a-z0-9]{1,12}$/;

export type ClientOrderId = string & { readonly __clientOrderId: unique symbol };
/** Venue order ids exceed 2^53: always carried as the decimal string. */
export type VenueOrderId = string & { readonly __venueOrderId: unique symbol };

/** `sl` + strategy tag + `-` + sequence in base 36. At most 2 + 12 + 1 + 13 = 28 characters. */
export function clientOrderId(strategyTag: string, sequence: number): ClientOrderId {
  if (!STRATEGY_PART.test(strategyTag)) {
    throw new RangeError(`strategy tag "${strategyTag}" must be 1-12 lower-case letters or digits`);
  }
  if (!Number.isSafeInteger(sequence) || sequence < 0) throw new RangeError(`sequence must be a non-negative integer`);
  return `sl${strategyTag}-${sequence.toString(36)}` as ClientOrderId;
}

/** Reads back (strategyTag, sequence) from an id we made; undefined for anyone else's id. */
export function parseClientOrderId(id: string): { strategyTag: string; sequence: number } | undefined {
  const m = /^sl([a-z0-9]{1,12})-([0-9a-z]{1,13})$/.exec(id);
  if (!m) return undefined;
  return { strategyTag: m[1]!, sequence: parseInt(m[2]!, 36) };
}

export function venueOrderId(text: string): VenueOrderId {
  if (!/^\d{1,30}$/.test(text)) throw new RangeError(`venue order id must be digits, got "${text}"`);
  return text as VenueOrderId;
}

/**
 * The journal cursor that holds the highest trade id of a symbol whose fill was pruned with its
 * order (store/prune.ts): a trade at or below it that no journaled order claims is one of those,
 * shown again by the venue, and the reconciler passes it over (reconciler/pruned.ts).
 */
export function prunedTradesKey(market: string, symbol: string): string {
  return `pruned:${market}:${symbol}`;
}

/** The journal cursor saying what `sluice journal prune` last deleted ({ at, before, throughFill }): fills at or below throughFill may be gone. */
export const PRUNED_KEY = 'journal:pruned';

/** Numeric order of digit-string ids (trade and order ids exceed 2^53). */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
