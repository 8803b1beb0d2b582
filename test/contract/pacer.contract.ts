// The Pacer port's contract, run against every implementation.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import type { Pacer } from '../../src/core/ports.js';
import { maxInRollingWindow } from '../fixtures/venue-server.js';

export interface PacerHarness {
  pacer: Pacer;
  clock: Clock;
  /** Lets time pass until `done` settles (a manual clock is advanced; real time just waits on the promise). */
  settle<T>(done: Promise<T>): Promise<T>;
}

export const WINDOW_MS = 200;
export const LIMIT = 5;

export function pacerContract(name: string, make: (limits: Record<string, number>) => PacerHarness): void {
  describe(`Pacer contract: ${name}`, () => {
    it('never starts more than the limit in any rolling window, in FIFO order', async () => {
      const { pacer, clock, settle } = make({ a: LIMIT });
      const starts: { i: number; at: number }[] = [];
      const all = Promise.all(Array.from({ length: 17 }, (_, i) => pacer.run('a', async () => starts.push({ i, at: clock.now() }))));
      await settle(all);
      expect(starts.map((s) => s.i)).toEqual(Array.from({ length: 17 }, (_, i) => i));
      expect(maxInRollingWindow(starts.map((s) => s.at), WINDOW_MS)).toBeLessThanOrEqual(LIMIT);
      await pacer.stop();
    });

    it('endpoints are independent', async () => {
      const { pacer, clock, settle } = make({ a: 1, b: 3 });
      const t0 = clock.now();
      const times: Record<string, number[]> = { a: [], b: [] };
      const jobs = [...['a', 'a'], ...['b', 'b', 'b']].map((e) => pacer.run(e, async () => times[e]!.push(clock.now() - t0)));
      await settle(Promise.all(jobs));
      // All of b fits its window at once; the second a waits a whole window.
      expect(Math.max(...times.b!)).toBeLessThan(WINDOW_MS);
      expect(times.a![1]! - times.a![0]!).toBeGreaterThanOrEqual(WINDOW_MS);
      await pacer.stop();
    });

    it('pauseEndpoint holds only that endpoint; pauseAll holds everything until its time', async () => {
      const { pacer, clock, settle } = make({ a: 10, b: 10 });
      const t0 = clock.now();
      pacer.pauseEndpoint('a', 300);
      const b = await settle(pacer.run('b', async () => clock.now() - t0));
      const a = await settle(pacer.run('a', async () => clock.now() - t0));
      expect(b).toBeLessThan(300);
      expect(a).toBeGreaterThanOrEqual(300);
      const until = clock.now() + 250;
      pacer.pauseAll(until);
      expect(pacer.pausedUntil()).toBe(until);
      const after = await settle(pacer.run('b', async () => clock.now()));
      expect(after).toBeGreaterThanOrEqual(until);
      expect(pacer.pausedUntil()).toBe(0);
      await pacer.stop();
    });

    it('a failing job rejects its caller and still counts as sent', async () => {
      const { pacer, settle } = make({ a: 2 });
      await expect(settle(pacer.run('a', async () => Promise.reject(new Error('venue said no'))))).rejects.toThrow('venue said no');
      expect(pacer.usage().a).toEqual({ inWindow: 1, limit: 2, queued: 0 });
      await pacer.stop();
    });

    it('usage shows the window and the queue; stop rejects queued jobs and refuses new ones', async () => {
      const { pacer } = make({ a: 1 });
      const first = pacer.run('a', async () => 'ran');
      const second = pacer.run('a', async () => 'ran too');
      second.catch(() => undefined);
      expect(await first).toBe('ran');
      expect(pacer.usage().a).toMatchObject({ inWindow: 1, limit: 1, queued: 1 });
      await pacer.stop();
      await expect(second).rejects.toThrow(/pacer stopped/);
      await expect(pacer.run('a', async () => 1)).rejects.toThrow(/pacer stopped/);
    });

    it('an endpoint without a limit is a clear error', async () => {
      const { pacer } = make({ a: 1 });
      await expect(pacer.run('nope', async () => 1)).rejects.toThrow(/no rate limit configured for endpoint "nope"/);
      await pacer.stop();
    });
  });
}
