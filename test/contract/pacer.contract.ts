// The Pacer port's contract, run against every implementation (real time and virtual time).
// Assertions are about counts and order within windows, never about how fast something ran:
// the only time bounds are lower bounds the venue itself enforces (a window, a pause).
import { describe, expect, it } from 'vitest';
import { deferred } from '../fixtures/app.js';
import type { Clock } from '../../src/core/clock.js';
import type { Pacer } from '../../src/core/ports.js';

export interface PacerHarness {
  pacer: Pacer;
  clock: Clock;
  /** Lets time pass until `done` settles (a manual clock is stepped; real time just waits on the promise). */
  settle<T>(done: Promise<T>): Promise<T>;
}

export interface PacerSetup {
  limits: Record<string, number>;
  maxConcurrent?: Record<string, number>;
}

export const WINDOW_MS = 200;
export const SAFETY_MARGIN_MS = 10;
export const LIMIT = 5;

/** Most starts in any window [t, t + windowMs) that opens at a start, checked pair by pair. */
export function maxStartsInAnyWindow(starts: readonly number[], windowMs: number): number {
  return Math.max(0, ...starts.map((t) => starts.filter((s) => s >= t && s < t + windowMs).length));
}

/** Resolves once `ready()` holds, looking again after each macrotask turn (the pacers start jobs on timers and promise turns). */
async function waitFor(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Jobs named by their endpoint and a number ('a1': endpoint a), each held until the test opens
 * it: what runs at once is what is in flight. `peak(e)`: most of e's jobs in flight at once so far.
 */
function gatedJobs(pacer: Pacer, names: readonly string[]) {
  const inFlight: string[] = [];
  const gates = new Map<string, { resolve: () => void }>();
  const peaks = new Map<string, number>();
  const endpointOf = (name: string) => name.slice(0, 1);
  const jobs = names.map((name) =>
    pacer.run(endpointOf(name), async () => {
      inFlight.push(name);
      const e = endpointOf(name);
      peaks.set(e, Math.max(peaks.get(e) ?? 0, inFlight.filter((n) => endpointOf(n) === e).length));
      const gate = deferred();
      gates.set(name, gate);
      await gate.promise;
      inFlight.splice(inFlight.indexOf(name), 1);
    }),
  );
  return {
    inFlight,
    jobs: Promise.all(jobs),
    started: (name: string) => gates.has(name),
    open: (...opened: string[]) => opened.forEach((name) => gates.get(name)!.resolve()),
    peak: (e: string) => peaks.get(e) ?? 0,
  };
}

export function pacerContract(name: string, make: (setup: PacerSetup) => PacerHarness): void {
  describe(`Pacer contract: ${name}`, () => {
    it('bursts up to the limit at once, then never more than the limit in any rolling window, in FIFO order', async () => {
      const { pacer, clock, settle } = make({ limits: { a: LIMIT } });
      const starts: { i: number; at: number }[] = [];
      const burstStarted = deferred();
      const all = Promise.all(
        Array.from({ length: 17 }, (_, i) =>
          pacer.run('a', async () => {
            starts.push({ i, at: clock.now() });
            if (starts.length === LIMIT) burstStarted.resolve();
          }),
        ),
      );
      await settle(burstStarted.promise);
      // The whole first burst went out before any slot came back.
      expect(starts.length).toBe(LIMIT);
      expect(pacer.usage().a).toEqual({ inWindow: LIMIT, limit: LIMIT, queued: 17 - LIMIT });
      await settle(all);
      expect(starts.map((s) => s.i)).toEqual(Array.from({ length: 17 }, (_, i) => i));
      expect(maxStartsInAnyWindow(starts.map((s) => s.at), WINDOW_MS)).toBeLessThanOrEqual(LIMIT);
      // Each start beyond the burst waited a whole window after the start whose slot it took.
      for (let k = LIMIT; k < starts.length; k++) expect(starts[k]!.at - starts[k - LIMIT]!.at).toBeGreaterThanOrEqual(WINDOW_MS);
      expect(pacer.usage().a!.queued).toBe(0);
      await pacer.stop();
    });

    it('endpoints are independent: a full endpoint does not hold another', async () => {
      const { pacer, clock, settle } = make({ limits: { a: 1, b: 3 } });
      const log: string[] = [];
      const times: Record<string, number[]> = { a: [], b: [] };
      const job = (e: 'a' | 'b') => pacer.run(e, async () => {
        log.push(e);
        times[e]!.push(clock.now());
      });
      const jobs = [job('a'), job('a'), job('b'), job('b'), job('b')];
      await settle(Promise.all(jobs));
      // All of b fits its window, so it starts before the second a, which waits a whole window.
      expect(log).toEqual(['a', 'b', 'b', 'b', 'a']);
      expect(times.a![1]! - times.a![0]!).toBeGreaterThanOrEqual(WINDOW_MS);
      await pacer.stop();
    });

    it('a failing job rejects its own caller and still holds its slot (the venue saw the request)', async () => {
      const { pacer, clock, settle } = make({ limits: { a: 1 } });
      const boom = new Error('venue said no');
      const startedAt: number[] = [];
      const failing = pacer.run('a', async () => {
        startedAt.push(clock.now());
        throw boom;
      });
      const throwingSync = pacer.run('a', () => {
        startedAt.push(clock.now());
        throw new Error('thrown before any promise');
      });
      const next = pacer.run('a', async () => startedAt.push(clock.now()));
      await expect(settle(failing)).rejects.toBe(boom);
      expect(pacer.usage().a).toEqual({ inWindow: 1, limit: 1, queued: 2 });
      await expect(settle(throwingSync)).rejects.toThrow('thrown before any promise');
      await settle(next);
      expect(startedAt).toHaveLength(3);
      expect(startedAt[1]! - startedAt[0]!).toBeGreaterThanOrEqual(WINDOW_MS);
      expect(startedAt[2]! - startedAt[1]!).toBeGreaterThanOrEqual(WINDOW_MS);
      await pacer.stop();
    });

    it('pauseEndpoint holds only that endpoint, keeps its queue in order and drops nothing', async () => {
      const { pacer, clock, settle } = make({ limits: { a: 10, b: 10 } });
      const t0 = clock.now();
      pacer.pauseEndpoint('a', 300);
      expect(pacer.pausedUntil()).toBe(0);
      const log: string[] = [];
      const aStarts: number[] = [];
      const aJobs = [1, 2, 3].map((i) => pacer.run('a', async () => {
        log.push(`a${i}`);
        aStarts.push(clock.now());
      }));
      expect(pacer.usage().a).toMatchObject({ inWindow: 0, queued: 3 });
      await settle(pacer.run('b', async () => log.push('b')));
      await settle(Promise.all(aJobs));
      expect(log).toEqual(['b', 'a1', 'a2', 'a3']);
      for (const at of aStarts) expect(at).toBeGreaterThanOrEqual(t0 + 300);
      await pacer.stop();
    });

    it('a pause that begins while jobs are queued (a 429) holds them until it ends, in order', async () => {
      const { pacer, clock, settle } = make({ limits: { a: 2 } });
      const starts: { i: number; at: number }[] = [];
      let pauseEnd = 0;
      const jobs = Array.from({ length: 5 }, (_, i) =>
        pacer.run('a', async () => {
          starts.push({ i, at: clock.now() });
          if (i === 0) {
            // As the executor does on a 429: pause the endpoint from inside the failed call.
            pacer.pauseEndpoint('a', 2 * WINDOW_MS);
            pauseEnd = clock.now() + 2 * WINDOW_MS;
          }
        }),
      );
      await settle(Promise.all(jobs));
      expect(starts.map((s) => s.i)).toEqual([0, 1, 2, 3, 4]);
      for (const s of starts.slice(2)) expect(s.at).toBeGreaterThanOrEqual(pauseEnd);
      expect(maxStartsInAnyWindow(starts.map((s) => s.at), WINDOW_MS)).toBeLessThanOrEqual(2);
      await pacer.stop();
    });

    it('pauseAll holds every endpoint until its time and pausedUntil reports it', async () => {
      const { pacer, clock, settle } = make({ limits: { a: 10, b: 10 } });
      const until = clock.now() + 250;
      pacer.pauseAll(until);
      pacer.pauseAll(until - 100); // an earlier end never shortens a ban
      expect(pacer.pausedUntil()).toBe(until);
      const log: string[] = [];
      const starts: number[] = [];
      const jobs = ['a', 'b', 'a', 'b'].map((e, i) => pacer.run(e, async () => {
        log.push(`${e}${i}`);
        starts.push(clock.now());
      }));
      expect(pacer.usage()).toMatchObject({ a: { queued: 2 }, b: { queued: 2 } });
      await settle(Promise.all(jobs));
      for (const at of starts) expect(at).toBeGreaterThanOrEqual(until);
      expect(log.filter((x) => x.startsWith('a'))).toEqual(['a0', 'a2']);
      expect(log.filter((x) => x.startsWith('b'))).toEqual(['b1', 'b3']);
      expect(pacer.pausedUntil()).toBe(0);
      await pacer.stop();
    });

    it('after a pause one job goes at a time (a probe) until the venue answers one without a rate limit; then the rest at once', async () => {
      const { pacer, clock, settle } = make({ limits: { a: 10, b: 10 } });
      const t0 = clock.now();
      pacer.pauseEndpoint('a', 100);
      const a = gatedJobs(pacer, ['a1', 'a2', 'a3', 'a4']);
      const started = (name: string) => settle(waitFor(() => a.started(name)));
      // b was never paused: not held.
      await settle(pacer.run('b', async () => undefined));
      await started('a1');
      expect(clock.now()).toBeGreaterThanOrEqual(t0 + 100);
      expect(a.inFlight).toEqual(['a1']);
      // The probe met the rate limit again (no answered()): paused again, the next probe after it.
      pacer.pauseEndpoint('a', 100);
      a.open('a1');
      await started('a2');
      expect(a.inFlight).toEqual(['a2']);
      expect(a.peak('a')).toBe(1);
      // An answer to a request sent before the pause (one in flight then) says nothing of now.
      pacer.answered('a', t0);
      // This one was answered: the endpoint opens, and the rest go together.
      pacer.answered('a', clock.now());
      a.open('a2');
      await started('a3');
      await started('a4');
      expect(a.inFlight.filter((n) => n !== 'a2')).toEqual(['a3', 'a4']);
      a.open('a3', 'a4');
      await settle(a.jobs);
      await pacer.stop();
    });

    it('after a ban one probe goes across every endpoint; its answer opens them all', async () => {
      const { pacer, clock, settle } = make({ limits: { a: 10, b: 10 } });
      pacer.pauseAll(clock.now() + 100);
      const g = gatedJobs(pacer, ['a0', 'b1', 'a2', 'b3']);
      await settle(waitFor(() => g.inFlight.length > 0));
      expect(g.inFlight).toHaveLength(1);
      const [probe] = g.inFlight;
      pacer.answered(probe!.slice(0, 1), clock.now());
      g.open(probe!);
      await settle(waitFor(() => g.inFlight.length === 3));
      g.open(...g.inFlight);
      await settle(g.jobs);
      await pacer.stop();
    });

    it('a pause for the rate window alone (probe: false, a restart after an unclean stop) lets the queue go at its end', async () => {
      const { pacer, clock, settle } = make({ limits: { a: 10 } });
      const t0 = clock.now();
      pacer.pauseEndpoint('a', 100, { probe: false });
      const a = gatedJobs(pacer, ['a1', 'a2', 'a3']);
      await settle(waitFor(() => a.inFlight.length === 3));
      expect(clock.now()).toBeGreaterThanOrEqual(t0 + 100);
      a.open('a1', 'a2', 'a3');
      await settle(a.jobs);
      await pacer.stop();
    });

    it("after a ban, an endpoint whose own probe met a 429 probes on when another endpoint's probe is answered", async () => {
      const { pacer, clock, settle } = make({ limits: { a: 10, b: 10 } });
      pacer.pauseAll(clock.now() + 100);
      const g = gatedJobs(pacer, ['a1', 'b1', 'a2', 'a3', 'a4']);
      await settle(waitFor(() => g.inFlight.length > 0));
      expect(g.inFlight).toEqual(['a1']);
      // a1 met a 429: a pauses on its own; the ban's probe passes to b.
      pacer.pauseEndpoint('a', 100);
      g.open('a1');
      await settle(waitFor(() => g.inFlight.includes('b1')));
      pacer.answered('b', clock.now());
      g.open('b1');
      // The ban is over for everyone, but a still sends one at a time until one of its own is answered.
      await settle(waitFor(() => g.inFlight.includes('a2')));
      expect(g.inFlight).toEqual(['a2']);
      expect(g.peak('a')).toBe(1);
      pacer.answered('a', clock.now());
      g.open('a2');
      await settle(waitFor(() => g.inFlight.includes('a3') && g.inFlight.includes('a4')));
      g.open('a3', 'a4');
      await settle(g.jobs);
      await pacer.stop();
    });

    it('maxConcurrent holds further jobs of that endpoint until one settles', async () => {
      const { pacer, settle } = make({ limits: { a: LIMIT }, maxConcurrent: { a: 1 } });
      const log: string[] = [];
      const release = deferred();
      const first = pacer.run('a', async () => {
        log.push('first started');
        await release.promise;
        log.push('first done');
      });
      const second = pacer.run('a', async () => log.push('second started'));
      await settle(Promise.resolve());
      expect(log).toEqual(['first started']);
      expect(pacer.usage().a).toMatchObject({ inWindow: 1, queued: 1 });
      release.resolve();
      await settle(Promise.all([first, second]));
      expect(log).toEqual(['first started', 'first done', 'second started']);
      await pacer.stop();
    });

    it('stop rejects queued jobs (paused ones too), lets started ones finish and refuses new ones', async () => {
      const { pacer, settle } = make({ limits: { a: 1, b: 1 } });
      const release = deferred();
      const running = pacer.run('a', async () => {
        await release.promise;
        return 'finished';
      });
      const queued = pacer.run('a', async () => 'never');
      pacer.pauseEndpoint('b', 60_000);
      const paused = pacer.run('b', async () => 'never');
      queued.catch(() => undefined);
      paused.catch(() => undefined);
      await settle(Promise.resolve());
      expect(pacer.usage()).toMatchObject({ a: { inWindow: 1, queued: 1 }, b: { queued: 1 } });
      await pacer.stop();
      await expect(queued).rejects.toThrow(/pacer stopped/);
      await expect(paused).rejects.toThrow(/pacer stopped/);
      await expect(pacer.run('a', async () => 1)).rejects.toThrow(/pacer stopped/);
      expect(pacer.usage()).toMatchObject({ a: { queued: 0 }, b: { queued: 0 } });
      release.resolve();
      await expect(running).resolves.toBe('finished');
    });

    it('an endpoint without a limit is a clear error naming it', async () => {
      const { pacer } = make({ limits: { a: 1 } });
      await expect(pacer.run('nope', async () => 1)).rejects.toThrow(/no rate limit configured for endpoint "nope"/);
      expect(() => pacer.pauseEndpoint('nope', 10)).toThrow(/"nope"/);
      await pacer.stop();
    });
  });
}
