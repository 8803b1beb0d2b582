// Where sluice is installed. Its modules run from src/ (tests, benches) or from a build under
// dist/<digest>/ (bin/sluice.js), at different depths, so files beside the code (package.json,
// the sources a cache key hashes, the scaffold's templates) are found from the root instead.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'sluice') return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json of sluice above ${from}`);
  }
}

export const PACKAGE_ROOT = findRoot(import.meta.dirname);
