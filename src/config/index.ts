// Public face of config: load and validate once at start-up, then pass the frozen Config on.
export { checkConfig, checkConfigFile, loadConfig, parseConfig, type ConfigCheck, type ParseOptions } from './load.js';
export { locatedError, locateProblems } from './locate.js';
export { DEFAULTS, STRATEGY_ID } from './schema.js';
export { HTTP_TOKEN_VAR, KEY_VAR, SECRET_VAR } from './credentials.js';
export { opsEnabled } from './types.js';
export type { Config, Credentials, KillSwitchMode, LoadedConfig, LogLevel, Mode, ReconcileConfig, RiskConfig, SimConfig, StrategyConfig, VenueConfig } from './types.js';
