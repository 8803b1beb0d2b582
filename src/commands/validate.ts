// `sluice validate`: the config, then every enabled strategy plugin loaded and its params
// checked, as `run` and `plan` would, so a pre-start check (the systemd unit's) catches a
// missing plugin or a param typo too. Plugin problems carry their YAML lines like the config's.
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../core/errors.js';
import { locatedError, validateCommand as validateConfig, type LoadedConfig } from '../config/index.js';
import { loadStrategies } from '../strategy/index.js';

export async function validateCommand(path: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<{ ok: boolean; output: string }> {
  return validateConfig(path, env, async (loaded) => {
    const strategies = await loadPlugins(loaded, path, cwd);
    const names = strategies.map((s) => `${s.entry.id} (${s.definition.name})`);
    return [names.length > 0 ? `plugins OK: ${names.join(', ')}: loaded, params checked` : 'plugins: none enabled, none loaded'];
  });
}

/** The enabled plugins, or a ConfigError naming the config file with each problem's line. */
export async function loadPlugins(loaded: LoadedConfig, path: string, cwd = process.cwd()) {
  try {
    return await loadStrategies(loaded.config.strategies, cwd);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw locatedError(err, await readFile(path, 'utf8'), path);
  }
}
