// `npm run backtest` (the grid strategy over the sample tape) gives the report it gave when this
// golden copy was taken, byte for byte: restructuring code must not change what a user sees.
// A deliberate change of behaviour updates the golden file in the same commit, saying why.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const GOLDEN = join(ROOT, 'test/fixtures/golden/backtest-sample.report.json');
const out = mkdtempSync(join(tmpdir(), 'sluice-golden-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('npm run backtest writes the golden report.json, byte for byte', async () => {
  const args = ['bin/sluice.js', 'backtest', '--config', 'config/backtest.yaml', '--tape', 'backtest/tapes/sample.jsonl.gz', '--out', out, '--no-cache'];
  await promisify(execFile)(process.execPath, args, { cwd: ROOT });
  expect(readFileSync(join(out, 'report.json'), 'utf8')).toBe(readFileSync(GOLDEN, 'utf8'));
}, 60_000);
