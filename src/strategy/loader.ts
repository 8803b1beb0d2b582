// Loads plugin modules named in the config and checks them at the door: a missing file, a
// module that is not a strategy, or params that do not fit the plugin's schema are all
// reported at once with their YAML paths, before anything trades.
import { pathToFileURL } from 'node:url';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError, type ConfigProblem } from '../core/errors.js';
import type { Market } from '../core/types.js';
import { API_VERSION, type StrategyDefinition } from './api.js';

export interface StrategyEntry {
  id: string;
  use: string;
  enabled: boolean;
  market: Market;
  symbols: readonly string[];
  everyMs: number;
  params: unknown;
}

export interface LoadedStrategy {
  entry: StrategyEntry;
  definition: StrategyDefinition;
  params: unknown;
}

/** Loads every enabled entry; throws one ConfigError listing every problem found. */
export async function loadStrategies(entries: readonly StrategyEntry[], baseDir: string): Promise<LoadedStrategy[]> {
  const problems: ConfigProblem[] = [];
  const loaded: LoadedStrategy[] = [];
  for (const [i, entry] of entries.entries()) {
    if (!entry.enabled) continue;
    const at = `strategies[${i}]`;
    const file = isAbsolute(entry.use) ? entry.use : resolve(baseDir, entry.use);
    let mod: { default?: unknown };
    try {
      mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
    } catch (err) {
      const e = err as { code?: string; message?: string };
      const notFound = e.code === 'ERR_MODULE_NOT_FOUND' && (e.message ?? '').includes(file);
      problems.push({
        path: `${at}.use`,
        message: notFound
          ? `no plugin at ${file}; fix the path (relative to ${baseDir})`
          : `the plugin ${entry.use} failed to load: ${e.message ?? String(err)}`,
      });
      continue;
    }
    const definition = mod.default;
    const shapeProblem = checkDefinition(definition);
    if (shapeProblem) {
      problems.push({ path: `${at}.use`, message: `${entry.use} ${shapeProblem}` });
      continue;
    }
    const def = definition as StrategyDefinition;
    const parsed = def.params.safeParse(entry.params ?? {});
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const sub = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
        problems.push({ path: `${at}.params${sub}`, message: `${issue.message} (plugin ${def.name})` });
      }
      continue;
    }
    loaded.push({ entry, definition: def, params: parsed.data });
  }
  if (problems.length > 0) throw new ConfigError(problems, 'strategies');
  return loaded;
}

function checkDefinition(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object') return 'must default-export defineStrategy({...})';
  const d = v as Partial<StrategyDefinition>;
  if (!('apiVersion' in d)) return 'must default-export defineStrategy({...}) from "sluice/strategy"';
  if (d.apiVersion !== API_VERSION) return `was written for plugin API version ${String(d.apiVersion)}; this sluice speaks version ${API_VERSION}`;
  if (typeof d.name !== 'string' || d.name === '') return 'needs a name';
  if (!d.params || typeof (d.params as { safeParse?: unknown }).safeParse !== 'function') return 'needs a params schema built with z (import { z } from "sluice/strategy")';
  if (typeof d.create !== 'function') return 'needs a create(ctx) function';
  return undefined;
}
