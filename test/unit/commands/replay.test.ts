// `sluice replay` on a tape it cannot re-run says why and how to go on, never a stack trace.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { replayCommand } from '../../../src/commands/backtest.js';
import { TAPE_VERSION } from '../../../src/tape/index.js';
import { call, T0 } from '../tape/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-replay-cmd-'));

/** Runs the command, returning its exit code and what it wrote to stderr. */
async function replay(tape: string): Promise<{ code: number; stderr: string }> {
  const written: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => (written.push(String(text)), true));
  const code = await replayCommand({ tape });
  return { code, stderr: written.join('') };
}

function tapeFile(name: string, meta: Record<string, unknown>, lines: string[] = []): string {
  const path = join(dir, name);
  const header = JSON.stringify({ tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta });
  writeFileSync(path, [header, ...lines, ''].join('\n'));
  return path;
}

afterEach(() => vi.restoreAllMocks());

describe('sluice replay', () => {
  it('refuses a tape a daemon recorded on the wall clock, pointing to backtest', async () => {
    const path = tapeFile('daemon.jsonl', { config: { mode: 'paper' } }, [JSON.stringify(call(0, 'spot', 'GET', '/sapi/v1/time'))]);
    const { code, stderr } = await replay(path);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `${path} was recorded by a daemon (sluice run) on the wall clock, which a replay cannot repeat exactly: replay re-runs tapes a backtest recorded (record: in a backtest's config). A daemon's tape is for backtests: sluice backtest --tape ${path}\n`,
    );
  });

  it('names a missing file and a broken line instead of throwing', async () => {
    const missing = join(dir, 'nope.jsonl');
    expect(await replay(missing)).toEqual({ code: 1, stderr: `cannot read ${missing} (ENOENT): check the --tape path\n` });
    const broken = tapeFile('broken.jsonl', { config: {}, stopAt: T0 }, ['{"kind":"call",', JSON.stringify(call(1, 'spot', 'GET', '/sapi/v1/time'))]);
    const { code, stderr } = await replay(broken);
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^${broken}:2: not JSON \\(.+\\)\\n$`));
  });
});
