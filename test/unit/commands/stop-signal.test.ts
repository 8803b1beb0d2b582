// stopVerdict: Ctrl-C under npm or npx arrives twice within milliseconds; only a later or a
// different signal hurries the stop.
import { describe, expect, it } from 'vitest';
import { SAME_REQUEST_MS, stopVerdict, type StopVerdict } from '../../../src/commands/stop-signal.js';

describe('stopVerdict', () => {
  const first = { signal: 'SIGINT', at: 50_000 };

  it.each<[string, { signal: string; at: number } | undefined, string, number, StopVerdict]>([
    ['the first signal stops', undefined, 'SIGINT', 50_000, 'stop'],
    ['the first SIGTERM stops too', undefined, 'SIGTERM', 50_000, 'stop'],
    ['npm\'s forwarded copy, at once, is the same request', first, 'SIGINT', 50_000, 'same'],
    ['a few ms later, still the same', first, 'SIGINT', 50_004, 'same'],
    ['the last ms of the window, still the same', first, 'SIGINT', 50_000 + SAME_REQUEST_MS - 1, 'same'],
    ['a second Ctrl-C a second later hurries', first, 'SIGINT', 50_000 + SAME_REQUEST_MS, 'hurry'],
    ['much later, hurries', first, 'SIGINT', 120_000, 'hurry'],
    ['another signal at once is someone asking again: hurries', first, 'SIGTERM', 50_001, 'hurry'],
  ])('%s', (_what, before, signal, now, verdict) => {
    expect(stopVerdict(before, signal, now)).toBe(verdict);
  });

  it('the window is about a second', () => {
    expect(SAME_REQUEST_MS).toBe(1000);
  });
});
