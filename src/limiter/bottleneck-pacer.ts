// The live pacer: slots counted here, each endpoint's Bottleneck the FIFO queue for jobs that
// find none (see pacer-base.ts for why a slot is held for a whole window after the answer).
import { setMaxListeners } from 'node:events';
import Bottleneck from 'bottleneck';
import { PacerBase, PacerStoppedError, STOPPED_MESSAGE, invoke, type BottleneckPacerOptions } from './pacer-base.js';

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
  /** Aborted by stop(): ends the timers of slots coming back and of pauses (one listener each, as many as the limits allow). */
  private readonly stopping = unlimited(new AbortController());

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
    if (lane.waiting === 0 && lane.free > 0 && lane.running < lane.maxConcurrent && this.pauseEnd(endpoint) <= this.clock.now() && this.probeAllows(endpoint)) {
      lane.free--;
      return this.begin(lane, job);
    }
    return this.enqueue(lane, job);
  }

  private async enqueue<T>(lane: LiveLane, job: () => Promise<T>): Promise<T> {
    lane.waiting++;
    let started = false;
    const scheduled = lane.queue.schedule(async () => {
      // Handed a slot; a pause may have begun since (a 429 or 418 arriving in between), or a probe be in flight.
      while (!this.stopped && (this.pauseEnd(lane.endpoint) > this.clock.now() || !this.probeAllows(lane.endpoint))) await this.holdUntilResumed(lane);
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
    const probe = this.startProbe(lane.endpoint);
    const result = invoke(job);
    const settled = () => {
      lane.running--;
      if (probe) this.endProbe(lane.endpoint);
      void this.clock.sleep(this.spanMs, this.stopping.signal).then(() => {
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

  /** Until the pause ends (a timer) or, held behind a probe, until probing changes (reopen). */
  private holdUntilResumed(lane: LiveLane): Promise<void> {
    return new Promise((resolve) => {
      lane.held.push(resolve);
      if (this.pauseEnd(lane.endpoint) > this.clock.now()) this.armWake(lane);
    });
  }

  /** One timer per lane for the end of its pause; a pause extended meanwhile re-arms it. */
  private armWake(lane: LiveLane): void {
    if (lane.wakeArmed) return;
    lane.wakeArmed = true;
    void this.clock.sleep(this.pauseEnd(lane.endpoint) - this.clock.now(), this.stopping.signal).then(() => {
      lane.wakeArmed = false;
      this.resume(lane);
    });
  }

  protected reopen(): void {
    for (const lane of this.lanes.values()) this.resume(lane);
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
    // Slots coming back and pauses ending no longer matter: their timers go, holding no process open.
    this.stopping.abort();
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

/** A controller whose signal takes any number of listeners (Node warns past 10). */
function unlimited(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
