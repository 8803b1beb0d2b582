// call(): pace, then timestamp and sign, then send, decode and classify.
// The timestamp is taken inside the pacer job, when the request is really about to leave,
// so time spent queued never counts against recvWindow.
import pRetry, { AbortError } from 'p-retry';
import { amend } from '../core/amend.js';
import { systemRandom, type Clock, type Random } from '../core/clock.js';
import {
  AuthError,
  BannedError,
  ClockSkewError,
  MalformedResponseError,
  RateLimitedError,
  SluiceError,
  TemporaryError,
  type VenueError,
  errorText,
} from '../core/errors.js';
import { TransportFailure, type HttpRequest, type Pacer, type Transport } from '../core/ports.js';
import type { Market } from '../core/types.js';
import { decodeResponse, encodeBody, encodeQuery, unreadableItems, type RequestParams, type ResponseOf } from '../exchange/codec.js';
import { ENDPOINTS, isSigned, needsKey, type Endpoint, type EndpointId } from '../exchange/endpoints.js';
import { classifyAnswer, DEFAULT_RATE_LIMIT_PAUSE_MS, MAX_RATE_LIMIT_PAUSE_MS, retryAfterMs, unstatedBanMs } from '../exchange/errors.js';
import { parseJsonLossless, stringifyJson } from '../exchange/json.js';
import { sign } from '../exchange/sign.js';
import { ResponseTooLargeError } from '../exchange/transport/errors.js';
import type { VenueClock } from './venue-clock.js';

export interface Credentials {
  apiKey: string;
  apiSecret: string;
}

export interface RetryPolicy {
  /** Retries after the first attempt, for calls that may be retried. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseDelayMs: 200, maxDelayMs: 5_000 };
export const DEFAULT_RECV_WINDOW_MS = 5000;

/** One finished attempt, for metrics and logs. Carries no key, secret or signature. */
export interface CallRecord {
  endpoint: EndpointId;
  attempt: number;
  /** Local time the call was asked for, and the time its request left (after pacing). */
  requestedAt: number;
  sentAt?: number;
  finishedAt: number;
  httpStatus?: number;
  error?: VenueError;
}

export interface ExecutorOptions {
  transport: (market: Market) => Transport;
  pacer: Pacer;
  clock: Clock;
  /** Each market's host's clock: the same object when both markets are on one host. */
  venueClocks: Readonly<Record<Market, VenueClock>>;
  /** Absent in paper mode against public data only; signed calls then fail fast. */
  credentials?: Credentials;
  recvWindowMs?: number;
  retry?: RetryPolicy;
  random?: Random;
  onCall?: (record: CallRecord) => void;
}

const P_RETRY_DEFAULTS = { factor: 2, maxRetryTime: Number.POSITIVE_INFINITY, randomize: false, shouldRetry: () => true, shouldConsumeRetry: () => true } as const;

/** How far ahead of the venue's clock a timestamp may be (the contract's rule). */
const VENUE_AHEAD_ALLOWANCE_MS = 1000;

export class Executor {
  private readonly recvWindowMs: number;
  private readonly retry: RetryPolicy;
  private readonly random: Random;
  /** Bans without a stated end met by requests sent after the one before ended (reset by any answer that is not an error). */
  private unstatedBans = 0;
  /** When the pause for the latest such ban ends. */
  private unstatedBanEnd = Number.NEGATIVE_INFINITY;
  /**
   * Per endpoint: 429s in a row met by requests sent after the pause before them began (reset by
   * any other answer on it), each doubling the next pause, and when the latest pause began.
   */
  private readonly rateLimited = new Map<string, { streak: number; pausedAt: number }>();

  constructor(private readonly opts: ExecutorOptions) {
    this.recvWindowMs = opts.recvWindowMs ?? DEFAULT_RECV_WINDOW_MS;
    this.retry = opts.retry ?? DEFAULT_RETRY;
    this.random = opts.random ?? systemRandom;
  }

