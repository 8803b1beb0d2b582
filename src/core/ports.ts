// The seams between sluice and the world. Each has more than one implementation
// (live, simulated, recorded, replayed, virtual-time), so each is an interface here.

export type { Clock } from './clock.js';

export type HttpMethod = 'GET' | 'POST';

export interface HttpRequest {
  method: HttpMethod;
  /** Path only, e.g. /sapi/v1/order. */
  path: string;
  /** Raw query string without '?', exactly as sent and signed; empty when none. */
  query: string;
  /** Raw body exactly as sent and signed; empty for GET. */
  body: string;
  headers: Readonly<Record<string, string>>;
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string>>;
  body: string;
}

/**
 * Moves one request to a venue and back. Implementations throw TransportFailure when no
 * HTTP answer arrived, saying whether the request may have reached the venue.
 */
export interface Transport {
  send(request: HttpRequest): Promise<HttpResponse>;
  close?(): Promise<void>;
}

export class TransportFailure extends Error {
  constructor(
    message: string,
    /** True when bytes may have reached the venue (so a write may have been executed). */
    readonly maybeDelivered: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportFailure';
  }
}

/** Paces jobs per endpoint so no rolling 2 s window ever holds more than that endpoint's limit. */
export interface Pacer {
  /** Runs `job` when `endpoint` has room; the job's start is the moment the request may be sent. */
  run<T>(endpoint: string, job: () => Promise<T>): Promise<T>;
  /** Stops `endpoint` taking new jobs for `ms` (after a 429). */
  pauseEndpoint(endpoint: string, ms: number): void;
  /** Stops every endpoint until `untilMs` (after a 418). */
  pauseAll(untilMs: number): void;
  /** Time (epoch ms) until which everything is paused, or 0. */
  pausedUntil(): number;
  /** For the summary line and metrics: requests in the current window per endpoint, queue depth. */
  usage(): Record<string, { inWindow: number; limit: number; queued: number }>;
  stop(): Promise<void>;
}
