// The journal lock is the kernel's: a live holder (in this process, in another one, in another
// container on this host) always keeps a second daemon out, and a dead one never does, whatever
// pid or host it recorded. Never read `<journal>.lock` with fs in here while this process may
// hold it: closing that descriptor would drop the lock (POSIX), and the tests with it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalError } from '../../../src/core/errors.js';
import { lockJournal, lockState, type JournalLock } from '../../../src/store/lock.js';
import { SqliteJournal } from '../../../src/store/sqlite.js';

const CHILD = resolve(import.meta.dirname, 'lock-child.ts');
const ROOT = resolve(import.meta.dirname, '../../..');

const dirs: string[] = [];
const children: ChildProcess[] = [];
const locks: JournalLock[] = [];

afterEach(() => {
  for (const lock of locks.splice(0)) lock.release();
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'sluice-lock-'));
  dirs.push(d);
  return d;
};

/** Takes the lock for the test; afterEach releases it if the test did not. */
function lock(path: string): JournalLock {
  const l = lockJournal(path);
  locks.push(l);
  return l;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const refusal = (pid: number, host = hostname()) => new RegExp(`is in use by another sluice \\(pid ${pid} on ${esc(host)} since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\): stop it first, or give this daemon its own journal\\.path`);

/** The pid of a process that has exited: a stale owner. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.on('exit', done));
  return child.pid!;
}

/** A child process trying the lock; resolves once it says whether it holds it. */
async function childLock(path: string, pid?: number): Promise<{ child: ChildProcess; said: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, path, ...(pid === undefined ? [] : [String(pid)])], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const said = await new Promise<string>((done, fail) => {
    createInterface({ input: child.stdout! }).once('line', done);
    child.on('error', fail);
    child.on('close', (code) => fail(new Error(`the child exited (${code}) without a word: ${stderr}`)));
  });
  return { child, said };
}

async function holdInChild(path: string, pid?: number): Promise<ChildProcess> {
  const { child, said } = await childLock(path, pid);
  expect(said).toBe('held');
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((done) => child.on('exit', done));
  child.kill('SIGKILL');
  await exited;
}

describe('lockJournal', () => {
  it('refuses a second lock in this process while the first is held, naming the holder; takes it after release', () => {
    const path = join(dir(), 'journal.db');
    const first = lock(path);
    expect(() => lockJournal(path)).toThrow(JournalError);
    expect(() => lockJournal(path)).toThrow(refusal(process.pid));
    expect(lockState(path)).toMatchObject({ kind: 'held', holder: { pid: process.pid, host: hostname() } });
    first.release();
    first.release(); // a second release is harmless
    expect(lockState(path)).toEqual({ kind: 'free', last: undefined });
    lock(path).release();
  });

  it('two paths to one journal meet at one lock: a symlink to the file, to its directory, or to a journal not made yet', () => {
    const base = dir();
    const real = join(base, 'real');
    mkdirSync(real);
    const path = join(real, 'journal.db');
    writeFileSync(path, '');
    symlinkSync(path, join(base, 'file-link.db'));
    symlinkSync(real, join(base, 'dir-link'));
    const first = lock(path);
    for (const other of [join(base, 'file-link.db'), join(base, 'dir-link', 'journal.db'), join(base, 'real', '..', 'dir-link', 'journal.db')]) {
      expect(() => lockJournal(other)).toThrow(refusal(process.pid));
      expect(lockState(other)).toMatchObject({ kind: 'held', holder: { pid: process.pid } });
    }
    first.release();
    // A link whose journal does not exist yet: SQLite would create it where the link points.
    const later = join(real, 'later.db');
    symlinkSync(later, join(base, 'later-link.db'));
    const viaLink = lock(join(base, 'later-link.db'));
    expect(viaLink.path).toBe(`${later}.lock`);
    expect(() => lockJournal(later)).toThrow(refusal(process.pid));
  });

  it('a lock held by another live process refuses us, naming its pid; after its kill -9 we take it at once', async () => {
    const path = join(dir(), 'journal.db');
    const child = await holdInChild(path);
    expect(() => lockJournal(path)).toThrow(refusal(child.pid!));
    expect(lockState(path)).toMatchObject({ kind: 'held', holder: { pid: child.pid } });
    await kill9(child);
    // The kernel dropped the lock with the process: what it wrote about itself is all that is left.
    expect(lockState(path)).toMatchObject({ kind: 'free', last: { pid: child.pid } });
    lock(path);
    expect(lockState(path)).toMatchObject({ kind: 'held', holder: { pid: process.pid } });
  });

  it('a lock held in this process keeps another process out', async () => {
    const path = join(dir(), 'journal.db');
    lock(path);
    const { said } = await childLock(path);
    expect(said).toMatch(refusal(process.pid));
  });

  it('a live daemon whose pid means nothing here (another container on this host) still keeps us out', async () => {
    const path = join(dir(), 'journal.db');
    const pid = await deadPid();
    await holdInChild(path, pid);
    expect(() => lockJournal(path)).toThrow(refusal(pid));
  });
});

