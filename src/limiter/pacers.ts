// Two implementations of the Pacer port. Each endpoint has N slots; a job takes one when it
// starts (when the executor signs and sends) and the slot stays taken for `windowMs +
// safetyMarginMs` after that. A fixed refresh would let up to 2N into a rolling window across a
// boundary and a token bucket lets its burst on top of the rate (DESIGN.md measured 153-199
// for 100); holding each slot for a whole window cannot.
// - BottleneckPacer (live): the span counts from the job's settlement (the venue's answer),
//   because the venue stamps the request somewhere between our start and its answer, and under
//   load our start can precede the bytes leaving by more than the margin (undici queueing, a
//   busy event loop: the engine benchmark saw 429s and a 418 when counting from the start).
//   Slots are counted here; each endpoint's Bottleneck is the FIFO queue for jobs that find no
//   slot, fed one slot at a time through incrementReservoir.
// - VirtualPacer (backtests): the span counts from the start, on any Clock, through
//   RollingWindow. Virtual time does not move while the CPU works, so start and send coincide
//   there; the margin covers the simulator's latency jitter.
import Bottleneck from 'bottleneck';
import { systemClock, type Clock } from '../core/clock.js';
import type { Pacer } from '../core/ports.js';
import { RollingWindow } from './window.js';

