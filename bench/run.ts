// `npm run bench -- <name> [args]` runs bench/<name>.bench.ts; without a name it lists them.
// Each benchmark's arguments and latest figures are in bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

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
// --expose-gc: the memory benchmarks collect before each reading (harmless to the others).
const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(dir, `${name}.bench.ts`), ...args], { stdio: 'inherit' });
process.exit(run.status ?? 1);
