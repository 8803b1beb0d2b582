// Classifies a venue answer once. The code table is data; callers branch on the error class.
import {
  AuthError,
  BannedError,
  ClockSkewError,
  OrderRejectedError,
  RateLimitedError,
  TemporaryError,
  UnknownOrderError,
  type VenueContext,
  type VenueError,
} from '../core/errors.js';
import { VenueCode } from './codes.js';
import { ENDPOINTS, type EndpointId } from './endpoints.js';

export type ErrorClass = 'auth' | 'clockSkew' | 'rateLimited' | 'temporary' | 'outcomeUnknown' | 'unknownOrder' | 'rejected';

/** What each venue code means for us. Other codes of the notes are business rejections (never retried). */
export const CODE_CLASS: Readonly<Record<number, ErrorClass>> = {
  [VenueCode.UNAUTHORIZED]: 'auth',
  [VenueCode.NO_THIS_COMPANY]: 'auth',
  [VenueCode.INVALID_SIGNATURE]: 'auth',
  [VenueCode.MISSING_TIMESTAMP]: 'auth',
  [VenueCode.MISSING_SIGNATURE]: 'auth',
  [VenueCode.REJECTED_API_KEY]: 'auth',
  [VenueCode.UNTRUSTED_IP]: 'auth',
  [VenueCode.INVALID_TIMESTAMP]: 'clockSkew',
  [VenueCode.TOO_MANY_REQUESTS]: 'rateLimited',
  [VenueCode.UNKNOWN]: 'temporary',
  [VenueCode.DISCONNECTED]: 'temporary',
  [VenueCode.SERVICE_SHUTTING_DOWN]: 'temporary',
  // "status unknown" in the venue's own words: the request may have been executed.
  [VenueCode.UNEXPECTED_RESP]: 'outcomeUnknown',
  [VenueCode.TIMEOUT]: 'outcomeUnknown',
  [VenueCode.NO_SUCH_ORDER]: 'unknownOrder',
};

/**
 * On an endpoint that places orders, "unknown error" (-1000) and "internal error, retry"
 * (-1001) do not say the venue did nothing: it may have booked the order before failing, and
 * it does not enforce unique client ids, so sending the same body again could place it twice.
 */
const AMBIGUOUS_ON_PLACE: ReadonlySet<number> = new Set([VenueCode.UNKNOWN, VenueCode.DISCONNECTED, VenueCode.SERVICE_SHUTTING_DOWN]);

/**
 * Every code the notes name. On an endpoint that places orders, a code outside them is an
 * answer we cannot classify: it may not be a refusal, so the outcome is unknown and the
 * reconciler settles it (a code the notes list as a refusal is one: the venue did nothing).
 */
const KNOWN_CODES: ReadonlySet<number> = new Set(Object.values(VenueCode));

/**
 * Statuses without a venue code that do not say the venue did nothing: a proxy's timeout (408,
 * 499), a conflict (409), too early (425). On an endpoint that places orders, outcome unknown.
 */
const UNSURE_WITHOUT_CODE: ReadonlySet<number> = new Set([408, 409, 425, 499]);

/** Default pause after a 429 that carries no Retry-After: one full rate window. */
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 2000;
/** The longest pause consecutive 429s on an endpoint double the default to (a longer Retry-After is kept). */
export const MAX_RATE_LIMIT_PAUSE_MS = 60_000;
/** Default ban length when a 418 says nothing about it (the venue's documented minimum). */
export const DEFAULT_BAN_MS = 120_000;

export interface VenueAnswer {
  endpoint: string;
  status: number;
  headers: Readonly<Record<string, string>>;
  /** Parsed body, or undefined when it was not JSON. */
  body: unknown;
  /** Venue time (ms) when it answered, for turning Retry-After into an end time. */
  now: number;
  /**
   * Our clock at the same moment, plus how far off our estimate of the venue clock may be: a
   * ban's end is given on our clock (the pacer and journal use it) and never taken as earlier.
   */
  localNow: number;
  /**
   * Takes our secrets out of the venue's text before it is cut to length: cut first, a key the
   * venue echoed across the cut would keep its first characters, which no later redaction finds.
   */
  scrub?: (text: string) => string;
}

/**
 * The error an answer represents, or undefined when it is a success. A success is a 2xx whose
 * body has no non-zero `code` (the futures envelope {code:"0", data} is a success).
 */
