export * from './api.js';
export { StrategyHost, type EngineView, type HandlerDeadline, type HostDeps, type HostOutput, type InvalidRequest, type StrategySetup } from './host.js';
export { checkStrategies, loadStrategies, pluginDefinition, type EntryFields, type LoadedStrategy, type StrategyEntry } from './loader.js';
export { paramKeys, paramKind, type ParamKind } from './param-problems.js';