  /**
   * Calls `endpoint` and returns its decoded answer, or throws a classified SluiceError.
   * Order placement is retried only when the venue provably did not act (429, -1021, a
   * refused connection); an ambiguous outcome (any 5xx, -1000/-1001/-1016, a code the notes do
   * not name) is thrown so the orders become unknown.
   */
  async call<E extends EndpointId>(endpoint: E, params: RequestParams[E]): Promise<ResponseOf[E]> {
    const ep = ENDPOINTS[endpoint];
    const requestedAt = this.opts.clock.now();
    let skewRetried = false;
    let attempt = 0;
    return pRetry(
      async () => {
        attempt++;
        try {
          return await this.attempt(ep, params, requestedAt, attempt);
        } catch (err) {
          if (!this.retriable(ep, err, skewRetried)) throw new AbortError(err as Error);
          if (err instanceof ClockSkewError) {
            skewRetried = true;
            await this.opts.venueClocks[ep.market].recover();
          }
          throw err;
        }
      },
      {
        retries: this.retry.retries,
        // p-retry would wait with a real setTimeout; we wait on the injected clock instead.
        minTimeout: 0,
        maxTimeout: 0,
        onFailedAttempt: async ({ error, retriesLeft }) => {
          if (retriesLeft <= 0 || error instanceof RateLimitedError || error instanceof ClockSkewError) return;
          await this.opts.clock.sleep(this.backoffMs(attempt));
        },
        // p-retry's own defaults, given so it has none to add: it copies its options and fills
        // in the missing ones, which on Node 20 takes V8's slow path (13 µs a call instead of 1).
        ...P_RETRY_DEFAULTS,
      },
    );
  }

  /** Exponential backoff with full jitter: spreads retries of many callers apart. */
  private backoffMs(attempt: number): number {
    const cap = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(this.random() * cap);
  }

  private retriable(ep: Endpoint, err: unknown, skewRetried: boolean): boolean {
    if (err instanceof RateLimitedError) return true; // rejected before execution; the pacer holds the endpoint
    if (err instanceof ClockSkewError) return !skewRetried;
    if (err instanceof TemporaryError) return !(ep.placesOrders && err.outcomeUnknown);
    return false;
  }

  private async attempt<E extends EndpointId>(ep: Endpoint, params: RequestParams[E], requestedAt: number, attempt: number): Promise<ResponseOf[E]> {
    const { clock, pacer } = this.opts;
    this.refuseWhileBanned(ep);
    if (isSigned(ep)) await this.opts.venueClocks[ep.market].settled();
    const record: CallRecord = { endpoint: ep.id, attempt, requestedAt, finishedAt: 0 };
    try {
      const res = await pacer.run(ep.id, async () => {
        // A ban may have started while this job waited in the queue.
        this.refuseWhileBanned(ep);
        record.sentAt = clock.now();
        const answer = await this.send(ep, params);
        this.toldPacer(ep, answer, record.sentAt);
        return answer;
      });
      record.httpStatus = res.status;
      let body: unknown = res.json;
      if (body === undefined) {
        try {
          body = res.body.trim() === '' ? undefined : parseJsonLossless(res.body);
        } catch {
          body = undefined;
        }
      }
      const venueClock = this.opts.venueClocks[ep.market];
      const error = classifyAnswer({ endpoint: ep.id, status: res.status, headers: res.headers, body, now: venueClock.now(), localNow: this.opts.clock.now() + venueClock.errorMs(), scrub: this.scrub });
      if (error) throw error;
      const ctx = { endpoint: ep.id, httpStatus: res.status };
      if (body === undefined) {
        // Say what came instead (a proxy's HTML page, an empty 200), not the body itself: a
        // page that echoes our request headers would otherwise leak the key into logs.
        const type = res.headers['content-type'] ? `content-type ${res.headers['content-type'].split(';')[0]!.trim()}, ` : '';
        throw new MalformedResponseError(ctx, 'body', res.body.trim() === '' ? `is empty (HTTP ${res.status})` : `is not JSON (HTTP ${res.status}, ${type}${Buffer.byteLength(res.body)} bytes)`);
      }
      let decoded: ResponseOf[E];
      try {
        decoded = decodeResponse(ep.id as E, body);
      } catch (e) {
        // Whatever the decoder trips on (a bug, an input we did not foresee) is still a venue
        // answer we cannot read: classify it so a placement becomes outcome-unknown.
        if (e instanceof MalformedResponseError) {
          e.venue.httpStatus = res.status;
          throw e;
        }
        throw new MalformedResponseError(ctx, 'body', `could not be decoded (${errorText(e)})`);
      }
      // A batch answer with fewer ids than orders is settled by the gateway (every order of
      // the batch becomes unknown); the executor returns the ids as the venue gave them. An item
      // that could not be read carries its error: told like any other (status, no secrets).
      const items = ep.id === 'spot.batchOrders' ? unreadableItems(decoded as ResponseOf['spot.batchOrders']) : [];
      for (const e of items) {
        e.venue.httpStatus = res.status;
        this.redact(e);
      }
      this.unstatedBans = 0;
      return decoded;
    } catch (err) {
      const classified = this.lengthenBan(this.redact(this.classifyFailure(ep, err)), record.sentAt);
      if (classified instanceof RateLimitedError) pacer.pauseEndpoint(ep.id, this.rateLimitPauseMs(ep, classified.retryAfterMs, record.sentAt));
      if (classified instanceof BannedError) pacer.pauseAll(classified.untilMs);
      if (classified instanceof Error && 'venue' in classified) record.error = classified as VenueError;
      throw classified;
    } finally {
      record.finishedAt = clock.now();
      this.opts.onCall?.(record);
    }
  }