export interface PacerOptions {
  /** Requests allowed per rolling window, per endpoint id. */
  limits: Readonly<Record<string, number>>;
  /** The venue's rolling window. Default 2000 ms. */
  windowMs?: number;
  /**
   * Extra time each slot stays taken after the window, for jitter between our start and the
   * venue's arrival stamp (event-loop delay before the bytes leave, network variance). Default 100 ms.
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
export const DEFAULT_SAFETY_MARGIN_MS = 20;

const STOPPED_MESSAGE = 'pacer stopped: the request was not sent';

export class PacerStoppedError extends Error {
  readonly code = 'PACER_STOPPED';
  constructor() {
    super(STOPPED_MESSAGE);
    this.name = 'PacerStoppedError';
  }
}

type Usage = Record<string, { inWindow: number; limit: number; queued: number }>;

/** Calls `job` now; a synchronous throw becomes a rejection like any other failure. */
function invoke<T>(job: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(job());
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Options checks, pause bookkeeping and the unknown-endpoint error, shared by both pacers. */
abstract class PacerBase<L extends { limit: number; maxConcurrent: number }> implements Pacer {
  protected readonly clock: Clock;
  /** How long a start holds its slot. */
  protected readonly spanMs: number;
  protected readonly lanes = new Map<string, L>();
  private readonly endpointPausedUntil = new Map<string, number>();
  private allPausedUntil = 0;
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

  pauseEndpoint(endpoint: string, ms: number): void {
    this.lane(endpoint);
    const until = this.clock.now() + Math.max(0, ms);
    // A pause only ever grows: a short Retry-After must not cut a longer one short.
    this.endpointPausedUntil.set(endpoint, Math.max(this.endpointPausedUntil.get(endpoint) ?? 0, until));
  }

  pauseAll(untilMs: number): void {
    this.allPausedUntil = Math.max(this.allPausedUntil, untilMs);
  }

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

interface LiveLane {
  endpoint: string;
  limit: number;
  maxConcurrent: number;
  /** FIFO queue of jobs that found no slot; its reservoir only ever holds slots handed to them. */
  queue: Bottleneck;
  /** Slots neither held by a start in the last span nor handed to the queue. */
  free: number;
  /** Slots handed to the queue whose job has not started yet. */
  handed: number;
  /** Jobs in the queue, not yet started. */
  waiting: number;
  /** Jobs started and not yet settled. */
  running: number;
  /** Queue jobs that were handed a slot and then found a pause: resumed in order. */
  held: Array<() => void>;
  /** A wake-up is set for the end of the current pause. */
  wakeArmed: boolean;
}

/**
 * Live pacer. The slot count (`free`) is the only accounting: a start takes a slot and a timer
 * gives it back a span after the job settles. A job that finds a free slot, nobody queued and no pause starts
 * synchronously, without entering Bottleneck (whose loop costs milliseconds per job, see
 * bench/RESULTS.md "Limiter"). Every other job waits in its endpoint's Bottleneck, which
 * releases them in FIFO order, one per slot handed over with incrementReservoir(1). Slots come
 * back on a timer (monotonic) rather than by reading the wall clock, so a stepped system clock
 * cannot free slots early.
 */
export class BottleneckPacer extends PacerBase<LiveLane> {
  private releaseWaiters: Array<() => void> = [];

  constructor(opts: BottleneckPacerOptions) {
    super(opts, (endpoint, limit, maxConcurrent) => ({
      endpoint,
      limit,
      maxConcurrent,
      queue: new Bottleneck({ reservoir: 0 }),
      free: limit,
      handed: 0,
      waiting: 0,
      running: 0,
      held: [],
      wakeArmed: false,
    }));
  }

  run<T>(endpoint: string, job: () => Promise<T>): Promise<T> {
    let lane: LiveLane;
    try {
      lane = this.lane(endpoint);
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.stopped) return Promise.reject(new PacerStoppedError());
    if (lane.waiting === 0 && lane.free > 0 && lane.running < lane.maxConcurrent && this.pauseEnd(endpoint) <= this.clock.now()) {
      lane.free--;
      return this.begin(lane, job);
    }
    return this.enqueue(lane, job);
  }

  private async enqueue<T>(lane: LiveLane, job: () => Promise<T>): Promise<T> {
    lane.waiting++;
    let started = false;
    const scheduled = lane.queue.schedule(async () => {
      // Handed a slot; a pause may have begun since (a 429 or 418 arriving in between).
      while (!this.stopped && this.pauseEnd(lane.endpoint) > this.clock.now()) await this.holdUntilResumed(lane);
      if (this.stopped) throw new PacerStoppedError();
      lane.handed--;
      lane.waiting--;
      started = true;
      // In an array so Bottleneck does not wait for the request: it only decides the start.
      return [this.begin(lane, job)] as const;
    });
    this.handOver(lane);
    let begun: readonly [Promise<T>];
    try {
      begun = await scheduled;
    } catch (err) {
      if (started) throw err;
      // Dropped by stop(): Bottleneck's own error says less than ours.
      throw new PacerStoppedError();
    }
    return begun[0];
  }

  /**
   * Takes the already-reserved slot: starts the job now and gives the slot back a span after
   * the job settles. The venue stamped the request somewhere between our start and its answer,
   * so counting from the answer keeps its window exact however long the request was delayed
   * on the way (network, or our own event loop under load). Measured: counting from the start
   * let 429s through at saturation when requests lagged more than the safety margin.
   */
  private begin<T>(lane: LiveLane, job: () => Promise<T>): Promise<T> {
    lane.running++;
    const result = invoke(job);
    const settled = () => {
      lane.running--;
      void this.clock.sleep(this.spanMs).then(() => {
        lane.free++;
        this.handOver(lane);
        this.announce();
      });
      this.handOver(lane);
    };
    result.then(settled, settled);
    return result;
  }

  /** Hands free slots to queued jobs, one each, unless a pause or the concurrency cap says no. */
  private handOver(lane: LiveLane): void {
    if (this.stopped) return;
    if (this.pauseEnd(lane.endpoint) > this.clock.now()) {
      this.armWake(lane);
      return;
    }
    while (lane.free > 0 && lane.waiting > lane.handed && lane.running + lane.handed < lane.maxConcurrent) {
      lane.free--;
      lane.handed++;
      void lane.queue.incrementReservoir(1);
    }
  }

  private holdUntilResumed(lane: LiveLane): Promise<void> {
    return new Promise((resolve) => {
      lane.held.push(resolve);
      this.armWake(lane);
    });
  }

  /** One timer per lane for the end of its pause; a pause extended meanwhile re-arms it. */
  private armWake(lane: LiveLane): void {
    if (lane.wakeArmed) return;
    lane.wakeArmed = true;
    void this.clock.sleep(this.pauseEnd(lane.endpoint) - this.clock.now()).then(() => {
      lane.wakeArmed = false;
      this.resume(lane);
    });
  }

  /** Lets held jobs re-check in the order they were held, then hands over free slots. */
  private resume(lane: LiveLane): void {
    for (const wake of lane.held.splice(0)) wake();
    this.handOver(lane);
    this.announce();
  }

  /**
   * Resolves the next time a slot comes back or a pause ends, on any endpoint: a dispatcher
   * holding work for a full endpoint takes the slot at once instead of finding it on its next
   * poll (each poll's delay would be added to every slot's 2 s cycle at saturation).
   */
  released(): Promise<void> {
    return new Promise((resolve) => this.releaseWaiters.push(resolve));
  }

  private announce(): void {
    if (this.releaseWaiters.length > 0) for (const wake of this.releaseWaiters.splice(0)) wake();
  }

  protected inWindow(lane: LiveLane): number {
    return lane.limit - lane.free - lane.handed;
  }

  protected queued(lane: LiveLane): number {
    return lane.waiting;
  }

  /**
   * Queued jobs reject with PacerStoppedError and new ones are refused. Jobs already started
   * run on: their requests may be at the venue, so their callers get the real outcome.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const lane of this.lanes.values()) lane.held.splice(0).forEach((wake) => wake());
    await Promise.all(
      [...this.lanes.values()].map(async (lane) => {
        await lane.queue.stop({ dropWaitingJobs: true, dropErrorMessage: STOPPED_MESSAGE }).catch(() => undefined);
        lane.waiting = 0;
        lane.handed = 0;
      }),
    );
  }
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

interface VirtualLane {
  endpoint: string;
  limit: number;
  maxConcurrent: number;
  window: RollingWindow;
  waiters: Waiter[];
  running: number;
  /** A pump is active (awake or sleeping on the clock) for this lane. */
  pumping: boolean;
}

/**
 * Backtest pacer: the same rule as the live pacer, computed on the injected clock. A request
 * holds its slot while in flight and for a span after it settles (the venue stamped it
 * somewhere in between, so simulated latency never lets a window overfill). One pump per
 * endpoint starts waiters in FIFO order whenever the slots, the pauses and the concurrency cap
 * allow, and otherwise sleeps on the clock until the oldest settled slot frees or the pause ends.
 */
export class VirtualPacer extends PacerBase<VirtualLane> {
  constructor(opts: VirtualPacerOptions) {
    super(opts, (endpoint, limit, maxConcurrent, spanMs) => ({
      endpoint,
      limit,
      maxConcurrent,
      window: new RollingWindow(limit, spanMs),
      waiters: [],
      running: 0,
      pumping: false,
    }));
  }

  async run<T>(endpoint: string, job: () => Promise<T>): Promise<T> {
    const lane = this.lane(endpoint);
    if (this.stopped) throw new PacerStoppedError();
    await new Promise<void>((resolve, reject) => {
      lane.waiters.push({ resolve, reject });
      void this.pump(lane);
    });
    const result = invoke(job);
    const settled = () => {
      lane.window.record(this.clock.now());
      lane.running--;
      void this.pump(lane);
    };
    result.then(settled, settled);
    return result;
  }

  private async pump(lane: VirtualLane): Promise<void> {
    if (lane.pumping) return;
    lane.pumping = true;
    try {
      while (lane.waiters.length > 0 && !this.stopped) {
        const now = this.clock.now();
        const free = lane.window.nextFreeAt(now, lane.running);
        if (free === Number.POSITIVE_INFINITY) return; // every slot is in flight: a settling job pumps again
        const until = Math.max(this.pauseEnd(lane.endpoint), free);
        if (until > now) {
          await this.clock.sleep(until - now);
          continue;
        }
        if (lane.running >= lane.maxConcurrent) return; // a settling job pumps again
        lane.running++;
        lane.waiters.shift()!.resolve();
      }
    } finally {
      lane.pumping = false;
    }
  }

  /**
   * Never resolves: slots free by arithmetic on the clock, with no timer to announce them. The
   * dispatcher's own retry timer finds them (and a backtest stays byte-identical run to run).
   */
  released(): Promise<void> {
    return new Promise(() => undefined);
  }

  protected inWindow(lane: VirtualLane): number {
    return lane.window.countAt(this.clock.now()) + lane.running;
  }

  protected queued(lane: VirtualLane): number {
    return lane.waiters.length;
  }

  /** Queued jobs reject with PacerStoppedError and new ones are refused; started jobs run on. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const lane of this.lanes.values()) for (const w of lane.waiters.splice(0)) w.reject(new PacerStoppedError());
  }
}
