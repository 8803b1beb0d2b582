// Paper mode keeps its journal in memory: status says so and exits 0, and a journal.path the
// config sets is named at start-up as unused rather than silently ignored.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, DaemonProcess } from '../fixtures/daemon-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/sluice.js');

function paperConfig(journalPath?: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'sluice-paper-')), 'paper.yaml');
  writeFileSync(
    path,
    [
      'mode: paper',
      'strategies:',
      '  - { id: grid, use: strategies/grid/index.ts, symbols: [BTCUSDT] }',
      'http: { enabled: false }',
      'engine: { shutdown: { cancelOpenOrders: false } }',
      ...(journalPath ? [`journal: { path: ${JSON.stringify(journalPath)} }`] : []),
      '',
    ].join('\n'),
  );
  return path;
}

describe('paper mode', () => {
  it('sluice status says in one line why there is nothing to show, and exits 0', async () => {
    const child = spawn(process.execPath, [BIN, 'status', '--config', paperConfig()], { cwd: ROOT, env: childEnv() });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += String(c)));
    child.stderr.on('data', (c: Buffer) => (err += String(c)));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code, err).toBe(0);
    expect(out.split('\n').filter(Boolean)).toEqual([expect.stringMatching(/^status: nothing to show in paper mode: the paper daemon keeps its journal in memory .*\(mode: live\)$/)]);
  });

  it('the daemon says at start-up that journal.path is not used, and writes nothing there', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'sluice-paper-journal-')), 'x', 'journal.db');
    const daemon = new DaemonProcess(spawn(process.execPath, [BIN, 'run', '--config', paperConfig(journal)], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] }));
    const note = await daemon.waitFor((l) => /journal\.path is not used in paper mode/.test(l.msg), 'the journal.path note');
    expect(note).toMatchObject({ journalPath: journal, msg: expect.stringContaining('the paper journal is kept in memory') });
    await daemon.waitFor((l) => l.msg === 'running; Ctrl-C stops', 'running');
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(existsSync(journal)).toBe(false);
    expect(existsSync(`${journal}.lock`)).toBe(false);
  });

  it('says nothing of journal.path when the config leaves it at its default', async () => {
    const daemon = new DaemonProcess(spawn(process.execPath, [BIN, 'run', '--config', paperConfig()], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] }));
    await daemon.waitFor((l) => l.msg === 'running; Ctrl-C stops', 'running');
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(daemon.lines.filter((l) => /journal\.path/.test(l.msg))).toEqual([]);
  });
});
