// When the journal's write failure begins and ends, and who hears it.
import { describe, expect, it } from 'vitest';
import type { JournalWriteFailure } from '../../../src/core/ports.js';
import { WriteHealth } from '../../../src/store/write-health.js';

function health() {
  let now = 1000;
  const heard: (JournalWriteFailure | undefined)[] = [];
  const h = new WriteHealth(() => now);
  h.onChange = (f) => heard.push(f);
  return { h, heard, at: (ms: number) => (now = ms) };
}

describe('WriteHealth', () => {
  it('a failure lasts until a write of its own kind commits: another kind that still fits does not end it', () => {
    const { h, heard, at } = health();
    h.wrote('recordIntent');
    h.committed();
    expect(h.current()).toBeUndefined();
    h.failed('recordIntent', 'disk full');
    at(2000);
    h.failed('recordFill', 'disk full again');
    expect(h.current()).toEqual({ since: 1000, message: 'disk full' });
    h.wrote('setCursor');
    h.committed();
    expect(h.current()).toEqual({ since: 1000, message: 'disk full' });
    // Inside a transaction that then fails: not ended.
    h.wrote('recordIntent');
    h.failed('transaction', 'disk full');
    h.committed();
    expect(h.current()).toEqual({ since: 1000, message: 'disk full' });
    h.wrote('recordIntent');
    h.wrote('transaction');
    h.committed();
    expect(h.current()).toBeUndefined();
    expect(heard).toEqual([{ since: 1000, message: 'disk full' }, undefined]);
  });

  it('a failed fsync never ends: a later commit does not clear it', () => {
    const { h, heard } = health();
    h.failed('recordIntent', 'disk full');
    h.syncLost('could not be synced');
    h.wrote('recordIntent');
    h.committed();
    expect(h.current()).toEqual({ since: 1000, message: 'could not be synced' });
    expect(heard).toEqual([{ since: 1000, message: 'disk full' }]);
    const fresh = health();
    fresh.h.syncLost('could not be synced');
    expect(fresh.heard).toEqual([{ since: 1000, message: 'could not be synced' }]);
  });
});
