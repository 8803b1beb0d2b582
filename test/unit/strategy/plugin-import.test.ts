// Plugins written in TypeScript are compiled as they load (src/strategy/plugin-import.ts): these
// build a plugin project in a temporary directory, with its own package, and import from it.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as api from '../../../src/strategy/api.js';
import { importPlugin } from '../../../src/strategy/plugin-import.js';

let project: string;
let temp: string;
const before = process.env.TMPDIR;

function write(path: string, text: string): string {
  const file = join(project, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'sluice-plugin-project-'));
  temp = mkdtempSync(join(tmpdir(), 'sluice-plugin-tmp-'));
  process.env.TMPDIR = temp; // where the compiled modules are written, and must be gone from
  write('package.json', '{"name":"mine","type":"module"}\n');
  // Bundlers read a "module" condition and a "module" field; Node reads neither, and a plugin's
  // packages must be the files Node would import: the "import" condition's, or "main".
  write(
    'node_modules/dual/package.json',
    JSON.stringify({ name: 'dual', exports: { '.': { module: './bundler.js', import: './esm.js', require: './main.cjs' } } }),
  );
  write('node_modules/dual/esm.js', "export const flavour = 'esm';\nexport const instance = {};\n");
  write('node_modules/dual/main.cjs', "exports.flavour = 'cjs';\n");
  write('node_modules/dual/bundler.js', "export const flavour = 'bundler';\n");
  write('node_modules/legacy/package.json', JSON.stringify({ name: 'legacy', module: './bundler.js' })); // no "main": index.js
  write('node_modules/legacy/index.js', "exports.flavour = 'index';\n");
  write('node_modules/legacy/bundler.js', "export const flavour = 'bundler';\n");
});

afterAll(() => {
  process.env.TMPDIR = before;
  rmSync(project, { recursive: true, force: true });
  rmSync(temp, { recursive: true, force: true });
});

describe('importPlugin', () => {
  it('compiles a TypeScript plugin with its own files; packages and sluice are the modules Node and the engine use', async () => {
    write('strategies/p/helpers/where.ts', 'export const here: string = import.meta.url;\nexport const folder: string = import.meta.dirname;\n');
    const file = write(
      'strategies/p/index.ts',
      [
        "import { defineStrategy, z } from 'sluice/strategy';",
        "import { flavour, instance } from 'dual';",
        "import legacy from 'legacy';",
        "import { here, folder } from './helpers/where.js';",
        'type Params = { n: number };',
        'export const seen = { flavour, legacy: legacy.flavour, instance, here, folder, self: import.meta.url };',
        "export default defineStrategy({ apiVersion: 2, name: 'p', params: z.object({ n: z.number().default(1) }), create: (_ctx) => ({}) } as never) as unknown as Params;",
      ].join('\n'),
    );
    const mod = (await importPlugin(file)) as { default: unknown; seen: { flavour: string; legacy: string; instance: object; here: string; folder: string; self: string } };
    expect(mod.seen.flavour).toBe('esm');
    expect(mod.seen.legacy).toBe('index');
    // The same module instance as importing the package from the project itself.
    const direct = (await import(pathToFileURL(join(project, 'node_modules/dual/esm.js')).href)) as { instance: object };
    expect(mod.seen.instance).toBe(direct.instance);
    expect(mod.seen.here).toBe(pathToFileURL(join(project, 'strategies/p/helpers/where.ts')).href);
    expect(mod.seen.folder).toBe(join(project, 'strategies/p/helpers'));
    expect(mod.seen.self).toBe(pathToFileURL(file).href);
    // sluice/strategy is this sluice's own module: the schema the plugin built is of its zod.
    expect((mod.default as { params: unknown }).params).toBeInstanceOf(api.z.ZodObject);
    expect(readdirSync(temp)).toEqual([]);
    // Once per process, as Node imports a module once.
    expect(await importPlugin(file)).toBe(mod);
  });

  it('compiles a JavaScript plugin too: its import of sluice/strategy names TypeScript sources', async () => {
    const file = write('strategies/js/index.js', "import { z } from 'sluice/strategy';\nexport const schema = z.object({});\n");
    const mod = (await importPlugin(file)) as { schema: unknown };
    expect(mod.schema).toBeInstanceOf(api.z.ZodObject);
  });

  it('names a package the project lacks, with the code Node gives a missing module', async () => {
    const file = write('strategies/missing/index.ts', "import 'not-installed-anywhere';\nexport default 1;\n");
    const err = (await importPlugin(file).catch((e: unknown) => e)) as Error & { code?: string };
    expect(err.code).toBe('ERR_MODULE_NOT_FOUND');
    expect(err.message).toContain("Cannot find package 'not-installed-anywhere'");
    expect(readdirSync(temp)).toEqual([]);
  });

  it('reports a syntax error with the file and line, and loads the file once it is fixed', async () => {
    const file = write('strategies/broken/index.ts', 'export const a = 1;\nexport const b = ;\n');
    const err = (await importPlugin(file).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/Unexpected ";"/);
    expect(err.message).toContain('index.ts:2');
    write('strategies/broken/index.ts', 'export const a = 1;\nexport const b = 2;\n');
    expect(((await importPlugin(file)) as { b: number }).b).toBe(2);
  });

  it('refuses a sluice subpath the package does not export, naming the ones it does', async () => {
    const file = write('strategies/deep/index.ts', "import { x } from 'sluice/engine';\nexport default x;\n");
    await expect(importPlugin(file)).rejects.toThrow(/sluice exports no "sluice\/engine"; plugins import "sluice\/strategy"/);
  });
});
