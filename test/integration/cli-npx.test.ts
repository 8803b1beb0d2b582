// The CLI as a user meets it through npm: `npx sluice ...` and Ctrl-C, which the terminal sends
// to the whole foreground process group (npm, the shell npm runs the command in, and sluice).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../fixtures/daemon-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/sluice.js');

describe('sluice --version', () => {
  it('prints the package version and exits 0', async () => {
    const child = spawn(process.execPath, [BIN, '--version'], { cwd: ROOT, env: childEnv() });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += String(c)));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(out).toBe(`${version}\n`);
    expect(code).toBe(0);
  });
});

describe('Ctrl-C through npx', () => {
  it('stops the daemon in order and npx exits 0 after it (not 130 while sluice is still stopping)', async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'sluice-npx-')), 'paper.yaml');
    writeFileSync(
      config,
      ['mode: paper', 'strategies:', '  - { id: grid, use: strategies/grid/index.ts, symbols: [BTCUSDT] }', 'http: { enabled: false }', 'engine: { shutdown: { cancelOpenOrders: false } }', ''].join('\n'),
    );
    // Its own process group, as a terminal's foreground job: the signal goes to every process in it.
    const child = spawn('npx', ['sluice', 'run', '--config', config], { cwd: ROOT, env: childEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += String(c)));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
    const closed = new Promise<void>((r) => child.on('close', () => r()));
    await new Promise<void>((resolveRunning, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (line.includes('running; Ctrl-C stops')) resolveRunning();
      });
      void exited.then(() => reject(new Error(`exited before running:\n${lines.join('\n')}\n${stderr}`)));
    });
    process.kill(-child.pid!, 'SIGINT');
    const { code, signal } = await exited;
    await closed;
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toContain('stopped');
    // The terminal's SIGINT and npm's forwarded one are one request: the stop was not hurried.
    expect(messages.filter((m) => m.startsWith('stopping'))).toEqual(['stopping: strategies first, then queued intents and open orders per config']);
  });
});
