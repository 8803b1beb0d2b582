import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalError } from '../../../src/core/errors.js';
import { lockJournal } from '../../../src/store/lock.js';
import { SqliteJournal } from '../../../src/store/sqlite.js';

const dir = () => mkdtempSync(join(tmpdir(), 'sluice-lock-'));

/** The pid of a process that has exited: a stale owner. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('lockJournal', () => {
  it('refuses a second holder while the first is alive, naming the pid and the fix', () => {
    const path = join(dir(), 'journal.db');
    const first = lockJournal(path);
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(`${process.pid}@${hostname()}`);
    expect(() => lockJournal(path)).toThrow(JournalError);
    expect(() => lockJournal(path)).toThrow(`is in use by another sluice (pid ${process.pid}`);
    first.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
    lockJournal(path).release();
  });

  it('takes over the lock of a process that died without releasing it (kill -9)', async () => {
    const path = join(dir(), 'journal.db');
    const pid = await deadPid();
    writeFileSync(`${path}.lock`, `${pid}@${hostname()}`);
    const lock = lockJournal(path);
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(`${process.pid}@${hostname()}`);
    lock.release();
  });

  it('treats a lock from another host as held (it cannot be checked from here)', () => {
    const path = join(dir(), 'journal.db');
    writeFileSync(`${path}.lock`, `1@some-other-host`);
    expect(() => lockJournal(path)).toThrow('pid 1 on some-other-host');
  });

  it('release leaves a lock that someone else took over alone', () => {
    const path = join(dir(), 'journal.db');
    const lock = lockJournal(path);
    writeFileSync(`${path}.lock`, `1@elsewhere`);
    lock.release();
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe('1@elsewhere');
  });
});

describe('seeded sequences', () => {
  it('a journal started afresh after losing the old one never reuses its sequences', () => {
    const d = dir();
    let now = 1_700_000_000_000;
    const first = SqliteJournal.open(join(d, 'a.db'), { now: () => now, firstSequence: () => now });
    const old = [first.nextSequence('grid'), first.nextSequence('grid'), first.nextSequence('grid')];
    expect(old).toEqual([now, now + 1, now + 2]);
    first.close();
    now += 5; // the journal file is lost; a new one starts a few ms later
    const fresh = SqliteJournal.open(join(d, 'b.db'), { now: () => now, firstSequence: () => now });
    expect(fresh.nextSequence('grid')).toBeGreaterThan(Math.max(...old));
    fresh.close();
  });
});

describe('lockJournal on a first start', () => {
  it('creates the journal directory when it does not exist (journal.path: .sluice/x.db)', () => {
    const path = join(dir(), '.sluice', 'nested', 'x.db');
    const lock = lockJournal(path);
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(`${process.pid}@${hostname()}`);
    lock.release();
    const journal = SqliteJournal.open(path, { now: () => 1, firstSequence: () => 1 });
    journal.close();
    expect(existsSync(path)).toBe(true);
  });

  it('names the directory and the field when it cannot be made', () => {
    const parent = join(dir(), 'a-file');
    writeFileSync(parent, '');
    expect(() => lockJournal(join(parent, 'x.db'))).toThrow(/cannot create the journal's directory .*a-file \(a file is in the way\): check journal\.path/);
  });
});
