// What every trading command does first: load and check the config and the plugins at the
// door, printing every problem, before anything is wired.
import { ConfigError } from '../core/errors.js';
import { loadConfig, type LoadedConfig } from '../config/index.js';
import type { LoadedStrategy } from '../strategy/index.js';
import { loadPlugins } from './validate.js';

export interface Prepared {
  loaded: LoadedConfig;
  strategies: LoadedStrategy[];
}

/** Config and plugins, or every problem printed to stderr and undefined. */
export async function prepare(configPath: string): Promise<Prepared | undefined> {
  try {
    const loaded = await loadConfig(configPath);
    const strategies = await loadPlugins(loaded, configPath);
    if (strategies.length === 0) {
      throw new ConfigError([{ path: 'strategies', message: 'no enabled strategy: add one (see strategies/README.md) or set enabled: true' }], configPath);
    }
    return { loaded, strategies };
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return undefined;
    }
    throw err;
  }
}

/** The secrets a command's logger scrubs. */
export function secretsOf(loaded: LoadedConfig): string[] {
  return [...(loaded.credentials ? [loaded.credentials.apiKey, loaded.credentials.apiSecret] : []), ...(loaded.httpToken !== undefined ? [loaded.httpToken] : [])];
}
