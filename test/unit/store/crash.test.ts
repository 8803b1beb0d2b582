// kill -9 in the middle of journaling: every intent whose recordIntent returned is still there,
// no sequence is handed out twice, and the file is sound.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../../src/store/sqlite.js';

const CHILD = resolve(import.meta.dirname, 'journal-crash-child.ts');
const ROOT = resolve(import.meta.dirname, '../../..');

interface Run {
  /** [sequence, client order id] of every intent the child reported as journaled. */
  acknowledged: [number, string][];
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Starts the child, kills it with SIGKILL once it has reported `killAfter` intents, and collects what it printed. */
function journalUntilKilled(path: string, killAfter: number): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    // A count far beyond killAfter: the child is always killed mid-way, never finishes.
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, path, '1000000'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const acknowledged: [number, string][] = [];
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // Lines that arrive after the kill still count: each was printed after its call returned.
    createInterface({ input: child.stdout }).on('line', (line) => {
      const [sequence, id] = line.split(' ');
      acknowledged.push([Number(sequence), id!]);
      if (acknowledged.length === killAfter) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', (_code, signal) => resolveRun({ acknowledged, signal, stderr }));
  });
}

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-journal-crash-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteJournal under kill -9', () => {
  it('keeps every intent whose recordIntent returned, across three crashes in a row', async () => {
    const path = join(dir, 'journal.db');
    const all: [number, string][] = [];
    for (const killAfter of [25, 120, 60]) {
      const run = await journalUntilKilled(path, killAfter);
      expect(run.signal, run.stderr).toBe('SIGKILL');
      expect(run.acknowledged.length).toBeGreaterThanOrEqual(killAfter);
      all.push(...run.acknowledged);

      const journal = new SqliteJournal(path);
      try {
        expect(journal.integrityCheck()).toEqual(['ok']);
        const missing = all.filter(([, id]) => journal.order(id)?.status !== 'pending' || journal.intents(id).length !== 1);
        expect(missing).toEqual([]);
        // Sequences: never one handed out twice, and the next one is past all of them.
        const sequences = all.map(([s]) => s);
        expect(new Set(sequences).size).toBe(sequences.length);
        expect(journal.nextSequence('crash')).toBeGreaterThan(Math.max(...sequences));
      } finally {
        journal.close();
      }
    }
  });
});
