// `sluice init` and `sluice new-strategy` write configs that validate as they are: a strategy's
// directory may be named dip-buyer, but its config id must be 1-12 lower-case letters or digits.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { validateCommand } from '../../../src/commands/validate.js';
import { initProject, newStrategy, ScaffoldError, strategyIdOf } from '../../../src/commands/scaffold.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A new project whose plugins import this checkout as `sluice`, as `npm install` would leave it. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-scaffold-'));
  dirs.push(dir);
  const root = join(dir, 'bot');
  initProject(root);
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(ROOT, join(root, 'node_modules', 'sluice'), 'dir');
  return root;
}

const strategiesOf = (root: string) => (parse(readFileSync(join(root, 'sluice.yaml'), 'utf8')) as { strategies: { id: string; use: string; enabled?: boolean }[] }).strategies;

describe('sluice new-strategy', () => {
  it('writes an id made from the name (dashes dropped, cut to 12) and a config that validates, plugins loaded', async () => {
    const root = project();
    newStrategy('dip-buyer', root);
    newStrategy('my-first-mean-reverter', root);
    expect(existsSync(join(root, 'strategies/dip-buyer/index.ts'))).toBe(true);
    expect(strategiesOf(root).map((s) => [s.id, s.use, s.enabled ?? true])).toEqual([
      ['example', './strategies/example/index.ts', true],
      ['dipbuyer', './strategies/dip-buyer/index.ts', false],
      ['myfirstmeanr', './strategies/my-first-mean-reverter/index.ts', false],
    ]);
    // Enabled, so validate loads the new plugins and checks their params too.
    const path = join(root, 'sluice.yaml');
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll('enabled: false', 'enabled: true'));
    const { ok, output } = await validateCommand(path, {}, root);
    expect(output).toContain('plugins OK: example (example), dipbuyer (dip-buyer), myfirstmeanr (my-first-mean-reverter)');
    expect(ok, output).toBe(true);
  });

  it('refuses a name whose id the config already has, saying why, and writes nothing', () => {
    const root = project();
    newStrategy('dip-buyer', root);
    const before = readFileSync(join(root, 'sluice.yaml'), 'utf8');
    expect(() => newStrategy('dipbuyer', root)).toThrow(ScaffoldError);
    expect(() => newStrategy('dipbuyer', root)).toThrow(/already has a strategy with id "dipbuyer", the id "dipbuyer" makes \(dashes dropped, cut to 12 characters: it is part of every client order id\)/);
    expect(existsSync(join(root, 'strategies/dipbuyer'))).toBe(false);
    expect(readFileSync(join(root, 'sluice.yaml'), 'utf8')).toBe(before);
  });

  it('makes the id from the name: dashes dropped, the first 12 characters kept', () => {
    expect(['a', 'dip-buyer', 'a-b-c-d-e-f-g-h-i-j-k-l-m', 'x1234567890123'].map(strategyIdOf)).toEqual(['a', 'dipbuyer', 'abcdefghijkl', 'x12345678901']);
  });
});
