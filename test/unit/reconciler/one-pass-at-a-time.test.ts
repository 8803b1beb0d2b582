// Reconcile passes run one at a time: the stop's final pass, asked for while the loop's pass is
// still reading (its wait for the loop is bounded), starts only once that pass has ended, so two
// passes never decide from interleaved reads.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { AuthError } from '../../../src/core/errors.js';
import type { OpenOrdersPage } from '../../../src/core/ports.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { scriptedReader, scriptedReconciler } from '../../fixtures/scripted-reconciler.js';

describe('reconcile passes', () => {
  it('run one at a time: a pass asked for during another starts its reads after it ends', async () => {
    const reads: string[] = [];
    let opened = 0;
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const reader = scriptedReader({
      openOrders: async (): Promise<OpenOrdersPage> => {
        const n = ++opened;
        reads.push(`open ${n}`);
        if (n === 1) await firstHeld;
        return { items: [], skipped: [], complete: true };
      },
      trades: async () => {
        reads.push(`trades ${opened}`);
        return { items: [], skipped: [], full: false };
      },
    });
    const reconciler = await scriptedReconciler({ reader, journal: new MemoryJournal(), clock: new ManualClock(1_700_000_000_000) });
    const symbols = [{ market: 'spot' as const, symbol: 'BTCUSDT' }];

    const loopPass = reconciler.pass(symbols);
    const finalPass = reconciler.pass(symbols, { final: true });
    // Turns of the event loop enough for the second pass to reach its reads, were it not waiting.
    for (let i = 0; i < 10; i++) await nextTurn();
    expect(reads).toEqual(['open 1']);

    releaseFirst();
    await Promise.all([loopPass, finalPass]);
    // The final pass reads the latest trades page too (a full scan).
    expect(reads).toEqual(['open 1', 'trades 1', 'open 2', 'trades 2', 'trades 2']);
  });

  it('a pass that throws does not hold the next one', async () => {
    let calls = 0;
    const reader = scriptedReader({
      openOrders: async (): Promise<OpenOrdersPage> => {
        // Refused credentials: the one failure a pass throws (the engine acts on it).
        if (++calls === 1) throw new AuthError({ endpoint: 'GET /sapi/v1/openOrders', httpStatus: 401, venueCode: -1022 }, 'signature refused');
        return { items: [], skipped: [], complete: true };
      },
    });
    const reconciler = await scriptedReconciler({ reader, journal: new MemoryJournal(), clock: new ManualClock(1_700_000_000_000) });
    const symbols = [{ market: 'spot' as const, symbol: 'BTCUSDT' }];
    const first = reconciler.pass(symbols);
    const second = reconciler.pass(symbols);
    await expect(first).rejects.toThrow('signature refused');
    expect(await second).toEqual({ complete: true });
    expect(calls).toBe(2);
  });
});
