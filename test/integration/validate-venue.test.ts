// `sluice validate` asks the venue what `sluice run` will at its start, by the code the start
// runs: the symbols it lists (the instrument catalog) and whether it takes the key (the signed
// account read), in the list the config's own problems use. Against the simulator over HTTP.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateCommand } from '../../src/commands/validate.js';
import { startSimServer } from '../../src/sim/index.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { childEnv, DaemonProcess } from '../fixtures/daemon-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const LOCAL = 'checked: the config, the credentials (present and readable), the enabled plugins and their params, the feeds they ask for';

let sim: Awaited<ReturnType<typeof startSimServer>> | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  sim = undefined;
  dir = undefined;
});

/** A live config of one grid strategy on `symbols`, against `url`; its path. */
async function liveConfig(symbols: string, url?: string): Promise<{ path: string; url: string; env: NodeJS.ProcessEnv }> {
  sim = await startSimServer({ port: 0, seed: 3 });
  dir = mkdtempSync(join(tmpdir(), 'sluice-validate-venue-'));
  const path = join(dir, 'sluice.yaml');
  const at = url ?? sim.url;
  writeFileSync(path, ['mode: live', `venue: { spotUrl: "${at}" }`, `journal: { path: ${join(dir, 'journal.db')} }`, 'strategies:', `  - { id: g1, use: strategies/grid/index.ts, symbols: [${symbols}] }`, ''].join('\n'));
  return { path, url: at, env: { SLUICE_API_KEY: sim.apiKey, SLUICE_API_SECRET: sim.apiSecret } };
}

describe('sluice validate against the venue', () => {
  it('passes a config the venue can run, saying what it asked', async () => {
    const { path, url, env } = await liveConfig('BTCUSDT, ETHUSDT');
    const { ok, output } = await validateCommand(path, env, ROOT);
    expect(ok, output).toBe(true);
    expect(output.split('\n')).toEqual([
      'config OK: 1 strategy, mode live',
      'credentials: found in the environment',
      'plugins OK: g1 (grid): loaded, params checked',
      'venue OK: it lists every symbol the strategies trade and serves their feeds, and takes the key',
      `${LOCAL}; asked the venue at ${url}: the symbols and feeds the strategies need; the key, by the signed account read the start makes first`,
    ]);
  });

  it('lists a symbol the venue does not list and a key it refuses in one list, worded as the start words them; never the key', async () => {
    const { path, url, env } = await liveConfig('BTCUSDT, DOGEUSDT');
    const wrong = { SLUICE_API_KEY: 'not-the-venues-key-4d1f', SLUICE_API_SECRET: env.SLUICE_API_SECRET };
    const { ok, output } = await validateCommand(path, wrong, ROOT);
    expect(ok).toBe(false);
    expect(output.split('\n')).toEqual([
      `${path} has 2 problems:`,
      "  - strategies[0].symbols[1] (line 5): DOGEUSDT is not listed by the venue's spot market: fix or remove it (the venue's spot market lists BTCUSDT, ETHUSDT)",
      "  - credentials: spot.account: the venue refused the credentials (venue code -2015: Invalid API key, IP, or permissions for action.): check SLUICE_API_KEY and SLUICE_API_SECRET, and the key's IP whitelist and trading permissions on the venue",
      `${LOCAL}; asked the venue at ${url}: the symbols and feeds the strategies need; the key, by the signed account read the start makes first`,
    ]);
    expect(output).not.toContain(wrong.SLUICE_API_KEY);
    expect(output).not.toContain(wrong.SLUICE_API_SECRET);
  });

  it('--offline asks the venue nothing and says so', async () => {
    // Nothing listens there: a request would be a problem.
    const { path, env } = await liveConfig('BTCUSDT, DOGEUSDT', 'http://127.0.0.1:1');
    const { ok, output } = await validateCommand(path, env, ROOT, { offline: true });
    expect(ok, output).toBe(true);
    expect(output.split('\n').at(-1)).toBe(`${LOCAL}; not the venue (--offline): the symbols it lists and whether it takes the key are checked when sluice run starts`);
  });

  it('a venue that does not answer is a problem naming venue.spotUrl', async () => {
    const { path, env } = await liveConfig('BTCUSDT', 'http://127.0.0.1:1');
    const { ok, output } = await validateCommand(path, env, ROOT);
    expect(ok).toBe(false);
    expect(output.split('\n')).toEqual([
      `${path} has 1 problem:`,
      expect.stringMatching(/^ {2}- venue\.spotUrl \(line 2\): asking the venue's time failed \(.+\): check venue\.spotUrl and that this machine reaches it$/),
      `${LOCAL}; the venue at http://127.0.0.1:1 was not asked: its time endpoint did not answer`,
    ]);
  });

  it('asks nothing of a venue whose ban the journal records', async () => {
    const { path, env } = await liveConfig('BTCUSDT', 'http://127.0.0.1:1');
    const journal = SqliteJournal.open(join(dir!, 'journal.db'));
    const until = Date.now() + 3_600_000;
    journal.setBanUntil(until);
    journal.close();
    const { ok, output } = await validateCommand(path, env, ROOT);
    expect(ok, output).toBe(true);
    expect(output.split('\n').at(-1)).toBe(`${LOCAL}; the venue at http://127.0.0.1:1 was not asked: the journal records a venue ban until ${new Date(until).toISOString()}, and nothing is sent before it ends`);
  });
});

describe('sluice run at its start', () => {
  it('lists a symbol the venue does not list and a key it refuses in one round, as validate does, and exits 1; never the key', async () => {
    const { path, env } = await liveConfig('BTCUSDT, DOGEUSDT');
    const wrong = { apiKey: 'not-the-venues-key-4d1f', apiSecret: env.SLUICE_API_SECRET! };
    const child = spawn(process.execPath, [resolve(ROOT, 'bin/sluice.js'), 'run', '--config', path], { cwd: ROOT, env: childEnv(wrong), stdio: ['ignore', 'pipe', 'pipe'] });
    const daemon = new DaemonProcess(child);
    expect(await daemon.exited).toBe(1);
    const fatal = daemon.lines.find((l) => l.msg === 'could not start');
    expect(fatal, daemon.stdout + daemon.stderr).toBeDefined();
    expect(String(fatal!.err).split('\n')).toEqual([
      `${path} has 2 problems:`,
      "  - strategies[0].symbols[1] (line 5): DOGEUSDT is not listed by the venue's spot market: fix or remove it (the venue's spot market lists BTCUSDT, ETHUSDT)",
      "  - credentials: spot.account: the venue refused the credentials (venue code -2015: Invalid API key, IP, or permissions for action.): check SLUICE_API_KEY and SLUICE_API_SECRET, and the key's IP whitelist and trading permissions on the venue",
    ]);
    expect(daemon.stdout + daemon.stderr).not.toContain(wrong.apiKey);
    expect(daemon.stdout + daemon.stderr).not.toContain(wrong.apiSecret);
  }, 60_000);
});
