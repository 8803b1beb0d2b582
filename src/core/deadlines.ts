// Deadlines on the engine's clock for many waits at once, with one sleeper at a time: on a
// manual clock a backtest stays deterministic and gains no wake per call, and on the system
// clock a deadline that was met leaves at most that one timer behind.
import type { Clock } from './clock.js';

/** What within() gives when the deadline came first. */
export const LATE: unique symbol = Symbol('late');
/** What within() gives when hurry() ended the wait. */
export const CUT: unique symbol = Symbol('cut');

interface Wait {
  due: number;
  expire(why: typeof LATE | typeof CUT): void;
}

export class Deadlines {
  private readonly waits = new Set<Wait>();
  /** When the sleeper wakes (undefined: none sleeps). */
  private wakeAt: number | undefined;
  private hurried = false;

  constructor(private readonly clock: Pick<Clock, 'now' | 'sleep'>) {}

  /**
   * `work`'s outcome, or LATE once `ms` of the clock have passed first (CUT: hurry() came first). Nothing can stop `work`:
   * it goes on unheard, and a failure it ends in later is ignored.
   */
  within<T>(ms: number, work: Promise<T>): Promise<T | typeof LATE | typeof CUT> {
    return new Promise<T | typeof LATE | typeof CUT>((resolve, reject) => {
      const wait: Wait = { due: this.clock.now() + (this.hurried ? 0 : ms), expire: resolve };
      this.waits.add(wait);
      work.then(
        (value) => {
          this.waits.delete(wait);
          resolve(value);
        },
        (err: unknown) => {
          this.waits.delete(wait);
          reject(err);
        },
      );
      this.arm(wait.due);
    });
  }

  /** Every wait ends now, and those begun later get no time beyond the current turn (a second signal during a stop). */
  hurry(): void {
    this.hurried = true;
    this.expire(Infinity, CUT);
  }

  private arm(due: number): void {
    if (this.waits.size === 0 || (this.wakeAt !== undefined && this.wakeAt <= due)) return;
    this.wakeAt = due;
    void this.clock.sleep(due - this.clock.now()).then(() => {
      if (this.wakeAt === due) this.wakeAt = undefined;
      this.expire(this.clock.now(), this.hurried ? CUT : LATE);
      let next = Infinity;
      for (const w of this.waits) next = Math.min(next, w.due);
      if (next < Infinity) this.arm(next);
    });
  }

  private expire(now: number, why: typeof LATE | typeof CUT): void {
    for (const w of [...this.waits]) {
      if (w.due > now) continue;
      this.waits.delete(w);
      w.expire(why);
    }
  }
}
