// The ops endpoint's token: where it comes from (SLUICE_HTTP_TOKEN, or http.tokenFile), that it
// is required off loopback (the error names the field and the fix), and that it is never shown.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.js';
import { opsEnabled, parseConfig } from '../../../src/config/index.js';

const TOKEN = 'Tk-4f9a1c7e2b8d0356aa';
let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'sluice-token-'))));
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function problems(text: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const err = await parseConfig(text, { env, baseDir: dir }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).problems.map((p) => `${p.path}${p.line ? ` (line ${p.line})` : ''}: ${p.message}`);
}

describe('http.enabled', () => {
  it('auto (the default) serves the dashboard in paper mode and not live; true and false say so', async () => {
    expect(opsEnabled((await parseConfig('', { env: {} })).config)).toBe(true);
    const live = await parseConfig('mode: live\nvenue: { spotUrl: "https://openapi.example.com" }', { env: { SLUICE_API_KEY: 'k-0123456789', SLUICE_API_SECRET: 's-0123456789' } });
    expect(live.config.http.enabled).toBe('auto');
    expect(opsEnabled(live.config)).toBe(false);
    expect(opsEnabled((await parseConfig('http: { enabled: false }', { env: {} })).config)).toBe(false);
    expect(await problems('http: { enabled: sometimes }')).toEqual(['http.enabled (line 1): must be auto, true or false (got "sometimes")']);
  });
});

describe('the ops token', () => {
  it('is required off loopback: the error names http.host and the fix', async () => {
    expect(await problems('http:\n  host: 0.0.0.0\n')).toEqual([
      'http.host (line 2): 0.0.0.0 is not a loopback address, so the ops endpoint needs a token: set SLUICE_HTTP_TOKEN in the environment, or http.tokenFile to a file only you can read (chmod 600) holding one (e.g. openssl rand -hex 32), or set http.host: 127.0.0.1',
    ]);
    // Loopback in any spelling needs none; an endpoint that is off needs none either.
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '"::1"', '"[::1]"']) await parseConfig(`http: { host: ${host} }`, { env: {} });
    await parseConfig('http: { host: 0.0.0.0, enabled: false }', { env: {} });
  });

  it('comes from SLUICE_HTTP_TOKEN, and never shows in the config or its printout', async () => {
    const loaded = await parseConfig('http: { host: 0.0.0.0 }', { env: { SLUICE_HTTP_TOKEN: TOKEN } });
    expect(loaded.httpToken).toBe(TOKEN);
    expect(JSON.stringify(loaded.config)).not.toContain(TOKEN);
    expect(inspect(loaded.config, { depth: null })).not.toContain(TOKEN);
    expect(await problems('', { SLUICE_HTTP_TOKEN: 'short' })).toEqual(['http.tokenFile: SLUICE_HTTP_TOKEN is shorter than 16 characters: use a random one, e.g. openssl rand -hex 32']);
  });

  it('or from http.tokenFile, which only its owner may read', async () => {
    const file = join(dir, 'ops.token');
    await writeFile(file, `${TOKEN}\n`);
    await chmod(file, 0o644);
    const open = await problems(`http: { host: 0.0.0.0, tokenFile: ops.token }`);
    expect(open).toEqual([`http.tokenFile (line 1): ${file} is accessible to group or others (mode 644); it holds secrets: run chmod 600 ${file}`]);
    await chmod(file, 0o600);
    const loaded = await parseConfig('http: { host: 0.0.0.0, tokenFile: ops.token }', { env: {}, baseDir: dir });
    expect(loaded.httpToken).toBe(TOKEN);
    // The variable wins over the file.
    expect((await parseConfig('http: { tokenFile: ops.token }', { env: { SLUICE_HTTP_TOKEN: `${TOKEN}-env` }, baseDir: dir })).httpToken).toBe(`${TOKEN}-env`);
    expect(await problems('http: { tokenFile: missing.token }')).toEqual([expect.stringMatching(/^http\.tokenFile \(line 1\): cannot open .*missing\.token \(ENOENT\)/)]);
  });

  it('is never written in YAML, however the key is spelt', async () => {
    const found = await problems(`http: { token: ${TOKEN} }`);
    expect(found).toEqual([expect.stringMatching(/^http\.token \(line 1\): credentials never go in YAML/)]);
    expect(found.join('\n')).not.toContain(TOKEN);
  });
});
