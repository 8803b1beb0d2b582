// `npm run bench -- <name> [args]` runs bench/<name>.bench.ts; without a name it lists them.
// Each benchmark's arguments and latest figures are in bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compileAgainstBuild } from './against-build.js';

const dir = import.meta.dirname;
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
const [name, ...args] = process.argv.slice(2);
if (name === undefined || !names.includes(name)) {
  if (name !== undefined) console.error(`no benchmark "${name}"`);
  console.log(`usage: npm run bench -- <name> [args]   (arguments and figures: bench/RESULTS.md)\n${names.map((n) => `  ${n}`).join('\n')}`);
  process.exit(name === undefined ? 0 : 1);
}
// These time sluice's own code, so they run what `sluice` runs: its JavaScript build, with no
// TypeScript loader (tsx keeps every function's name, and its hooks run on a thread of their own).
const FROM_BUILD = new Set(['backtest', 'engine']);
const script = FROM_BUILD.has(name) ? await compileAgainstBuild(join(dir, `${name}.bench.ts`)) : undefined;
// --expose-gc: the memory benchmarks collect before each reading (harmless to the others).
const run = spawnSync(process.execPath, ['--expose-gc', ...(script ? [script] : ['--import', 'tsx', join(dir, `${name}.bench.ts`)]), ...args], { stdio: 'inherit' });
if (script) rmSync(script, { force: true });
process.exit(run.status ?? 1);
