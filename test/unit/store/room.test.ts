// Whether the journal can be written where it is, asked without writing.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freeBytes, unwritable, writeProblem } from '../../../src/store/room.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the journal\'s room', () => {
  it('a writable directory, made or still to be made, has no problem; a file in the path is named', () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-room-'));
    expect(writeProblem(join(dir, 'journal.db'))).toBeUndefined();
    expect(writeProblem(join(dir, 'not', 'yet', 'journal.db'))).toBeUndefined();
    writeFileSync(join(dir, 'file'), '');
    expect(writeProblem(join(dir, 'file', 'deeper', 'journal.db'))).toEqual({ problem: `${join(dir, 'file')} is a file, not a directory (ENOTDIR)`, fix: 'fix journal.path' });
  });

  it('names each cause with its fix', () => {
    expect(unwritable('/j', 'EROFS')).toEqual({ problem: '/j is on a read-only filesystem (EROFS)', fix: 'remount it read-write, or point journal.path at a writable disk' });
    expect(unwritable('/j', 'EACCES')).toEqual({ problem: 'this user may not write /j (EACCES)', fix: "run sluice as the journal's owner, or fix the permissions" });
    expect(unwritable('/j', 'EIO')).toEqual({ problem: '/j cannot be written (EIO)', fix: 'check the disk and the permissions' });
  });

  it('free space is that of the filesystem the journal will be on', () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-room-'));
    mkdirSync(join(dir, 'a'));
    const free = freeBytes(join(dir, 'a', 'b', 'journal.db'));
    expect(free).toBeGreaterThan(0);
    expect(Number.isSafeInteger(free)).toBe(true);
  });
});
