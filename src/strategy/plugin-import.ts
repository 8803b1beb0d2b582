// Imports a strategy plugin file. esbuild compiles it first (TypeScript or JavaScript: either
// may import `sluice/strategy`, whose sources are TypeScript), the plugin's own files into one
// module, written to a temporary file, imported, and removed; no loader thread stays in the
// process, as tsx's did.
//   - Packages stay outside the module: each is resolved from the plugin's directory as Node
//     would (the "import" and "node" conditions, then "main") and imported from its absolute
//     URL, so one copy of each package serves sluice and every plugin.
//   - `sluice/...` is the running sluice's own module, so plugins share the engine's classes
//     whatever copy of sluice their project installed.
//   - import.meta.url, .dirname and .filename keep naming each plugin file, not the temporary
//     one; an inline source map keeps stack traces pointing into the plugin's files.
// A file is compiled once per process, as Node imports a module once.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Loader, Message, Plugin } from 'esbuild';
import { PACKAGE_ROOT } from '../core/package-root.js';

const TYPESCRIPT = /\.[cm]?tsx?$/;
const imported = new Map<string, Promise<{ default?: unknown }>>();
/** Compiles one at a time: each stops esbuild's service when done, which would end another's. */
let compiling: Promise<unknown> = Promise.resolve();

export function importPlugin(file: string): Promise<{ default?: unknown }> {
  let mod = imported.get(file);
  if (!mod) {
    mod = compiling.then(() => compileAndImport(file));
    compiling = mod.catch(() => undefined);
    imported.set(file, mod);
    mod.catch(() => imported.delete(file)); // a fixed file loads on the next try
  }
  return mod;
}

/** Thrown when a plugin imports a package its project does not have. */
export class MissingImportError extends Error {
  readonly code = 'ERR_MODULE_NOT_FOUND';
}

async function compileAndImport(file: string): Promise<{ default?: unknown }> {
  const esbuild = await import('esbuild');
  const dir = mkdtempSync(join(tmpdir(), 'sluice-plugin-'));
  const out = join(dir, `${basename(file, extname(file))}.mjs`);
  try {
    const result = await esbuild
      .build({
        entryPoints: [file],
        outfile: out,
        write: false,
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        mainFields: ['main'], // Node reads no "module" field, and no "module" condition:
        conditions: [], //      resolve packages to the files Node itself would load
        sourcemap: 'inline',
        logLevel: 'silent',
        plugins: [externals, ownMeta],
      })
      .catch((err: { errors?: Message[] }) => {
        if (!err.errors) throw err;
        const missing = err.errors.find((e) => e.detail === MISSING);
        throw missing ? new MissingImportError(missing.text) : new Error(err.errors.map(where).join('; '));
      })
      .finally(() => esbuild.stop()); // its service is a child process of its own
    writeFileSync(out, result.outputFiles[0]!.contents);
    return (await import(pathToFileURL(out).href)) as { default?: unknown };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const MISSING = Symbol('missing package');

function where(m: Message): string {
  return m.location ? `${m.location.file}:${m.location.line}:${m.location.column}: ${m.text}` : m.text;
}

const externals: Plugin = {
  name: 'sluice-plugin-externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === externals || args.kind === 'entry-point') return undefined;
      if (isBuiltin(args.path)) return { path: args.path, external: true };
      if (args.path === 'sluice' || args.path.startsWith('sluice/')) return { path: ownModule(args.path), external: true };
      const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: externals });
      if (found.errors.length > 0) return { errors: [{ text: `Cannot find package '${args.path}' imported from ${args.importer}`, detail: MISSING }] };
      // A package written in TypeScript (a workspace link) is compiled in; Node cannot import it.
      return TYPESCRIPT.test(found.path) ? { path: found.path } : { path: pathToFileURL(found.path).href, external: true };
    });
  },
};

let ownExports: Record<string, string> | undefined;

/** `sluice/strategy` and the rest of package.json's exports, as modules of this sluice. */
function ownModule(specifier: string): string {
  ownExports ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string> }).exports;
  const target = ownExports[`.${specifier.slice('sluice'.length)}`];
  if (!target?.startsWith('./src/')) throw new Error(`sluice exports no "${specifier}"; plugins import "sluice/strategy", "sluice/indicators" or "sluice/testing"`);
  // This module runs from the sources or from a build of them; so does the one named.
  return new URL(`../${target.slice('./src/'.length).replace(TYPESCRIPT, extname(import.meta.url))}`, import.meta.url).href;
}

const ownMeta: Plugin = {
  name: 'sluice-plugin-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
      const url = pathToFileURL(args.path).href;
      const names: Record<string, string> = { url, filename: args.path, dirname: dirname(args.path) };
      const contents = readFileSync(args.path, 'utf8').replace(/\bimport\.meta\.(url|filename|dirname)\b/g, (_, k: string) => JSON.stringify(names[k]));
      // .mts and .cts are ts, .mjs and .cjs js: the loader is the extension without its m or c.
      return { contents, loader: extname(args.path).replace(/^\.[cm]?/, '') as Loader };
    });
  },
};
