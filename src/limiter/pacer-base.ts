// What both implementations of the Pacer port share (bottleneck-pacer.ts for live,
// virtual-pacer.ts for backtests). Each endpoint has N slots; a job takes one when it
// starts (when the executor signs and sends) and the slot stays taken until `windowMs +
// safetyMarginMs` after its answer. A fixed refresh would let up to 2N into a rolling window across a
// boundary and a token bucket lets its burst on top of the rate (DESIGN.md measured 153-199
// for 100); holding each slot for a whole window cannot.
// - BottleneckPacer (live): the span counts from the job's settlement (the venue's answer),
//   because the venue stamps the request somewhere between our start and its answer, and under
//   load our start can precede the bytes leaving by more than the margin (undici queueing, a
//   busy event loop: the engine benchmark saw 429s and a 418 when counting from the start).
//   Slots are counted here; each endpoint's Bottleneck is the FIFO queue for jobs that find no
//   slot, fed one slot at a time through incrementReservoir.
// - VirtualPacer (backtests): the same rule on any Clock, through RollingWindow: a slot is
//   held while its request is in flight and for the span after its answer.
// Counted from the answer, the venue's stamp is already at least the window behind the next
// start, so the margin only covers granularity: a timer may fire up to 1 ms early (libuv
// counts whole milliseconds), the venue may stamp in whole milliseconds and count both ends
// of its window, and either clock may be slewed by NTP (500 ppm at most, 1 ms in 2 s). That is
// 3 ms at worst; the default of 10 ms is three times it. Each millisecond of margin costs
// 1/2000 of the endpoint's rate (20 ms held a run 20-60 ms from the venue under 0.95 of its ceiling).
import { systemClock, type Clock } from '../core/clock.js';
import type { Pacer } from '../core/ports.js';

export interface PacerOptions {
  /** Requests allowed per rolling window, per endpoint id. */
  limits: Readonly<Record<string, number>>;
  /** The venue's rolling window. Default 2000 ms. */
  windowMs?: number;
  /**
   * Extra time each slot stays taken after the window, for timer and clock granularity (see
   * above). Default DEFAULT_SAFETY_MARGIN_MS (10 ms, venue.safetyMarginMs).
   */
  safetyMarginMs?: number;
  /**
   * Most jobs of one endpoint in flight at once. Default: the endpoint's limit, which only
   * bites when requests take longer than a window, i.e. when the venue is struggling.
   */
  maxConcurrent?: Readonly<Record<string, number>>;
  /** Time for pauses (and, in VirtualPacer, for the window). Default systemClock. */
  clock?: Clock;
}
export type BottleneckPacerOptions = PacerOptions;
export type VirtualPacerOptions = PacerOptions;

export const DEFAULT_WINDOW_MS = 2000;
export const DEFAULT_SAFETY_MARGIN_MS = 10;

export const STOPPED_MESSAGE = 'pacer stopped: the request was not sent';

export class PacerStoppedError extends Error {
  readonly code = 'PACER_STOPPED';
  constructor() {
    super(STOPPED_MESSAGE);
    this.name = 'PacerStoppedError';
  }
}

export type Usage = Record<string, { inWindow: number; limit: number; queued: number }>;

