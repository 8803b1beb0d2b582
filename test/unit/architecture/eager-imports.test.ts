// What a daemon loads before it does anything counts in its memory for as long as it runs.
// Packages only some profiles need are imported where they are first used: undici (about 10 MB
// of RSS) only when a venue is reached over HTTP or an alert is posted to a webhook.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../../src');

/** Packages the static, non-type imports of `entry` load, with the chain that loads each. */
function eagerPackages(entry: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const seen = new Set<string>();
  const walk = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const specs = [...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^;]*?from\s+)?'([^']+)'/gm)].map((m) => m[1]!);
    for (const spec of specs) {
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        if (existsSync(target)) walk(target, [...chain, file.slice(SRC.length + 1)]);
      } else if (!spec.startsWith('node:') && !found.has(spec)) found.set(spec, [...chain, file.slice(SRC.length + 1)]);
    }
  };
  walk(resolve(SRC, entry), []);
  return found;
}

describe('what the daemon loads at start', () => {
  it('finds a package imported eagerly (the check itself)', () => {
    expect(eagerPackages('exchange/transport/http.ts').has('undici')).toBe(true);
  });

  it.each(['commands/run.ts', 'app/build.ts'])('%s does not load undici until a venue is reached over HTTP', (entry) => {
    expect(eagerPackages(entry).get('undici')).toBeUndefined();
  });
});
