// One error tree. Each class says what happens next; callers branch on the class (or its
// stable `code`), never on message text. Messages never contain secrets.

export abstract class SluiceError extends Error {
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface ConfigProblem {
  /** YAML path such as `strategies[0].params.levels`. */
  path: string;
  message: string;
  /** 1-based line in the YAML file, when known. */
  line?: number;
}

/** Fatal at start-up; lists every problem at once. */
export class ConfigError extends SluiceError {
  readonly code = 'CONFIG_INVALID';
  constructor(readonly problems: readonly ConfigProblem[], source = 'config') {
    super(
      `${source} has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n` +
        problems.map((p) => `  - ${p.path}${p.line ? ` (line ${p.line})` : ''}: ${p.message}`).join('\n'),
    );
  }
}

/** A plugin misbehaved: that strategy is disabled, the daemon runs on. */
export class StrategyError extends SluiceError {
  readonly code = 'STRATEGY_FAILED';
  constructor(readonly strategyId: string, message: string, options?: { cause?: unknown }) {
    super(`strategy ${strategyId}: ${message}`, options);
  }
}

/** Facts about one venue exchange that went wrong, carried by every venue-side error. */
export interface VenueContext {
  endpoint: string;
  httpStatus?: number;
  venueCode?: number;
  venueMsg?: string;
}

export abstract class VenueError extends SluiceError {
  /** The message without the endpoint in front. */
  readonly detail: string;
  constructor(readonly venue: VenueContext, message: string, options?: { cause?: unknown }) {
    super(`${venue.endpoint}: ${message}`, options);
    this.detail = message;
  }
}

/**
 * Network failure, 5xx, timeout. `outcomeUnknown` is true when the request may have reached
 * the venue and been acted on (sent and no answer, 504, -1006/-1007): reads may retry, writes
 * go to the reconciler.
 */
export class TemporaryError extends VenueError {
  readonly code = 'VENUE_TEMPORARY';
  constructor(venue: VenueContext, message: string, readonly outcomeUnknown: boolean, options?: { cause?: unknown }) {
    super(venue, message, options);
  }
}

/** 429 / -1003: pause this endpoint for `retryAfterMs`. */
export class RateLimitedError extends VenueError {
  readonly code = 'VENUE_RATE_LIMITED';
  constructor(venue: VenueContext, readonly retryAfterMs: number) {
    super(venue, `rate limited; retry after ${retryAfterMs} ms`);
  }
}

/** 418: every request to this venue stops until `untilMs` (epoch ms). Persist it. */
export class BannedError extends VenueError {
  readonly code = 'VENUE_BANNED';
  /** `stated`: the venue said when the ban ends (Retry-After or the body); else sluice chose the pause. */
  constructor(
    venue: VenueContext,
    readonly untilMs: number,
    readonly stated = true,
  ) {
    super(venue, `banned until ${new Date(untilMs).toISOString()}${stated ? '' : ' (the venue did not say; sluice waits this long)'}`);
  }
}

/** -1021: our timestamp was outside the venue's window. Resync the clock, retry once. */
export class ClockSkewError extends VenueError {
  readonly code = 'VENUE_CLOCK_SKEW';
}

/** -1002/-1022/-2015 and friends: credentials or signing are wrong. Fatal. */
export class AuthError extends VenueError {
  readonly code = 'VENUE_AUTH';
}

/** A business rejection (bad symbol, precision, balance...). Never retried. */
export class OrderRejectedError extends VenueError {
  readonly code = 'ORDER_REJECTED';
}

/** -2013: the venue does not know this order. */
export class UnknownOrderError extends VenueError {
  readonly code = 'UNKNOWN_ORDER';
}

/** The venue answered something we cannot read. Names the field; for writes the outcome is unknown. */
export class MalformedResponseError extends VenueError {
  readonly code = 'VENUE_MALFORMED_RESPONSE';
  constructor(venue: VenueContext, readonly field: string, problem: string) {
    super(venue, `malformed response: ${field} ${problem}`);
  }
}

/** Replay was asked for a request the tape does not hold. */
export class TapeMismatchError extends SluiceError {
  readonly code = 'TAPE_MISMATCH';
  constructor(readonly diff: string) {
    super(`request differs from the tape:\n${diff}`);
  }
}

/** A tape's market event the simulator cannot apply (a symbol it does not list, a price finer than its tick). */
export class TapeEventError extends SluiceError {
  readonly code = 'TAPE_EVENT';
}

/** The local journal cannot be used as it is (corrupt, or written by a newer version). */
export class JournalError extends SluiceError {
  readonly code = 'JOURNAL_UNUSABLE';
}

/** An intent that risk or validation refused, with the rule and the numbers. */
export class IntentRejectedError extends SluiceError {
  readonly code = 'INTENT_REJECTED';
  constructor(readonly rule: string, message: string) {
    super(`${rule}: ${message}`);
  }
}

/**
 * True when a write may or may not have been executed by the venue: the request may have
 * arrived and no readable answer came back. Such orders become `unknown` for the reconciler.
 */
export function isOutcomeUnknown(err: unknown): boolean {
  return (err instanceof TemporaryError && err.outcomeUnknown) || err instanceof MalformedResponseError;
}

/** What an error says, for a log field or a message: its message, or the thrown value as text. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
