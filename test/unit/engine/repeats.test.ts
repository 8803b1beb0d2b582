// Repeating failures are logged once, then counted, on the engine's clock.
import { describe, expect, it } from 'vitest';
import { quietRepeats, Repeats } from '../../../src/engine/repeats.js';
import { MemoryLog } from '../../fixtures/engine-parts.js';

const T0 = Date.UTC(2026, 0, 1);

function rig(everyMs = 60_000) {
  const log = new MemoryLog();
  let now = T0;
  const quiet = quietRepeats(log, () => now, everyMs);
  return { log, quiet, at: (ms: number) => (now = T0 + ms) };
}

describe('quietRepeats', () => {
  it('logs a failure once, holds back its repeats, and logs it again a period later with the count', () => {
    const { log, quiet, at } = rig();
    for (let s = 0; s < 60; s++) {
      at(s * 1000);
      quiet.warn({ err: 'spot.ticker: no symbol DOGEUSDT', symbol: 'DOGEUSDT', kind: 'ticker' }, 'market data poll failed');
    }
    expect(log.lines).toEqual([{ level: 'warn', fields: { err: 'spot.ticker: no symbol DOGEUSDT', symbol: 'DOGEUSDT', kind: 'ticker' }, msg: 'market data poll failed' }]);
    at(60_000);
    quiet.warn({ err: 'spot.ticker: 503', symbol: 'DOGEUSDT', kind: 'ticker' }, 'market data poll failed');
    expect(log.lines[1]).toEqual({
      level: 'warn',
      fields: { err: 'spot.ticker: 503', symbol: 'DOGEUSDT', kind: 'ticker', repeats: 59 },
      msg: 'market data poll failed (59 more since 2026-01-01T00:00:00.000Z)',
    });
    expect(log.lines).toHaveLength(2);
  });

  it('a failure that comes back after a quiet period is logged as it is (nothing was held back)', () => {
    const { log, quiet, at } = rig();
    quiet.warn({ err: 'x', market: 'spot', symbol: 'BTCUSDT' }, 'reconcile failed; will retry');
    at(600_000);
    quiet.warn({ err: 'x', market: 'spot', symbol: 'BTCUSDT' }, 'reconcile failed; will retry');
    expect(log.lines.map((l) => l.msg)).toEqual(['reconcile failed; will retry', 'reconcile failed; will retry']);
  });

  it('another symbol, market or message is another failure, logged at once', () => {
    const { log, quiet } = rig();
    quiet.warn({ err: 'x', market: 'spot', symbol: 'BTCUSDT' }, 'reconcile failed; will retry');
    quiet.warn({ err: 'x', market: 'spot', symbol: 'ETHUSDT' }, 'reconcile failed; will retry');
    quiet.warn({ err: 'x', market: 'futures', symbol: 'BTCUSDT' }, 'reconcile failed; will retry');
    quiet.warn({ err: 'x', market: 'spot' }, 'spot account read failed; keeping the last figures');
    quiet.error({ err: 'x', market: 'spot', symbol: 'BTCUSDT' }, 'reconcile failed; will retry');
    expect(log.lines).toHaveLength(5);
  });

  it('lines that are not failures (no err) always pass: drift, adoption, the kill switch repeat on purpose', () => {
    const { log, quiet } = rig();
    for (let i = 0; i < 3; i++) {
      quiet.warn({ killSwitch: 'halted' }, 'kill switch toggled by SIGUSR2');
      quiet.info({ strategy: 'g' }, 'x');
      quiet.debug({}, 'y');
    }
    expect(log.lines).toHaveLength(9);
  });

  it('with `full` lines a period: those in full, then the count on the first line after it; flush tells what is held back, once', () => {
    const log = new MemoryLog();
    let now = T0;
    const repeats = new Repeats(log, () => now, { everyMs: 10_000, full: 3 });
    for (let i = 0; i < 10; i++) repeats.line('warn', 'k', { i }, 'refused');
    repeats.line('error', 'other', { i: 'o' }, 'refused');
    expect(log.lines.map((l) => [l.level, l.fields.i])).toEqual([['warn', 0], ['warn', 1], ['warn', 2], ['error', 'o']]);
    now = T0 + 10_000;
    repeats.line('warn', 'k', { i: 10 }, 'refused');
    expect(log.lines.at(-1)).toEqual({ level: 'warn', fields: { i: 10, repeats: 7 }, msg: 'refused (7 more since 2026-01-01T00:00:00.000Z)' });
    for (let i = 11; i < 15; i++) repeats.line('warn', 'k', { i }, 'refused');
    repeats.flush();
    repeats.flush();
    expect(log.lines.slice(-3).map((l) => [l.fields.i, l.fields.repeats])).toEqual([[11, undefined], [12, undefined], [14, 2]]);
  });
});