  private classifyFailure(ep: Endpoint, err: unknown): unknown {
    if (err instanceof ResponseTooLargeError) {
      // The status line still speaks (a 5xx with a huge HTML page is a TemporaryError); a 2xx
      // we refused to read in full is an answer we cannot read.
      const ctx = { endpoint: ep.id, httpStatus: err.status };
      const venueClock = this.opts.venueClocks[ep.market];
      return (
        classifyAnswer({ endpoint: ep.id, status: err.status, headers: err.headers, body: undefined, now: venueClock.now(), localNow: this.opts.clock.now() + venueClock.errorMs() }) ??
        new MalformedResponseError(ctx, 'body', `is larger than ${err.maxBytes} bytes (HTTP ${err.status}); stopped reading it`)
      );
    }
    if (err instanceof TransportFailure) {
      return new TemporaryError({ endpoint: ep.id }, err.maybeDelivered ? `${err.message} (outcome unknown)` : err.message, err.maybeDelivered, { cause: err });
    }
    return err;
  }

  /**
   * Messages never carry secrets: a venue or proxy may echo our key or signature back in an
   * error text or a field value, and messages end up in logs and alerts.
   */
  private readonly scrub = (text: string): string => {
    const creds = this.opts.credentials;
    const secrets = creds ? [creds.apiSecret, creds.apiKey].filter((s) => s.length >= 4) : [];
    return secrets.reduce((t, s) => t.split(s).join('[redacted]'), text);
  };

  private redact(err: unknown): unknown {
    if (!this.opts.credentials || !(err instanceof SluiceError)) return err;
    const scrub = this.scrub;
    err.message = scrub(err.message);
    // The stack was written with the original message when the error was built.
    if (err.stack !== undefined) err.stack = scrub(err.stack);
    if ('venue' in err) {
      const venue = (err as VenueError).venue;
      if (venue.venueMsg !== undefined) venue.venueMsg = scrub(venue.venueMsg);
    }
    return err;
  }

  /**
   * A ban whose end the venue did not say lasts as long as unstatedBanMs picks: longer each time
   * a request sent after the last such pause ended is banned again. Requests already in flight
   * when a ban began are answered 418 too; they do not lengthen it.
   */
  private lengthenBan(err: unknown, sentAt: number | undefined): unknown {
    if (!(err instanceof BannedError) || err.stated) return err;
    if (sentAt !== undefined && sentAt >= this.unstatedBanEnd) this.unstatedBans++;
    this.unstatedBanEnd = Math.max(err.untilMs, this.opts.clock.now() + unstatedBanMs(this.unstatedBans - 1));
    return this.unstatedBanEnd === err.untilMs ? err : new BannedError(err.venue, this.unstatedBanEnd, false);
  }

  /**
   * What an answer's status says to the pacer, before the job settles, so that what waits behind
   * it sees the pause (or the all-clear) first: a 429 or 418 pauses at once (the answer's own
   * pause, from its Retry-After or ban end, follows; a pause only grows); a 2xx-4xx tells it the
   * venue answered (after a pause it sends one request at a time until one sent after the pause
   * began is answered so); a 5xx says neither. A rate limit said only in a body's code (-1003
   * with another status, not as the notes show it) pauses a moment later, as classified.
   */
  private toldPacer(ep: Endpoint, answer: { status: number; headers: Readonly<Record<string, string>> }, sentAt: number): void {
    const { pacer, clock } = this.opts;
    if (answer.status === 418) pacer.pauseAll(clock.now() + DEFAULT_RATE_LIMIT_PAUSE_MS);
    else if (answer.status === 429) pacer.pauseEndpoint(ep.id, retryAfterMs(answer.headers['retry-after'], this.opts.venueClocks[ep.market].now()) ?? DEFAULT_RATE_LIMIT_PAUSE_MS);
    else if (answer.status < 500) {
      const limited = this.rateLimited.get(ep.id);
      if (limited && sentAt > limited.pausedAt) this.rateLimited.delete(ep.id);
      pacer.answered(ep.id, sentAt);
    }
  }

