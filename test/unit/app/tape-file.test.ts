// Where a recording goes: a gzip tape is named .gz, and no tape is written over an earlier one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tapeFile } from '../../../src/app/build.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-tape-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = Date.UTC(2026, 10, 28, 14, 30, 5, 250);

describe('tapeFile', () => {
  it('adds .gz to a gzip tape whose path lacks it, and only then', () => {
    expect(tapeFile(join(dir, 'today.jsonl'), true, NOW)).toBe(join(dir, 'today.jsonl.gz'));
    expect(tapeFile(join(dir, 'today.jsonl.gz'), true, NOW)).toBe(join(dir, 'today.jsonl.gz'));
    expect(tapeFile(join(dir, 'today.jsonl'), false, NOW)).toBe(join(dir, 'today.jsonl'));
  });

  it('puts the start time before the extension when a tape is there already', () => {
    writeFileSync(join(dir, 'day.jsonl.gz'), '');
    writeFileSync(join(dir, 'day.jsonl'), '');
    expect(tapeFile(join(dir, 'day.jsonl'), true, NOW)).toBe(join(dir, 'day-2026-11-28T14-30-05-250Z.jsonl.gz'));
    expect(tapeFile(join(dir, 'day.jsonl'), false, NOW)).toBe(join(dir, 'day-2026-11-28T14-30-05-250Z.jsonl'));
  });

  it('numbers a tape whose start time is taken too (a backtest recording, which starts at its tape\'s start each run)', () => {
    for (const name of ['bt.jsonl.gz', 'bt-2026-11-28T14-30-05-250Z.jsonl.gz']) writeFileSync(join(dir, name), '');
    expect(tapeFile(join(dir, 'bt.jsonl'), true, NOW)).toBe(join(dir, 'bt-2026-11-28T14-30-05-250Z-2.jsonl.gz'));
    writeFileSync(join(dir, 'bt-2026-11-28T14-30-05-250Z-2.jsonl.gz'), '');
    expect(tapeFile(join(dir, 'bt.jsonl'), true, NOW)).toBe(join(dir, 'bt-2026-11-28T14-30-05-250Z-3.jsonl.gz'));
  });
});
