export * from './api.js';
export { StrategyHost, type EngineView, type HostDeps, type HostOutput, type InvalidRequest, type StrategySetup } from './host.js';
export { loadStrategies, type LoadedStrategy, type StrategyEntry } from './loader.js';
