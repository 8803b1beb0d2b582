// What every trading command does first: check the config and the plugins at the door, printing
// every problem found without the venue in one list (app/preflight.ts), before anything is wired.
import { ConfigError } from '../core/errors.js';
import type { LoadedConfig } from '../config/index.js';
import { checkLocally } from '../app/preflight.js';
import type { LoadedStrategy } from '../strategy/index.js';

export interface Prepared {
  loaded: LoadedConfig;
  strategies: LoadedStrategy[];
}

/** Config and plugins, or every problem printed to stderr and undefined. */
export async function prepare(configPath: string): Promise<Prepared | undefined> {
  const { ready, problems, source } = await checkLocally(configPath);
  if (!ready) process.stderr.write(`${new ConfigError(problems, source).message}\n`);
  return ready;
}

/** The secrets a command's logger scrubs. */
export function secretsOf(loaded: LoadedConfig): string[] {
  return [...(loaded.credentials ? [loaded.credentials.apiKey, loaded.credentials.apiSecret] : []), ...(loaded.httpToken !== undefined ? [loaded.httpToken] : [])];
}