export function classifyAnswer(a: VenueAnswer): VenueError | undefined {
  const { code, msg } = readCode(a.body, a.scrub);
  const ctx: VenueContext = { endpoint: a.endpoint, httpStatus: a.status, venueCode: code, venueMsg: msg };
  const isError = a.status < 200 || a.status >= 300 || (code !== undefined && code !== 0);
  if (!isError) return undefined;

  if (a.status === 418) {
    const end = banEnd(a);
    return end === undefined ? new BannedError(ctx, a.localNow + DEFAULT_BAN_MS, false) : new BannedError(ctx, end);
  }
  // A 5xx is an internal error (the notes): it does not say whether the backend acted, whatever
  // its body says, so on an endpoint that places orders the outcome is unknown and the request is
  // never sent again (a 503 or -1016 "service unavailable" included: nothing in the contract says
  // such an answer comes only before the venue acted; nor a -1003 "too many requests" body on a
  // 5xx, which would otherwise be retried as a rate limit). Elsewhere a 503 is worth asking again.
  const placesOrders = ENDPOINTS[a.endpoint as EndpointId]?.placesOrders === true;
  if (a.status === 429 || (code === VenueCode.TOO_MANY_REQUESTS && !(placesOrders && a.status >= 500))) {
    return new RateLimitedError(ctx, retryAfterMs(a.headers['retry-after'], a.now) ?? DEFAULT_RATE_LIMIT_PAUSE_MS);
  }
  const unsure = a.status === 504 || (a.status >= 500 && (placesOrders || a.status !== 503));
  if (code !== undefined && code !== 0) {
    let cls = CODE_CLASS[code] ?? 'rejected';
    // A 504 outranks the body: the gateway gave up waiting, whatever the backend did.
    if (a.status === 504 || (placesOrders && (unsure || AMBIGUOUS_ON_PLACE.has(code) || !KNOWN_CODES.has(code)))) cls = 'outcomeUnknown';
    // Elsewhere a 5xx's body concludes nothing either: "no such order" from a backend in trouble
    // would end an order that is open, a refusal would fail a read worth asking again.
    else if (a.status >= 500 && (cls === 'unknownOrder' || cls === 'rejected')) cls = 'temporary';
    // The venue's code always leads its text: the same text comes with different codes, and the code is what its documentation lists.
    return build(cls, ctx, msg === undefined ? `venue code ${code}` : `venue code ${code}: ${msg}`);
  }
  if (a.status >= 500) return build(unsure ? 'outcomeUnknown' : 'temporary', ctx, `HTTP ${a.status}`);
  if (a.status === 401 || a.status === 403) return build('auth', ctx, `HTTP ${a.status}`);
  if (placesOrders && UNSURE_WITHOUT_CODE.has(a.status)) return build('outcomeUnknown', ctx, `HTTP ${a.status} without a venue error code`);
  return build('rejected', ctx, `HTTP ${a.status} without a venue error code`);
}

function build(cls: ErrorClass, ctx: VenueContext, message: string): VenueError {
  switch (cls) {
    case 'auth':
      return new AuthError(ctx, message);
    case 'clockSkew':
      return new ClockSkewError(ctx, message);
    case 'rateLimited':
      return new RateLimitedError(ctx, DEFAULT_RATE_LIMIT_PAUSE_MS);
    case 'temporary':
      return new TemporaryError(ctx, message, false);
    case 'outcomeUnknown':
      return new TemporaryError(ctx, `${message} (outcome unknown)`, true);
    case 'unknownOrder':
      return new UnknownOrderError(ctx, message);
    case 'rejected':
      return new OrderRejectedError(ctx, message);
  }
}

/** Reads {code, msg} where code may be a number or a numeric string. */
function readCode(body: unknown, scrub: (text: string) => string = (t) => t): { code?: number; msg?: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  const o = body as Record<string, unknown>;
  const raw = o.code;
  const code = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : undefined;
  const msg = typeof o.msg === 'string' ? scrub(o.msg).slice(0, 200) : typeof o.message === 'string' ? scrub(o.message).slice(0, 200) : undefined;
  return { code, msg };
}

/** Retry-After as delta-seconds or an HTTP date, in ms from `now`. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * When a ban ends, on our clock: the later of the body's end (venue time, which a stale clock
 * offset could misplace) and Retry-After (a delay, which it cannot); undefined if neither says.
 * Exported for tapes: a backtest plays a recorded ban as long as the client read it.
 */
export function banEnd(a: Pick<VenueAnswer, 'headers' | 'body' | 'now' | 'localNow'>): number | undefined {
  const ends: number[] = [];
  const o = a.body !== null && typeof a.body === 'object' ? (a.body as Record<string, unknown>) : {};
  const key = ['banUntil', 'bannedUntil', 'banUntilMs'].find((k) => o[k] !== undefined);
  const v = key === undefined ? undefined : o[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;
  if (n !== undefined && n > a.now) ends.push(n - a.now + a.localNow);
  const after = retryAfterMs(a.headers['retry-after'], a.now);
  if (after !== undefined) ends.push(a.localNow + after);
  return ends.length > 0 ? Math.max(...ends) : undefined;
}

/** The longest pause sluice picks for a ban whose end the venue does not say. */
export const MAX_UNSTATED_BAN_MS = 3_600_000;

/**
 * How long to stay away after a ban whose end the venue did not say, when `repeat` such bans
 * met the requests sent after the one before ended: two minutes, doubling each time up to an
 * hour. The notes: a ban lasts from 2 minutes up to 3 days and grows for repeat offenders, so
 * asking again every two minutes through a long one is what could make it longer.
 */
export function unstatedBanMs(repeat: number): number {
  return Math.min(MAX_UNSTATED_BAN_MS, DEFAULT_BAN_MS * 2 ** Math.max(0, repeat));
}
