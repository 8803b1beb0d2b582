// `sluice validate`: the config, then every enabled strategy plugin loaded and its params
// checked, as `run` and `plan` would, so a pre-start check (the systemd unit's) catches a
// missing plugin or a param typo too. Plugin problems carry their YAML lines like the config's.
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../core/errors.js';
import { locatedError, validateCommand as validateConfig, type LoadedConfig } from '../config/index.js';
import { loadStrategies, type LoadedStrategy } from '../strategy/index.js';
import { buildApp } from '../app/build.js';
import { createLogger } from '../app/logger.js';
import { paper } from '../app/profiles.js';

export async function validateCommand(path: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<{ ok: boolean; output: string }> {
  return validateConfig(path, env, async (loaded) => {
    const strategies = await loadPlugins(loaded, path, cwd);
    if (loaded.config.mode === 'paper') await checkPaperSymbols(loaded, strategies, path);
    const names = strategies.map((s) => `${s.entry.id} (${s.definition.name})`);
    return [names.length > 0 ? `plugins OK: ${names.join(', ')}: loaded, params checked` : 'plugins: none enabled, none loaded'];
  });
}

/**
 * In paper mode the venue is the built-in simulator, so the symbols it lists are known without
 * a network: a symbol it does not list is refused here, as run and plan refuse it at start-up.
 */
async function checkPaperSymbols(loaded: LoadedConfig, strategies: readonly LoadedStrategy[], path: string): Promise<void> {
  const app = buildApp({ config: loaded.config, profile: paper(loaded.config), strategies, log: createLogger({ level: 'silent', pretty: false, secrets: [] }) });
  try {
    await app.engine.load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw locatedError(err, await readFile(path, 'utf8'), path);
  }
}

/** The enabled plugins, or a ConfigError naming the config file with each problem's line. */
export async function loadPlugins(loaded: LoadedConfig, path: string, cwd = process.cwd()) {
  try {
    return await loadStrategies(loaded.config.strategies, cwd, loaded.fromEnvironment);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw locatedError(err, await readFile(path, 'utf8'), path);
  }
}