describe('lockJournal after an unclean stop', () => {
  it('a daemon killed -9 that had our pid (a restarted container is PID 1 again) leaves nothing that blocks us', async () => {
    const path = join(dir(), 'journal.db');
    await kill9(await holdInChild(path, process.pid));
    expect(lockState(path)).toMatchObject({ kind: 'free', last: { pid: process.pid, host: hostname() } });
    lock(path);
    expect(lockState(path)).toMatchObject({ kind: 'held', holder: { pid: process.pid } });
  });

  it('a stale lock from another host (a recreated container has a new hostname) never blocks a start', () => {
    const path = join(dir(), 'journal.db');
    lock(path).release();
    writeFileSync(`${path}.lock.holder`, JSON.stringify({ pid: 1, host: 'old-container', since: '2024-01-01T00:00:00.000Z' }));
    lock(path).release();
    writeFileSync(`${path}.lock`, '1@some-other-host'); // an older sluice's
    lock(path);
  });

  it("an older sluice's text lock naming our own pid never blocks a start; it becomes a kernel lock in place", async () => {
    const path = join(dir(), 'journal.db');
    writeFileSync(`${path}.lock`, `${process.pid}@${hostname()}`);
    expect(lockState(path)).toEqual({ kind: 'old', text: `${process.pid}@${hostname()}` });
    lock(path);
    const { said } = await childLock(path);
    expect(said).toMatch(refusal(process.pid));
  });

  it('a file at the lock path that is no lock at all is refused and left as it was', () => {
    const path = join(dir(), 'journal.db');
    writeFileSync(`${path}.lock`, 'my notes\n');
    expect(() => lockJournal(path)).toThrow(`${path}.lock is not a sluice journal lock (neither SQLite nor "pid@host"): move it aside and start again`);
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe('my notes\n');
  });

  it('release removes what the holder wrote about itself and leaves the lock file (removing it could split the lock)', () => {
    const path = join(dir(), 'journal.db');
    const l = lock(path);
    expect(JSON.parse(readFileSync(`${path}.lock.holder`, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    l.release();
    expect(existsSync(`${path}.lock.holder`)).toBe(false);
    expect(existsSync(`${path}.lock`)).toBe(true);
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
    lock(path).release();
    expect(existsSync(`${path}.lock`)).toBe(true);
    const journal = SqliteJournal.open(path, { now: () => 1, firstSequence: () => 1 });
    journal.close();
    expect(existsSync(path)).toBe(true);
  });

  it('names the directory and the field when it cannot be made', () => {
    const parent = join(dir(), 'a-file');
    writeFileSync(parent, '');
    expect(() => lockJournal(join(parent, 'x.db'))).toThrow(/cannot create the journal's directory .*a-file: a file is in the way: fix journal\.path/);
  });
});
