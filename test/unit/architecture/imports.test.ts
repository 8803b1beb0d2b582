// Keeps DESIGN.md's import arrows true without a reviewer: each folder of src/ may import
// only the folders listed for it (and packages listed for it).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../../src');

// Folder -> folders of src it may import. `exchange/endpoints|sign|codes` are the parts of
// exchange the simulator shares, so that client and venue speak the same table and numbers.
const ALLOWED: Record<string, string[]> = {
  core: [],
  config: ['core', 'exchange/endpoints'],
  strategy: ['core'],
  risk: ['core'],
  batcher: ['core'],
  positions: ['core'],
  reconciler: ['core'],
  limiter: ['core'],
  exchange: ['core'],
  executor: ['core', 'exchange'],
  sim: ['core', 'exchange/endpoints', 'exchange/sign', 'exchange/codes', 'exchange/json'],
  store: ['core'],
  // sim/types only for the recorded event's and incident's types; exchange/errors and codes tell
  // which recorded answers were the venue's troubles, as the client classifies them.
  tape: ['core', 'exchange/endpoints', 'exchange/codec', 'exchange/codes', 'exchange/errors', 'exchange/json', 'exchange/transport/errors', 'sim/types'],
  // The chart library (lightweight-charts from node_modules) and the browser code both pages share.
  charts: [],
  ops: ['core', 'executor', 'charts'], // executor only for the CallRecord type
  report: ['core', 'positions', 'charts'],
  // The scheduler and its parts: what the strategies, risk, the pipeline and the reconciler need.
  engine: ['core', 'config', 'strategy', 'risk', 'batcher', 'positions', 'reconciler', 'executor', 'store/sequences'],
  // The composition root: every part, never a command.
  app: ['core', 'config', 'strategy', 'risk', 'batcher', 'positions', 'reconciler', 'limiter', 'exchange', 'executor', 'sim', 'store', 'tape', 'ops', 'report', 'engine'],
  // Distributed sweeps on BullMQ and Redis: a part like tape, knowing nothing of backtests.
  queue: ['core'],
  // Commands build through the root; beside it only what they load, print or serve, and the
  // queue that sweeps and workers talk through.
  commands: ['app', 'core', 'config', 'strategy', 'risk', 'batcher', 'report', 'tape', 'ops', 'sim/server', 'queue'],
};

// Packages each folder may use; node: built-ins are allowed everywhere.
const PACKAGES: Record<string, string[]> = {
  core: ['decimal.js'],
  config: ['yaml', 'zod'],
  strategy: ['zod', 'esbuild', 'trading-signals'], // esbuild: plugins are TypeScript, compiled as they load; trading-signals: indicators for plugins
  limiter: ['bottleneck'],
  exchange: ['undici'],
  executor: ['p-retry'],
  store: ['better-sqlite3'],
  ops: ['prom-client', 'undici'],
  queue: ['bullmq', 'ioredis'],
  engine: ['pino'],
  app: ['pino'],
  commands: ['pino', 'yaml'],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gm), ...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!);
}

describe('import arrows', () => {
  const violations: string[] = [];
  let checked = 0;
  for (const file of files(SRC)) {
    const rel = relative(SRC, file);
    const folder = rel.split('/')[0]!;
    if (!rel.includes('/')) continue; // cli.ts is the entry point, free to import anything
    for (const spec of importsOf(file)) {
      checked++;
      if (spec.startsWith('node:')) continue;
      if (spec.startsWith('.')) {
        const target = relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, '');
        const allowed = ALLOWED[folder] ?? [];
        const ok = target.split('/')[0] === folder || allowed.some((a) => target === a || target.startsWith(`${a}/`));
        if (!ok) violations.push(`${rel} imports ${target}`);
      } else {
        const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        const allowed = PACKAGES[folder] ?? [];
        if (!allowed.includes(pkg)) violations.push(`${rel} imports package ${pkg}`);
      }
    }
  }

  it('every import follows the arrows of DESIGN.md', () => {
    expect(checked).toBeGreaterThan(20);
    expect(violations).toEqual([]);
  });
});
