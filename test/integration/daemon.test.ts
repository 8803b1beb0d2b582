// The `sluice` command as a user runs it: a real child process.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../fixtures/daemon-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/sluice.js');

function runCli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv() });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += String(c)));
  child.stderr.on('data', (c: Buffer) => (err += String(c)));
  return new Promise((r) => child.on('exit', (code) => r({ code, out, err })));
}

describe('sluice plan', () => {
  it('prints the batches and verdicts of one tick and exits 0', async () => {
    const { code, out } = await runCli(['plan', '--config', 'config/default.yaml']);
    expect(code).toBe(0);
    expect(out).toMatch(/^plan: 6 intents accepted by risk, 0 rejected, 1 batch \(nothing sent\)$/m);
    expect(out).toMatch(/batch spot BTCUSDT place x6: slgrid1-0 BUY LIMIT 0\.001 BTCUSDT @ \d+/);
  });
});

describe('sluice run', () => {
  it('trades paper on the built-in simulator and stops cleanly on SIGTERM with exit 0', async () => {
    const child = spawn(process.execPath, [BIN, 'run', '--config', 'config/default.yaml'], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += String(c)));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const running = new Promise<void>((resolveRunning, reject) => {
      const rl = createInterface({ input: child.stdout });
      rl.on('line', (line) => {
        lines.push(line);
        if (line.includes('running; Ctrl-C stops')) resolveRunning();
      });
      void exited.then(() => reject(new Error(`exited before running:\n${lines.join('\n')}\n${stderr}`)));
    });
    await running;
    // The demo's dashboard is on in paper mode, and its URL is the first thing printed on stderr,
    // once the daemon has started (written just before the running line; the two pipes are read apart).
    while (!stderr.includes('\n')) await new Promise((r) => child.stderr.once('data', r));
    const dashboard = /^dashboard: (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(stderr);
    expect(dashboard, stderr).not.toBeNull();
    const page = await fetch(dashboard![1]!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>sluice dashboard</title>');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const messages = lines.map((l) => JSON.parse(l) as { msg: string; mode?: string });
    expect(messages.find((m) => m.mode !== undefined)).toMatchObject({ mode: 'paper', msg: 'starting on the built-in simulated exchange (paper mode: no real money)' });
    expect(messages.map((m) => m.msg)).toContain('stopped');
  });

  it('refuses a broken config at start-up, listing every problem, exit 1', async () => {
    const child = spawn(process.execPath, [BIN, 'validate', '--config', 'test/fixtures/configs/broken/several-problems.yaml'], { cwd: ROOT, env: childEnv() });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += String(c)));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(1);
    expect(err).toMatch(/problems:/);
    expect((err.match(/^\s+- /gm) ?? []).length).toBeGreaterThan(3);
  });
});
