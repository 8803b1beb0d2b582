// A ban at start-up on a manual clock: a ban heard while starting is waited out in the process
// (so an untimed ban keeps lengthening as it repeats), and a stop during the wait ends the start.
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build.js';
import { createLogger } from '../../src/app/logger.js';
import { backtest } from '../../src/app/profiles.js';
import { ManualClock } from '../../src/core/clock.js';
import { parseConfig } from '../../src/config/index.js';
import { SimExchange } from '../../src/sim/index.js';
import { MemoryJournal } from '../../src/store/memory.js';

const T0 = Date.UTC(2026, 0, 1);
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
const quiet = () => createLogger({ level: 'fatal', pretty: false, secrets: [] });

/** Moves the manual clock sleeper by sleeper until `work` settles; returns how it settled. */
async function drive(clock: ManualClock, work: Promise<unknown>): Promise<{ failed?: unknown }> {
  let done: { failed?: unknown } | undefined;
  work.then(() => (done = {}), (failed: unknown) => (done = { failed }));
  for (;;) {
    await settle();
    if (done) return done;
    clock.wakeNext();
  }
}

async function app(opts: { banFor?: number; journal?: MemoryJournal }) {
  const clock = new ManualClock(T0);
  const troubles = opts.banFor ? [{ kind: 'ban' as const, from: T0, until: T0 + opts.banFor, skewMs: 0 }] : [];
  const sim = new SimExchange({ clock, seed: 1, troubles });
  const { config } = await parseConfig('mode: paper\n', { env: {} });
  return { clock, sim, app: buildApp({ config, profile: backtest(config, sim, clock, {}), strategies: [], log: quiet(), ...(opts.journal ? { journal: opts.journal } : {}) }) };
}

describe('a ban at start-up', () => {
  it('heard on the first request is waited out in the process, then the start goes on', async () => {
    const { clock, sim, app: a } = await app({ banFor: 300_000 });
    expect(await drive(clock, a.start())).toEqual({});
    expect(a.engine.ready).toBe(true);
    // Nothing went to the venue during the ban but the first request that heard it.
    const during = sim.arrivals().filter((r) => r.at < T0 + 300_000);
    expect(during.map((r) => r.status)).toEqual([418]);
    expect(clock.now()).toBeGreaterThanOrEqual(T0 + 300_000);
    await drive(clock, a.stop());
  });

  it('journaled by the last run, ends the start at once when the daemon is stopped during its wait', async () => {
    const journal = new MemoryJournal();
    journal.setBanUntil(T0 + 3_600_000);
    const { clock, sim, app: a } = await app({ journal });
    let outcome: string | undefined;
    a.start().then(() => (outcome = 'returned'), (err: unknown) => (outcome = `threw ${String(err)}`));
    await settle();
    expect(outcome).toBeUndefined();
    await a.stop();
    await settle();
    expect(outcome).toBe('returned');
    expect(clock.now()).toBe(T0);
    expect(a.engine.ready).toBe(false);
    expect(sim.arrivals()).toEqual([]);
  });
});
