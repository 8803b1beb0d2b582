// Strategies in a project of your own (issue 17): `sluice init` makes one that validates, plans
// and passes its own tests against this sluice; `sluice new-strategy` adds to it; plugins load
// from a CommonJS project too; a plugin's missing import is named as such. The project gets
// this checkout as node_modules/sluice (a link, as `npm install file:...` makes), so nothing is
// downloaded.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { childEnv } from '../fixtures/daemon-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SLUICE = join(ROOT, 'bin/sluice.js');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: readonly string[], cwd: string, bin = SLUICE): Promise<Ran> {
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { cwd, env: childEnv(), timeout: 120_000 }, (err, stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** node_modules as `npm install` would leave it for what the test runs. */
function link(project: string): void {
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  symlinkSync(ROOT, join(project, 'node_modules', 'sluice'), 'dir');
  for (const dep of ['vitest', 'typescript']) symlinkSync(join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep), 'dir');
  mkdirSync(join(project, 'node_modules', '@types'));
  symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(project, 'node_modules', '@types', 'node'), 'dir');
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-user-project-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sluice init and new-strategy', () => {
  it('makes a project that validates, plans and passes its own tests; new-strategy adds a strategy and its config entry', async () => {
    const project = join(dir, 'my-bot');
    const init = await run(['init', project], dir);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('next: cd');
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { type: string; dependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.type).toBe('module');
    expect(pkg.dependencies.sluice).toBe(`file:${ROOT}`);
    expect(Object.keys(pkg.scripts).sort()).toEqual(['backtest', 'plan', 'start', 'test', 'typecheck', 'validate']);
    const ignored = readFileSync(join(project, '.gitignore'), 'utf8').split('\n');
    for (const kept of ['.sluice/', '*.db', 'tapes/', '.env', 'node_modules/']) expect(ignored).toContain(kept);
    link(project);

    const validate = await run(['validate', '--config', 'sluice.yaml'], project);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain('config OK: 1 strategy');
    const plan = await run(['plan', '--config', 'sluice.yaml'], project);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/plan: \d+ intents? accepted by risk, 0 rejected/);

    const tests = await run(['run'], project, join(project, 'node_modules', 'vitest', 'vitest.mjs'));
    expect(tests.code, tests.stdout + tests.stderr).toBe(0);
    expect(tests.stdout).toMatch(/Tests\s+.*3 passed/);

    const typecheck = await run([], project, join(project, 'node_modules', 'typescript', 'bin', 'tsc'));
    expect(typecheck.code, typecheck.stdout + typecheck.stderr).toBe(0);

    const added = await run(['new-strategy', 'dip-buyer'], project);
    expect(added.code, added.stderr).toBe(0);
    expect(existsSync(join(project, 'strategies/dip-buyer/index.ts'))).toBe(true);
    const config = parse(readFileSync(join(project, 'sluice.yaml'), 'utf8')) as { strategies: { id: string; enabled?: boolean; use: string }[] };
    expect(config.strategies.map((s) => [s.id, s.enabled ?? true, s.use])).toEqual([
      ['example', true, './strategies/example/index.ts'],
      ['dipbuyer', false, './strategies/dip-buyer/index.ts'],
    ]);
    expect(added.stdout).toContain('strategy "dip-buyer" added as id dipbuyer');
    expect(readFileSync(join(project, 'sluice.yaml'), 'utf8')).toContain('# Your strategies, in paper mode'); // comments kept
    const revalidate = await run(['validate', '--config', 'sluice.yaml'], project);
    expect(revalidate.code, revalidate.stdout + revalidate.stderr).toBe(0);
    const again = await run(['new-strategy', 'dip-buyer'], project);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('strategies/dip-buyer already exists');
    const badName = await run(['new-strategy', 'Dip Buyer'], project);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain('use lower-case letters, digits and dashes');
  }, 180_000);

  it('refuses a directory that is not empty, and writes nothing there', async () => {
    const busy = join(dir, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'notes.txt'), 'mine');
    const r = await run(['init', busy], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not empty');
    expect(existsSync(join(busy, 'package.json'))).toBe(false);
  });
});

describe('plugins in projects of their own', () => {
  const plugin = (body: string) => `import { defineStrategy, z } from 'sluice/strategy';\n${body}\nexport default defineStrategy({ apiVersion: 1, name: 'p', params: z.object({ n: z.number() }), create: () => ({ onTick() {} }) });\n`;
  const config = 'strategies:\n  - id: p\n    use: ./strategies/p/index.ts\n    symbols: [BTCUSDT]\n    params: { n: 1 }\n';

  /** `sluice plan` in a project of its own whose one plugin is strategies/p/<file>: it must load and plan. */
  async function plansWith(name: string, packageJson: string, file: string) {
    const project = join(dir, name);
    mkdirSync(join(project, 'strategies', 'p'), { recursive: true });
    writeFileSync(join(project, 'package.json'), packageJson);
    writeFileSync(join(project, 'strategies', 'p', file), plugin(''));
    writeFileSync(join(project, 'sluice.yaml'), config.replace('index.ts', file));
    link(project);
    const plan = await run(['plan', '--config', 'sluice.yaml'], project);
    expect(plan.stderr).not.toContain('failed to load');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('plan: 0 intents accepted by risk');
  }

  it('loads from a CommonJS project (a package.json without "type": "module")', () => plansWith('cjs', '{"name":"cjs","version":"1.0.0"}\n', 'index.ts'), 60_000);

  it('loads a plugin written in JavaScript, whose sluice/strategy is TypeScript', () => plansWith('js', '{"name":"js","type":"module"}\n', 'index.js'), 60_000);

  it('names a missing import as such, not as a missing plugin', async () => {
    const project = join(dir, 'missing-dep');
    mkdirSync(join(project, 'strategies', 'p'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{"name":"missing-dep","type":"module"}\n');
    writeFileSync(join(project, 'strategies', 'p', 'index.ts'), plugin("import 'not-installed-anywhere';"));
    writeFileSync(join(project, 'sluice.yaml'), config);
    link(project);
    const plan = await run(['plan', '--config', 'sluice.yaml'], project);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('imports something that is not installed');
    expect(plan.stderr).toContain('not-installed-anywhere');
    expect(plan.stderr).not.toContain('no plugin at');
  }, 60_000);
});
