// The backtest pacer: slots free by arithmetic on any Clock through RollingWindow, so virtual
// time decides, not timers (see pacer-base.ts).
import { PacerBase, PacerStoppedError, invoke, type VirtualPacerOptions } from './pacer-base.js';
import { RollingWindow } from './window.js';

interface Waiter {
  /** `probe`: it starts as its endpoint's probe (pacer-base.ts). */
  resolve: (probe: boolean) => void;
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
    const probe = await new Promise<boolean>((resolve, reject) => {
      lane.waiters.push({ resolve, reject });
      void this.pump(lane);
    });
    const result = invoke(job);
    const settled = () => {
      lane.window.record(this.clock.now());
      lane.running--;
      if (probe) this.endProbe(lane.endpoint);
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
        if (!this.probeAllows(lane.endpoint)) return; // a probe in flight: its end, or answered(), pumps again
        lane.running++;
        lane.waiters.shift()!.resolve(this.startProbe(lane.endpoint));
      }
    } finally {
      lane.pumping = false;
    }
  }

  protected reopen(): void {
    for (const lane of this.lanes.values()) void this.pump(lane);
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