/** Calls `job` now; a synchronous throw becomes a rejection like any other failure. */
export function invoke<T>(job: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(job());
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Options checks, pause bookkeeping and the unknown-endpoint error, shared by both pacers. */
export abstract class PacerBase<L extends { limit: number; maxConcurrent: number }> implements Pacer {
  protected readonly clock: Clock;
  /** How long a start holds its slot. */
  protected readonly spanMs: number;
  protected readonly lanes = new Map<string, L>();
  private readonly endpointPausedUntil = new Map<string, number>();
  private allPausedUntil = 0;
  /**
   * After a pause an endpoint sends one request at a time (a probe) until the venue answers one
   * sent after the pause began with something other than a rate limit or a ban (answered()): a
   * venue still refusing meets one request, not the whole queue at the pause's end (a 429 storm
   * let the queue go at each pause's end, and the venue banned the key). Per endpoint, since
   * when it probes after its own pause (a 429); and since when every endpoint probes after a
   * ban, one probe at a time across all of them, until one is answered.
   */
  private readonly probingSince = new Map<string, number>();
  private banProbingSince: number | undefined;
  /** Endpoints with a probe in flight. */
  private readonly probes = new Set<string>();
  protected stopped = false;

  constructor(opts: PacerOptions, makeLane: (endpoint: string, limit: number, maxConcurrent: number, spanMs: number) => L) {
    const windowMs = opts.windowMs ?? DEFAULT_WINDOW_MS;
    const margin = opts.safetyMarginMs ?? DEFAULT_SAFETY_MARGIN_MS;
    if (!(windowMs > 0)) throw new RangeError(`windowMs must be above 0, got ${windowMs}`);
    if (!(margin >= 0)) throw new RangeError(`safetyMarginMs must be 0 or more, got ${margin}`);
    this.clock = opts.clock ?? systemClock;
    this.spanMs = windowMs + margin;
    for (const [endpoint, limit] of Object.entries(opts.limits)) {
      if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit for endpoint "${endpoint}" must be a whole number above 0, got ${limit}`);
      const maxConcurrent = opts.maxConcurrent?.[endpoint] ?? limit;
      if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw new RangeError(`maxConcurrent for endpoint "${endpoint}" must be a whole number above 0, got ${maxConcurrent}`);
      this.lanes.set(endpoint, makeLane(endpoint, limit, maxConcurrent, this.spanMs));
    }
  }

  abstract run<T>(endpoint: string, job: () => Promise<T>): Promise<T>;
  abstract released(): Promise<void>;
  abstract stop(): Promise<void>;
  protected abstract inWindow(lane: L): number;
  protected abstract queued(lane: L): number;

  protected lane(endpoint: string): L {
    const lane = this.lanes.get(endpoint);
    if (!lane) throw new RangeError(`no rate limit configured for endpoint "${endpoint}"`);
    return lane;
  }

  pauseEndpoint(endpoint: string, ms: number, opts: { probe?: boolean } = {}): void {
    this.lane(endpoint);
    const until = this.clock.now() + Math.max(0, ms);
    // A pause only ever grows: a short Retry-After must not cut a longer one short.
    this.endpointPausedUntil.set(endpoint, Math.max(this.endpointPausedUntil.get(endpoint) ?? 0, until));
    if (opts.probe !== false) this.probingSince.set(endpoint, this.clock.now());
  }

  pauseAll(untilMs: number): void {
    this.allPausedUntil = Math.max(this.allPausedUntil, untilMs);
    this.banProbingSince = this.clock.now();
  }

  answered(endpoint: string, sentAt: number): void {
    // An answer to a request sent before the pause began (one in flight then) says nothing of now.
    const own = this.probingSince.get(endpoint);
    const clearsOwn = own !== undefined && sentAt > own;
    const clearsBan = this.banProbingSince !== undefined && sentAt > this.banProbingSince;
    if (clearsOwn) this.probingSince.delete(endpoint);
    if (clearsBan) this.banProbingSince = undefined;
    if (clearsOwn || clearsBan) this.reopen();
  }

  /** Whether a job may start on `endpoint` now as far as probing goes (pauses and slots aside). */
  protected probeAllows(endpoint: string): boolean {
    if (this.banProbingSince !== undefined && this.probes.size > 0) return false;
    return !(this.probingSince.has(endpoint) && this.probes.has(endpoint));
  }

  /** A job starts on `endpoint`: returns whether it is a probe (its endpoint is probing), to be ended with endProbe. */
  protected startProbe(endpoint: string): boolean {
    if (this.banProbingSince === undefined && !this.probingSince.has(endpoint)) return false;
    this.probes.add(endpoint);
    return true;
  }

  /** A probe settled; what its answer said (a pause, or answered()) was told before, so the next may go. */
  protected endProbe(endpoint: string): void {
    this.probes.delete(endpoint);
    this.reopen();
  }

  /** Lets every endpoint's waiting jobs look again: probing changed. */
  protected abstract reopen(): void;

  pausedUntil(): number {
    return this.allPausedUntil > this.clock.now() ? this.allPausedUntil : 0;
  }

  /** When `endpoint` may start again; at or before now when it is not paused. */
  protected pauseEnd(endpoint: string): number {
    return Math.max(this.allPausedUntil, this.endpointPausedUntil.get(endpoint) ?? 0);
  }

  usage(): Usage {
    const out: Usage = {};
    for (const [endpoint, lane] of this.lanes) out[endpoint] = { inWindow: this.inWindow(lane), limit: lane.limit, queued: this.queued(lane) };
    return out;
  }
}

