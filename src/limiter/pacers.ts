// Two implementations of the Pacer port with the same window rule:
// - BottleneckPacer (live): N slots per endpoint, each given back `windowMs + safetyMarginMs`
//   after the job that took it started; waiters queue FIFO in the endpoint's Bottleneck and get
//   slots through incrementReservoir. Bursts up to N go out at once; a fixed refresh or a token
//   bucket would let more than N into some rolling window (DESIGN.md measured 153-199 for 100).
// - VirtualPacer (backtests): the same rule computed on any Clock, FIFO per endpoint, so a
//   manual clock paces a backtest exactly like the venue would.
import Bottleneck from 'bottleneck';
import { systemClock, type Clock } from '../core/clock.js';
import type { Pacer } from '../core/ports.js';
import { RollingWindow } from './window.js';

export interface PacerOptions {
  /** Requests allowed per window, per endpoint id. */
  limits: Readonly<Record<string, number>>;
  windowMs?: number;
  /** Extra time a slot stays taken, for jitter between our send and the venue's clock. */
  safetyMarginMs?: number;
  clock?: Clock;
}

export class PacerStoppedError extends Error {
  constructor() {
    super('pacer stopped: the request was not sent');
    this.name = 'PacerStoppedError';
  }
}

/** Pause bookkeeping and usage shared by both pacers. */
abstract class PacerBase implements Pacer {
  protected readonly clock: Clock;
  protected readonly spanMs: number;
  protected readonly windows = new Map<string, RollingWindow>();
  protected readonly queued = new Map<string, number>();
  private readonly endpointPause = new Map<string, number>();
  private allPausedUntil = 0;
  protected stopped = false;

  constructor(opts: PacerOptions) {
    this.clock = opts.clock ?? systemClock;
    this.spanMs = (opts.windowMs ?? 2000) + (opts.safetyMarginMs ?? 100);
    for (const [endpoint, limit] of Object.entries(opts.limits)) {
      this.windows.set(endpoint, new RollingWindow(limit, this.spanMs));
      this.queued.set(endpoint, 0);
    }
  }

  abstract run<T>(endpoint: string, job: () => Promise<T>): Promise<T>;
  abstract stop(): Promise<void>;

  protected window(endpoint: string): RollingWindow {
    const w = this.windows.get(endpoint);
    if (!w) throw new RangeError(`no rate limit configured for endpoint "${endpoint}"`);
    return w;
  }

  pauseEndpoint(endpoint: string, ms: number): void {
    this.window(endpoint);
    this.endpointPause.set(endpoint, Math.max(this.endpointPause.get(endpoint) ?? 0, this.clock.now() + ms));
  }

  pauseAll(untilMs: number): void {
    this.allPausedUntil = Math.max(this.allPausedUntil, untilMs);
  }

  pausedUntil(): number {
    return this.allPausedUntil > this.clock.now() ? this.allPausedUntil : 0;
  }

  protected isPaused(endpoint: string): boolean {
    return Math.max(this.allPausedUntil, this.endpointPause.get(endpoint) ?? 0) > this.clock.now();
  }

  /** Resolves once neither this endpoint nor everything is paused. */
  protected async waitWhilePaused(endpoint: string): Promise<void> {
    for (;;) {
      const until = Math.max(this.allPausedUntil, this.endpointPause.get(endpoint) ?? 0);
      const now = this.clock.now();
      if (until <= now) return;
      await this.clock.sleep(until - now);
    }
  }

  usage(): Record<string, { inWindow: number; limit: number; queued: number }> {
    const now = this.clock.now();
    const out: Record<string, { inWindow: number; limit: number; queued: number }> = {};
    for (const [endpoint, w] of this.windows) out[endpoint] = { inWindow: w.countAt(now), limit: w.limit, queued: this.queued.get(endpoint) ?? 0 };
    return out;
  }
}