  /**
   * A 429's pause: its Retry-After (or the window, without one), doubled for each 429 before it on
   * the endpoint with no other answer between, up to MAX_RATE_LIMIT_PAUSE_MS; the notes: the
   * caller should slow down or stop, and a ban follows for continuing. Requests already on their
   * way when the latest pause began meet the same limit: they do not lengthen it.
   */
  private rateLimitPauseMs(ep: Endpoint, retryAfterMs: number, sentAt: number | undefined): number {
    const was = this.rateLimited.get(ep.id);
    const streak = was && sentAt !== undefined && sentAt <= was.pausedAt ? was.streak : (was?.streak ?? 0) + 1;
    this.rateLimited.set(ep.id, { streak, pausedAt: this.opts.clock.now() });
    return Math.max(retryAfterMs, Math.min(MAX_RATE_LIMIT_PAUSE_MS, DEFAULT_RATE_LIMIT_PAUSE_MS * 2 ** (streak - 1)));
  }

  private refuseWhileBanned(ep: Endpoint): void {
    const until = this.opts.pacer.pausedUntil();
    if (until > this.opts.clock.now()) throw new BannedError({ endpoint: ep.id }, until);
  }

  /**
   * The venue accepts X-CH-TS from serverTime - recvWindow up to serverTime + 1000: far more
   * room behind than ahead. When our estimate of its clock is uncertain (a slow sync), stamp
   * behind by that uncertainty, at most to the middle of the window the venue applies to this
   * request (its default when the request carries no recvWindow), so the error cannot put us
   * ahead and earn a -1021, nor behind beyond the window. Whole milliseconds.
   */
  private signingTime(ep: Endpoint, windowMs: number): number {
    const venueClock = this.opts.venueClocks[ep.market];
    const behind = Math.min(venueClock.errorMs(), Math.max(0, Math.floor((windowMs - VENUE_AHEAD_ALLOWANCE_MS) / 2)));
    return venueClock.now() - behind;
  }

  /** Builds, signs and sends. The strings signed are the strings sent. */
  private send<E extends EndpointId>(ep: Endpoint, params: RequestParams[E]) {
    const signed = isSigned(ep);
    // recvWindow is an ordinary parameter (body for POST, query for GET), sent only when it
    // differs from the venue's default, so parameterless GETs such as account stay bare.
    const withWindow = signed && this.recvWindowMs !== DEFAULT_RECV_WINDOW_MS && Object.keys(params).length > 0;
    let query = '';
    let body = '';
    if (ep.method === 'GET') {
      query = encodeQuery(withWindow ? amend(params, { recvWindow: this.recvWindowMs }) : params);
    } else {
      const value = encodeBody(ep.id, params) as Record<string, never>;
      body = stringifyJson(withWindow ? amend(value, { recvWindow: this.recvWindowMs }) : value);
    }
    const headers: Record<string, string> = {};
    if (needsKey(ep)) {
      const creds = this.opts.credentials;
      if (!creds) throw new AuthError({ endpoint: ep.id }, 'needs API credentials: set SLUICE_API_KEY and SLUICE_API_SECRET');
      headers['X-CH-APIKEY'] = creds.apiKey;
      if (signed) {
        const timestamp = String(this.signingTime(ep, withWindow ? this.recvWindowMs : DEFAULT_RECV_WINDOW_MS));
        headers['X-CH-TS'] = timestamp;
        // A trusted venue in this process knows us by the key: nothing to sign.
        if (!this.opts.transport(ep.market).trusted) headers['X-CH-SIGN'] = sign(creds.apiSecret, { timestamp, method: ep.method, path: ep.path, query, body });
      }
    }
    const request: HttpRequest = { method: ep.method, path: ep.path, query, body, headers };
    return this.opts.transport(ep.market).send(request);
  }
}
