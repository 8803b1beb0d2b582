// The deployment files (deploy/sluice.service, Dockerfile, .dockerignore, deploy/sluice.yaml)
// name commands, paths, config keys and routes that live elsewhere in the repo. These checks
// tie each one to the thing it names, so a rename there breaks a test here instead of a
// deployment. Docker is not needed; systemd-analyze verifies the unit where it is installed.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY_VAR, parseConfig, SECRET_VAR } from '../../src/config/index.js';
import { CLOSE_BOUND_MS } from '../../src/ops/index.js';
import { loadStrategies } from '../../src/strategy/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

const UNIT_ROOT = '/opt/sluice'; // where the unit expects the checkout
const IMAGE_ROOT = '/app'; // the image's WORKDIR

/** systemd unit: key -> every value it is given, per section. */
function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const s = /^\[(.+)\]$/.exec(line);
    if (s) out[(section = s[1]!)] ??= {};
    else {
      const [key, ...rest] = line.split('=');
      ((out[section] ??= {})[key!] ??= []).push(rest.join('='));
    }
  }
  return out;
}

/** Dockerfile instructions in order (continuation lines joined). */
function parseDockerfile(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

/** The subcommands src/cli.ts defines. */
const CLI_COMMANDS = [...read('src/cli.ts').matchAll(/\.command\('([a-z]+)'\)/g)].map((m) => m[1]!);

/** A command line `node <root>/bin/sluice.js <cmd> --config <file>`: the script and the command must exist. */
function checkSluiceCommand(argv: string[], root: string): { command: string; config: string } {
  const script = argv.find((a) => a.endsWith('bin/sluice.js'));
  expect(script, argv.join(' ')).toBeDefined();
  expect(script!.startsWith(`${root}/`), `${script} under ${root}`).toBe(true);
  expect(existsSync(join(ROOT, script!.slice(root.length + 1)))).toBe(true);
  const command = argv[argv.indexOf(script!) + 1]!;
  expect(CLI_COMMANDS).toContain(command);
  const config = argv[argv.indexOf('--config') + 1]!;
  expect(argv).toContain('--config');
  return { command, config };
}

/** The deploy config, validated as the daemon would with its required variables set. */
async function deployConfig(env: Record<string, string> = {}) {
  const { config } = await parseConfig(read('deploy/sluice.yaml'), {
    source: 'deploy/sluice.yaml',
    env: { SLUICE_SPOT_URL: 'https://openapi.example.com', [KEY_VAR]: 'key-for-test', [SECRET_VAR]: 'secret-for-test', ...env },
  });
  return config;
}

const unit = parseUnit(read('deploy/sluice.service'));
const service = unit.Service!;
const one = (key: string) => {
  expect(service[key], key).toHaveLength(1);
  return service[key]![0]!;
};
const docker = parseDockerfile(read('Dockerfile'));
const instr = (op: string) => docker.filter((i) => i.op === op);

describe('deploy/sluice.yaml', () => {
  it('is a valid live config whose strategies load from the checkout, with the ops endpoint on loopback by default', async () => {
    const config = await deployConfig();
    expect(config.mode).toBe('live');
    expect(config.http).toEqual({ enabled: true, host: '127.0.0.1', port: 9464, tokenFile: null });
    expect(config.log.pretty).toBe(false);
    const strategies = await loadStrategies(config.strategies, ROOT);
    expect(strategies.map((s) => s.entry.id)).toEqual(config.strategies.map((s) => s.id));
    // Every variable it needs without a default is in the environment template.
    const required = [...read('deploy/sluice.yaml').matchAll(/\$\{([A-Z_]+)\}/g)].map((m) => m[1]!);
    const template = read('deploy/sluice.env.example');
    for (const name of [...required, KEY_VAR, SECRET_VAR]) expect(template).toMatch(new RegExp(`^${name}=`, 'm'));
  });

  it('takes the ops endpoint host and port from the environment; off loopback only with a token', async () => {
    const config = await deployConfig({ SLUICE_HTTP_HOST: '0.0.0.0', SLUICE_HTTP_PORT: '9500', SLUICE_HTTP_TOKEN: 'a-token-for-the-test-0123' });
    expect(config.http).toEqual({ enabled: true, host: '0.0.0.0', port: 9500, tokenFile: null });
    await expect(deployConfig({ SLUICE_HTTP_HOST: '0.0.0.0' })).rejects.toThrow(/http\.host \(line \d+\): 0\.0\.0\.0 is not a loopback address, so the ops endpoint needs a token: set SLUICE_HTTP_TOKEN/);
  });
});

describe('deploy/sluice.service', () => {
  it('runs and validates the config with commands and paths that exist', () => {
    expect(one('WorkingDirectory')).toBe(UNIT_ROOT);
    const run = checkSluiceCommand(one('ExecStart').split(' '), UNIT_ROOT);
    expect(run.command).toBe('run');
    const validate = checkSluiceCommand(one('ExecStartPre').split(' '), UNIT_ROOT);
    expect(validate).toEqual({ command: 'validate', config: run.config });
    // The image installs deploy/sluice.yaml at the same path.
    expect(instr('COPY').map((c) => c.args)).toContain(`deploy/sluice.yaml ${run.config}`);
  });

  it('restarts on failure, stops with SIGTERM (which the daemon handles) and gives the shutdown time to finish', async () => {
    expect(one('Restart')).toBe('on-failure');
    expect(one('KillSignal')).toBe('SIGTERM');
    expect(read('src/commands/run.ts')).toContain(`process.on('SIGTERM'`);
    // The shutdown's own bounds: a hanging onStop is abandoned after handlerTimeoutMs, queued
    // intents wait at most maxQueueMs, the last reconcile's reads back off per venue.retry, and
    // the webhook's delivery is waited for at most CLOSE_BOUND_MS (each POST times out after 5 s).
    const config = await deployConfig();
    const { retries, baseDelayMs, maxDelayMs } = config.venue.retry;
    const backoff = Array.from({ length: retries }, (_, i) => Math.min(maxDelayMs, baseDelayMs * 2 ** i)).reduce((a, b) => a + b, 0);
    expect(read('src/ops/alerts.ts')).toContain('const POST_TIMEOUT_MS = 5_000;');
    expect(Number(one('TimeoutStopSec')) * 1000).toBeGreaterThan(config.engine.handlerTimeoutMs + config.engine.maxQueueMs + backoff + CLOSE_BOUND_MS);
  });

  it('runs as a dedicated user with secrets from a root-only EnvironmentFile and only the state directory writable', async () => {
    expect(one('User')).toBe('sluice');
    expect(one('EnvironmentFile')).toBe('/etc/sluice/sluice.env');
    expect(read('deploy/sluice.env.example')).toContain('install -o root -g root -m 0600 deploy/sluice.env.example /etc/sluice/sluice.env');
    for (const [k, v] of [['NoNewPrivileges', 'yes'], ['ProtectSystem', 'strict'], ['PrivateTmp', 'yes'], ['ProtectHome', 'yes']]) expect(one(k!)).toBe(v);
    const config = await deployConfig();
    const writable = one('ReadWritePaths').split(' ');
    expect(writable).toEqual([`/var/lib/${one('StateDirectory')}`]);
    // The journal (and its lock) and the kill-switch file are where the service may write.
    expect(writable).toContain(dirname(config.journal.path));
    expect(writable).toContain(dirname(config.risk.killSwitch.file!));
  });

  it.skipIf(!['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].some(existsSync))('passes systemd-analyze verify without a warning', async () => {
    // The unit names /usr/bin/node and /opt/sluice; verify checks that executables exist, so
    // the copy points at this Node and this checkout.
    const dir = mkdtempSync(join(tmpdir(), 'sluice-unit-'));
    try {
      const copy = join(dir, 'sluice.service');
      writeFileSync(copy, read('deploy/sluice.service').replaceAll('/usr/bin/node', process.execPath).replaceAll(UNIT_ROOT, ROOT));
      const result = await new Promise<{ code: number; output: string }>((done) =>
        execFile('systemd-analyze', ['verify', copy], (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, output: stdout + stderr })),
      );
      expect(result).toEqual({ code: 0, output: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Dockerfile and .dockerignore', () => {
  const ignore = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  // .dockerignore patterns are relative to the context root; `**/` matches any depth.
  const ignored = (path: string) =>
    ignore.some((p) => {
      const body = p
        .split('**/')
        .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
        .join('(?:.*/)?');
      const re = new RegExp(`^${body}(?:/.*)?$`);
      return re.test(path);
    });

  it('builds on node:20-slim, keeps esbuild with npm ci --omit=dev, and compiles the sources while still root', () => {
    const froms = instr('FROM').map((f) => f.args.split(' ')[0]);
    expect(froms.length).toBeGreaterThan(0);
    for (const f of froms) expect(f).toBe('node:20-slim');
    expect(instr('RUN').some((r) => r.args.includes('npm ci --omit=dev'))).toBe(true);
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.dependencies.esbuild).toBeDefined();
    expect(pkg.dependencies.tsx).toBeUndefined();
    expect(pkg.scripts.build).toBe('node bin/build.js');
    // The image's /app is root's: the build (dist/) must exist before USER, after src is copied.
    const final = docker.slice(docker.findLastIndex((i) => i.op === 'FROM'));
    const at = (pred: (i: { op: string; args: string }) => boolean) => final.findIndex(pred);
    const build = at((i) => i.op === 'RUN' && i.args === 'node bin/build.js');
    expect(build).toBeGreaterThan(at((i) => i.op === 'COPY' && i.args.startsWith('src ')));
    expect(build).toBeLessThan(at((i) => i.op === 'USER'));
    expect(ignored('dist')).toBe(true); // a local build never reaches the image; its own is made there
  });

  it('copies paths that exist and that .dockerignore does not drop; entrypoint and command exist', () => {
    const sources = instr('COPY')
      .filter((c) => !c.args.startsWith('--from'))
      .flatMap((c) => c.args.split(' ').slice(0, -1));
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'bin', 'src', 'strategies', 'deploy/sluice.yaml']));
    for (const s of sources) {
      expect(existsSync(join(ROOT, s)), s).toBe(true);
      expect(ignored(s), `.dockerignore drops ${s}`).toBe(false);
    }
    expect(instr('WORKDIR').at(-1)!.args).toBe(IMAGE_ROOT);
    const entry = JSON.parse(instr('ENTRYPOINT')[0]!.args) as string[];
    const cmd = JSON.parse(instr('CMD').at(-1)!.args) as string[];
    const { command, config } = checkSluiceCommand([...entry, ...cmd], IMAGE_ROOT);
    expect(command).toBe('run');
    expect(instr('COPY').map((c) => c.args)).toContain(`deploy/sluice.yaml ${config}`);
  });

  it('keeps secrets, state and local installs out of the build context', () => {
    for (const p of ['node_modules', 'strategies/grid/node_modules/x', 'deploy/sluice.env.example', 'prod.env', 'a/b/c/prod.env', 'deploy/credentials', '.sluice/journal.db', '.git/config']) expect(ignored(p), p).toBe(true);
  });

  it('runs as a non-root user with the journal directory as a volume', async () => {
    const user = instr('USER').at(-1)!.args;
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    const config = await deployConfig();
    expect(instr('VOLUME').map((v) => v.args)).toEqual([dirname(config.journal.path)]);
  });

  it('health-checks /healthz, a route the ops server serves, on the port the config listens on and the image exposes', async () => {
    const check = instr('HEALTHCHECK')[0]!.args;
    expect(check).toContain("'/healthz'");
    expect(read('src/ops/server.ts')).toContain("case '/healthz':");
    const port = /SLUICE_HTTP_PORT \|\| (\d+)/.exec(check)?.[1];
    const config = await deployConfig();
    expect(Number(port)).toBe(config.http.port);
    expect(instr('ENV').map((e) => e.args)).toContain(`SLUICE_HTTP_PORT=${config.http.port}`);
    expect(instr('EXPOSE').map((e) => e.args)).toEqual([String(config.http.port)]);
    // The check talks to loopback, where the default config listens.
    expect(check).toContain('http://127.0.0.1:');
    expect(config.http.host).toBe('127.0.0.1');
    expect(instr('STOPSIGNAL').map((s) => s.args)).toEqual(['SIGTERM']);
  });
});