/**
 * Slots are counted once, here: `free` is the limit minus slots held. A job that finds a free
 * slot, nobody waiting and no pause starts at once (Bottleneck's loop costs ~5 ms a job, which
 * would dominate intent-to-wire latency). Otherwise it waits in its endpoint's Bottleneck,
 * whose reservoir stays at 0 except for slots handed to waiters one by one as they free up.
 */
export class BottleneckPacer extends PacerBase {
  private readonly lanes = new Map<string, { limiter: Bottleneck; free: number; waiting: number; handed: number }>();

  constructor(opts: PacerOptions) {
    super(opts);
    for (const [endpoint, limit] of Object.entries(opts.limits)) this.lanes.set(endpoint, { limiter: new Bottleneck({ reservoir: 0 }), free: limit, waiting: 0, handed: 0 });
  }

  async run<T>(endpoint: string, job: () => Promise<T>): Promise<T> {
    const window = this.window(endpoint);
    const lane = this.lanes.get(endpoint)!;
    if (this.stopped) throw new PacerStoppedError();
    const start = () => {
      window.record(this.clock.now());
      void this.clock.sleep(this.spanMs).then(() => {
        lane.free++;
        this.handOver(lane);
      });
      return job();
    };
    if (lane.free > 0 && lane.waiting === 0 && !this.isPaused(endpoint)) {
      lane.free--;
      return start();
    }
    lane.waiting++;
    this.queued.set(endpoint, lane.waiting);
    this.handOver(lane);
    let started = false;
    try {
      return await lane.limiter.schedule(async () => {
        lane.handed--;
        lane.waiting--;
        this.queued.set(endpoint, lane.waiting);
        started = true;
        // The slot is held from here; a pause waits while holding it, which only costs capacity.
        await this.waitWhilePaused(endpoint);
        if (this.stopped) throw new PacerStoppedError();
        return start();
      });
    } catch (err) {
      if (!started) throw new PacerStoppedError();
      throw err;
    }
  }

  /** Gives free slots to waiters, in Bottleneck's FIFO order. */
  private handOver(lane: { limiter: Bottleneck; free: number; waiting: number; handed: number }): void {
    while (lane.free > 0 && lane.waiting > lane.handed) {
      lane.free--;
      lane.handed++;
      void lane.limiter.incrementReservoir(1);
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(
      [...this.lanes.values()].map((l) => l.limiter.stop({ dropWaitingJobs: true, dropErrorMessage: 'pacer stopped: the request was not sent' }).catch(() => undefined)),
    );
  }
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

export class VirtualPacer extends PacerBase {
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly pumping = new Set<string>();

  async run<T>(endpoint: string, job: () => Promise<T>): Promise<T> {
    this.window(endpoint);
    if (this.stopped) throw new PacerStoppedError();
    this.queued.set(endpoint, this.queued.get(endpoint)! + 1);
    await new Promise<void>((resolve, reject) => {
      const list = this.waiters.get(endpoint) ?? [];
      list.push({ resolve, reject });
      this.waiters.set(endpoint, list);
      void this.pump(endpoint);
    });
    return job();
  }

  /** Releases waiters of one endpoint in FIFO order as the window and pauses allow. */
  private async pump(endpoint: string): Promise<void> {
    if (this.pumping.has(endpoint)) return;
    this.pumping.add(endpoint);
    const window = this.window(endpoint);
    const list = this.waiters.get(endpoint)!;
    try {
      while (list.length > 0 && !this.stopped) {
        await this.waitWhilePaused(endpoint);
        const now = this.clock.now();
        const free = window.nextFreeAt(now);
        if (free > now) {
          await this.clock.sleep(free - now);
          continue;
        }
        const next = list.shift()!;
        window.record(now);
        this.queued.set(endpoint, this.queued.get(endpoint)! - 1);
        next.resolve();
      }
    } finally {
      this.pumping.delete(endpoint);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const [endpoint, list] of this.waiters) {
      for (const w of list.splice(0)) w.reject(new PacerStoppedError());
      this.queued.set(endpoint, 0);
    }
  }
}
