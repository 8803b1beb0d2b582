// One host per configured strategy: its view of the engine, its clock, its logger (fields
// second, as plugin authors write it) and its client-order sequences.
import type { Clock } from '../core/clock.js';
import type { Logger } from 'pino';
import { StrategyHost, type EngineView, type LoadedStrategy } from '../strategy/index.js';
import type { SequenceAllocator } from '../store/sequences.js';

export function strategyHosts(parts: { strategies: readonly LoadedStrategy[]; clock: Clock; log: Logger; sequences: SequenceAllocator }, view: EngineView): StrategyHost[] {
  return parts.strategies.map(
    (s) =>
      new StrategyHost({ id: s.entry.id, market: s.entry.market, symbols: s.entry.symbols, everyMs: s.entry.everyMs }, s.definition, s.params, {
        view,
        now: () => parts.clock.now(),
        log: pluginLogger(parts.log.child({ strategy: s.entry.id })),
        nextSequence: () => parts.sequences.next(s.entry.id),
      }),
  );
}

function pluginLogger(log: Logger) {
  return {
    debug: (msg: string, fields?: Record<string, unknown>) => log.debug(fields ?? {}, msg),
    info: (msg: string, fields?: Record<string, unknown>) => log.info(fields ?? {}, msg),
    warn: (msg: string, fields?: Record<string, unknown>) => log.warn(fields ?? {}, msg),
    error: (msg: string, fields?: Record<string, unknown>) => log.error(fields ?? {}, msg),
  };
}
