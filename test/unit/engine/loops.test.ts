// Loops: the engine's periodic runs on a manual clock.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Loops } from '../../../src/engine/loops.js';
import { deferred } from '../../fixtures/app.js';
import { MemoryLog, settle, tracked } from '../../fixtures/engine-parts.js';

describe('Loops', () => {
  it('runs now and a period after each run ends; `later` waits a period first', async () => {
    const clock = new ManualClock(0);
    const loops = new Loops(clock, new MemoryLog());
    const now: number[] = [];
    const later: number[] = [];
    loops.start();
    loops.every(1000, async () => void now.push(clock.now()));
    loops.every(1000, async () => void later.push(clock.now()), true);
    await settle();
    await clock.advance(2500);
    expect(now).toEqual([0, 1000, 2000]);
    expect(later).toEqual([1000, 2000]);
    await loops.stop();
  });

  it('a run that throws is logged and the loop goes on', async () => {
    const clock = new ManualClock(0);
    const log = new MemoryLog();
    const loops = new Loops(clock, log);
    let runs = 0;
    loops.start();
    loops.every(100, async () => {
      runs++;
      throw new Error('boom');
    });
    await settle();
    await clock.advance(200);
    expect(runs).toBe(3);
    expect(log.withMsg('engine loop failed; continuing').map((l) => l.fields.err)).toEqual(['boom', 'boom', 'boom']);
    await loops.stop();
  });

  it('stop waits for the run in progress, and no run starts after it', async () => {
    const clock = new ManualClock(0);
    const loops = new Loops(clock, new MemoryLog());
    const gate = deferred<void>();
    let runs = 0;
    loops.start();
    loops.every(100, async () => {
      runs++;
      await gate.promise;
    });
    await settle();
    const stopping = tracked(loops.stop());
    await settle();
    expect(stopping.done).toBe(false);
    gate.resolve();
    await stopping.promise;
    await clock.advance(1000);
    expect(runs).toBe(1);
  });
});
