// Time is injected: only SystemClock touches Date.now and setTimeout.

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Resolves after `ms` of this clock's time, or as soon as `signal` aborts (its timer gone, so it holds no process open). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Lets waiting timers and I/O run before going on: a long synchronous run (a busy reconcile
   * pass's events) calls it now and then so it never stalls the event loop. On a manual clock
   * only queued microtasks run, so a backtest's interleaving does not depend on it.
   */
  breathe(): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      signal?.addEventListener('abort', wake, { once: true });
    }),
  breathe: () => new Promise((resolve) => setImmediate(resolve)),
};

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that moves only when told. Sleepers wake in time order (ties in the order they
 * slept), each after the microtasks queued before it ran, so a backtest or a test sees the
 * same interleaving every time.
 */
export class ManualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private seq = 0;

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const at = this.current + Math.max(0, ms);
      // In order of (at, seq): the newest sleeper goes after every one due at or before `at`
      // (a binary search; sorting the whole list on each sleep was a backtest's busiest clock work).
      let lo = 0;
      let hi = this.timers.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.timers[mid]!.at <= at) lo = mid + 1;
        else hi = mid;
      }
      // A backtest's busiest call: no more than the timer unless a signal asks for it.
      if (!signal) {
        this.timers.splice(lo, 0, { at, seq: this.seq++, resolve });
        return;
      }
      const aborted = () => {
        const i = this.timers.indexOf(timer);
        if (i >= 0) this.timers.splice(i, 1);
        resolve();
      };
      const timer = {
        at,
        seq: this.seq++,
        resolve: () => {
          signal.removeEventListener('abort', aborted);
          resolve();
        },
      };
      this.timers.splice(lo, 0, timer);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  breathe(): Promise<void> {
    return Promise.resolve();
  }

  /** Number of sleepers not yet woken. */
  pending(): number {
    return this.timers.length;
  }

  /** Time of the next sleeper to wake, if any. */
  nextWake(): number | undefined {
    return this.timers[0]?.at;
  }

  /** Moves time forward by `ms`, waking every sleeper due on the way, in order. */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.current + ms);
  }

  async advanceTo(target: number): Promise<void> {
    for (;;) {
      await flushMicrotasks();
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.timers.shift();
      this.current = Math.max(this.current, next.at);
      next.resolve();
    }
    this.current = Math.max(this.current, target);
    await flushMicrotasks();
  }

  /**
   * Wakes only the earliest sleeper, moving time to it (no microtask flushing). A driver that
   * lets everything settle between two wakes gets the same interleaving whatever the awaited
   * code looks like inside: backtest and replay use it so their runs line up request by request.
   */
  wakeNext(): boolean {
    const next = this.timers.shift();
    if (!next) return false;
    this.current = Math.max(this.current, next.at);
    next.resolve();
    return true;
  }

  /** Sets the time without waking anyone; no sleeper may be due before `target`. */
  moveTo(target: number): void {
    const next = this.timers[0];
    if (next && next.at < target) throw new RangeError(`a sleeper is due at ${next.at}, before ${target}: wake it first`);
    this.current = Math.max(this.current, target);
  }

  /** Jumps to the next sleeper and wakes it; false when nobody sleeps. */
  async step(): Promise<boolean> {
    await flushMicrotasks();
    const next = this.timers[0];
    if (!next) return false;
    await this.advanceTo(next.at);
    return true;
  }
}

/** Lets already-queued promise callbacks run (several rounds, since chains hop through many). */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

/** A source of uniform numbers in [0, 1). Injected like time, so backtests can seed it. */
export type Random = () => number;

export const systemRandom: Random = () => Math.random();

/** A small seeded generator (mulberry32) for deterministic jitter in tests and backtests. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
