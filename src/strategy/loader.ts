// Loads plugin modules named in the config and checks them at the door: a missing file, a
// module that is not a strategy, or params that do not fit the plugin's schema are all
// reported at once with their YAML paths, before anything trades.
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError, type ConfigProblem } from '../core/errors.js';
import type { ExitSettings, LossLimitSettings, Market } from '../core/types.js';
import { API_VERSION, API_VERSIONS, type StrategyDefinition } from './api.js';
import { StrategyHost } from './host.js';
import { paramProblems } from './param-problems.js';
import { FakeView } from './testing.js';
import { importPlugin } from './plugin-import.js';

export interface StrategyEntry {
  id: string;
  use: string;
  enabled: boolean;
  market: Market;
  symbols: readonly string[];
  everyMs: number;
  /** Futures: leverage set on its contracts at start-up. */
  leverage?: number;
  /** Protective exits sluice enforces on the strategy's own position (engine/exit-monitor.ts). */
  exits?: ExitSettings;
  /** Daily loss limit (engine/loss-limit.ts). */
  lossLimit?: LossLimitSettings;
  params: unknown;
}

/** A plugin loaded and its params checked, for its config entry (or what of it the config got right). */
export interface LoadedStrategy<E extends EntryFields = StrategyEntry> {
  entry: E;
  definition: StrategyDefinition;
  params: unknown;
}

/**
 * Loads every enabled entry; throws one ConfigError listing every problem found.
 * `fromEnvironment`: the config paths whose values came from ${VAR} (LoadedConfig's).
 */
export async function loadStrategies(entries: readonly StrategyEntry[], baseDir: string, fromEnvironment?: ReadonlySet<string>): Promise<LoadedStrategy[]> {
  const { loaded, problems } = await checkStrategies(entries, baseDir, fromEnvironment);
  if (problems.length > 0) throw new ConfigError(problems, 'strategies');
  return loaded;
}

/** An entry as far as the config got its fields right: a check that needs an absent one is skipped. */
export type EntryFields = Partial<StrategyEntry>;

/**
 * Each enabled entry's plugin loaded and its params checked, every problem returned: `entries[i]`
 * is strategies[i]. One without a `use` is not loaded, one without `params` loaded but not
 * checked; the config's own problems say why those fields are absent.
 */
export async function checkStrategies<E extends EntryFields>(entries: readonly E[], baseDir: string, fromEnvironment?: ReadonlySet<string>): Promise<{ loaded: LoadedStrategy<E>[]; problems: ConfigProblem[] }> {
  const problems: ConfigProblem[] = [];
  const loaded: LoadedStrategy<E>[] = [];
  for (const [i, entry] of entries.entries()) {
    if (entry.enabled === false || entry.use === undefined) continue;
    const at = `strategies[${i}]`;
    const file = isAbsolute(entry.use) ? entry.use : resolve(baseDir, entry.use);
    let mod: { default?: unknown };
    try {
      mod = await importPlugin(file);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      problems.push({
        path: `${at}.use`,
        message: !existsSync(file)
          ? `no plugin at ${file}; fix the path (relative to ${baseDir})`
          : e.code === 'ERR_MODULE_NOT_FOUND'
            ? `the plugin ${entry.use} imports something that is not installed: ${e.message ?? String(err)} (npm install it in the plugin's project)`
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
    if (entry.params === undefined) continue;
    const parsed = def.params.safeParse(entry.params);
    if (!parsed.success) {
      problems.push(...paramProblems(parsed.error.issues, def.params, entry.params, at, def.name, fromEnvironment));
      continue;
    }
    const stray = strayHandler(def, parsed.data, entry);
    if (stray) {
      problems.push({ path: `${at}.use`, message: `${entry.use}: ${stray}` });
      continue;
    }
    loaded.push({ entry, definition: def, params: parsed.data });
  }
  return { loaded, problems };
}

/**
 * A handler name create() returns that sluice never calls (`onTik`, another framework's
 * `onBar`): the strategy would be disabled the moment it starts, so it is refused at the door.
 * create() runs once here over an empty view, as at a start before any market data; a create()
 * that throws here is left for the start to judge with the venue's instruments.
 */
function strayHandler(definition: StrategyDefinition, params: unknown, entry: EntryFields): string | undefined {
  const setup = { id: entry.id ?? 'check', market: entry.market ?? 'spot', symbols: entry.symbols ?? [], everyMs: entry.everyMs ?? 1000 };
  const quiet = () => undefined;
  const host = new StrategyHost(setup, definition, params, { view: new FakeView(), now: () => 0, nextSequence: () => 0, setTimer: () => quiet, log: { debug: quiet, info: quiet, warn: quiet, error: quiet } });
  return host.strayHandler;
}

function checkDefinition(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object') return 'must default-export defineStrategy({...})';
  const d = v as Partial<StrategyDefinition>;
  if (!('apiVersion' in d)) return 'must default-export defineStrategy({...}) from "sluice/strategy"';
  if (!API_VERSIONS.includes(d.apiVersion as number)) return `was written for plugin API version ${String(d.apiVersion)}; this sluice speaks versions ${API_VERSIONS.join(' and ')} (the newest: ${API_VERSION})`;
  if (typeof d.name !== 'string' || d.name === '') return 'needs a name';
  if (!d.params || typeof (d.params as { safeParse?: unknown }).safeParse !== 'function') return 'needs a params schema built with z (import { z } from "sluice/strategy")';
  if (typeof d.create !== 'function') return 'needs a create(ctx) function';
  return undefined;
}

/**
 * The definition a plugin file default-exports, without checking any params: a sweep types
 * its values by the schema before the runs check them. Undefined when it does not load
 * (loadStrategies says why).
 */
export async function pluginDefinition(use: string, baseDir: string): Promise<StrategyDefinition | undefined> {
  try {
    const { default: definition } = await importPlugin(isAbsolute(use) ? use : resolve(baseDir, use));
    return checkDefinition(definition) === undefined ? (definition as StrategyDefinition) : undefined;
  } catch {
    return undefined;
  }
}
