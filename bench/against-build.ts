// Compiles a benchmark's script to run as `sluice` runs, from its JavaScript build (bin/build.js):
// its imports of src/ become the build's modules, so the process carries no TypeScript loader
// (tsx's runs on a thread of its own, whose memory a daemon no longer pays).
import { writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');

/** The path of a .mjs file that runs `entry` against the build of the current sources. */
export async function compileAgainstBuild(entry: string): Promise<string> {
  const { built } = (await import('../bin/build.js' as string)) as { built(opts: { hold: boolean }): Promise<string> };
  // Held while the benchmark runs (it outlives its child), so editing sources meanwhile cannot prune it.
  const dist = await built({ hold: true });
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
    define: { 'import.meta.dirname': JSON.stringify(dirname(entry)) },
    plugins: [
      {
        name: 'src-from-build',
        setup(b) {
          b.onResolve({ filter: /^\.\.?\// }, (args) => {
            const rel = relative(join(ROOT, 'src'), resolve(args.resolveDir, args.path));
            return rel.startsWith('..') ? undefined : { path: pathToFileURL(join(dist, rel)).href, external: true };
          });
        },
      },
    ],
  });
  // Beside the build, so its packages resolve from sluice's node_modules; the caller removes it.
  const out = join(dirname(dist), `.bench-${process.pid}-${basename(entry, '.ts')}.mjs`);
  writeFileSync(out, result.outputFiles[0]!.contents);
  return out;
}
