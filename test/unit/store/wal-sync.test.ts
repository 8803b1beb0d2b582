// The journal's off-loop fsync: durable(mark) resolves only after an fsync that started after
// the commits it names, and commits in a burst share one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalError } from '../../../src/core/errors.js';
import { WalSync } from '../../../src/store/wal-sync.js';

let dir: string;
let wal: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-walsync-'));
  wal = join(dir, 'journal.db-wal');
  writeFileSync(wal, 'frames');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('WalSync', () => {
  it('marks count commits; what is already synced needs no fsync', async () => {
    const w = new WalSync(wal);
    expect(w.mark()).toBe(0);
    await w.durable(0);
    expect(w.fsyncs).toBe(0);
    expect(w.commit()).toBe(1);
    expect(w.commit()).toBe(2);
    expect(w.durableMark()).toBe(0);
    await w.durable(2);
    expect(w.durableMark()).toBe(2);
    expect(w.fsyncs).toBe(1);
    await w.durable(1);
    expect(w.fsyncs).toBe(1);
    w.close();
  });

  it('group commit: every waiter of a burst is answered by the fsync in flight or the one after it', async () => {
    const w = new WalSync(wal);
    const waits: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) waits.push(w.durable(w.commit()));
    await Promise.all(waits);
    // The first fsync started after commit 1; commits 2..50 came while it ran: one more covers them.
    expect(w.fsyncs).toBe(2);
    expect(w.durableMark()).toBe(50);
    w.close();
  });

  it('a commit made while an fsync runs is not taken as covered by it', async () => {
    const w = new WalSync(wal);
    const first = w.durable(w.commit());
    const second = w.commit();
    let secondDone = false;
    const later = w.durable(second).then(() => (secondDone = true));
    await first;
    expect(w.durableMark()).toBe(1);
    expect(secondDone).toBe(false);
    await later;
    expect(w.durableMark()).toBe(2);
    w.close();
  });

  it('a file it cannot sync fails every waiter and every later call with a JournalError that says what to do', async () => {
    const w = new WalSync(join(dir, 'missing-wal'));
    const err = await w.durable(w.commit()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JournalError);
    expect((err as Error).message).toMatch(/could not be synced to disk .*orders stay unsent; check the disk/);
    await expect(w.durable(w.commit())).rejects.toBe(err);
  });

  it('closing answers what still waits: nothing is taken as durable after close', async () => {
    const w = new WalSync(wal);
    const pending = w.durable(w.commit());
    const after = w.durable(w.commit());
    w.close();
    await expect(pending).resolves.toBeUndefined(); // its fsync was already running
    await expect(after).rejects.toThrow(/closed before its last commits were synced/);
    await expect(w.durable(w.commit())).rejects.toThrow(/is closed/);
  });
});
