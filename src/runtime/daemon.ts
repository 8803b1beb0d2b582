// `sluice run` and `sluice plan`: load and check everything at the door, then wire and run.
import { existsSync, readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { systemClock } from '../core/clock.js';
import type { KillSwitchMode, RiskGate } from '../risk/index.js';
import { ConfigError, JournalError } from '../core/errors.js';
import { loadConfig, type LoadedConfig } from '../config/index.js';
import { MemoryJournal } from '../store/memory.js';
import { SqliteJournal } from '../store/sqlite.js';
import { loadStrategies, type LoadedStrategy } from '../strategy/index.js';
import { createLogger } from './logger.js';
import { statusReport } from './status.js';
import { wire, type App } from './wire.js';

interface Prepared {
  loaded: LoadedConfig;
  strategies: LoadedStrategy[];
}

/** Config and plugins, or every problem printed and undefined. */
async function prepare(configPath: string): Promise<Prepared | undefined> {
  try {
    const loaded = await loadConfig(configPath);
    const strategies = await loadStrategies(loaded.config.strategies, process.cwd());
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

export async function runCommand(configPath: string): Promise<number> {
  const prepared = await prepare(configPath);
  if (!prepared) return 1;
  const { config, credentials } = prepared.loaded;
  const log = createLogger({
    level: config.log.level,
    pretty: config.log.pretty === 'auto' ? Boolean(process.stdout.isTTY) : config.log.pretty,
    secrets: credentials ? [credentials.apiKey, credentials.apiSecret] : [],
  });
  let app: App;
  try {
    app = wire({ config, credentials, strategies: prepared.strategies, clock: systemClock, log });
  } catch (err) {
    // A journal that is locked, corrupt or from a newer sluice: say so and touch nothing.
    if (!(err instanceof JournalError)) throw err;
    log.fatal({ err: err.message }, 'could not open the journal');
    log.flush();
    return 1;
  }
  log.info(
    { mode: config.mode, strategies: prepared.strategies.map((s) => `${s.entry.id} (${s.definition.name}: ${s.entry.symbols.join(',')})`) },
    config.mode === 'paper' ? 'starting on the built-in simulated exchange (paper mode: no real money)' : 'starting live',
  );

  let stopping: Promise<void> | undefined;
  let markStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (markStopped = resolve));
  const stop = (signal: string) => {
    if (stopping) return;
    log.info({ signal }, 'stopping: strategies first, then queued intents and open orders per config');
    stopping = app.stop().finally(markStopped);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGUSR2', () => {
    const mode = app.riskGate.toggleHalt();
    log.warn({ killSwitch: mode }, 'kill switch toggled by SIGUSR2');
  });

  const killFile = config.risk.killSwitch.file;
  let fileState: KillSwitchMode | undefined;
  const watchKillFile = killFile
    ? setInterval(() => {
        fileState = applyKillFile(killFile, fileState, app.riskGate, log, config.risk.killSwitch.mode);
      }, 1000)
    : undefined;
  try {
    await app.start();
  } catch (err) {
    log.fatal({ err: err instanceof Error ? err.message : String(err) }, 'could not start');
    await app.stop().catch(() => undefined);
    return 1;
  }
  log.info(app.engine.summary(), 'running; Ctrl-C stops');
  await stopped;
  clearInterval(watchKillFile);
  log.flush();
  return 0;
}

/**
 * The kill-switch file: present means halted, or reduce-only when it says so; removed means the
 * configured mode. Only a change of the file acts, so SIGUSR2 is not undone a second later.
 */
function applyKillFile(file: string, last: KillSwitchMode | undefined, gate: RiskGate, log: Logger, configured: KillSwitchMode): KillSwitchMode {
  const wanted: KillSwitchMode = existsSync(file) ? (readFileSync(file, 'utf8').includes('reduce_only') ? 'reduce_only' : 'halted') : configured;
  if (wanted !== last && (last !== undefined || wanted !== configured)) {
    gate.setKillSwitch(wanted);
    log.warn({ killSwitch: wanted, file }, 'kill switch changed by its file');
  }
  return wanted;
}

export async function planCommand(configPath: string): Promise<number> {
  const prepared = await prepare(configPath);
  if (!prepared) return 1;
  const { config, credentials } = prepared.loaded;
  const log = createLogger({ level: 'warn', pretty: false, secrets: credentials ? [credentials.apiKey, credentials.apiSecret] : [] });
  // A throwaway journal: planning must not consume sequences or record intents in the real one.
  const app = wire({ config, credentials, strategies: prepared.strategies, clock: systemClock, log, journal: new MemoryJournal() });
  await app.client.start();
  const plan = await app.engine.plan();
  await app.client.close();
  process.stdout.write(`${plan}\n`);
  return 0;
}

/** `sluice status`: journal and venue side by side; exit 1 when positions drift. */
export async function statusCommand(configPath: string): Promise<number> {
  const prepared = await prepare(configPath);
  if (!prepared) return 1;
  const { config, credentials } = prepared.loaded;
  if (config.mode !== 'live') {
    process.stderr.write('status compares the live journal with the venue; paper runs start a fresh simulator each time, so there is nothing to compare (set mode: live)\n');
    return 1;
  }
  if (!existsSync(config.journal.path)) {
    process.stderr.write(`no journal at ${config.journal.path}: has the daemon run with this config? (journal.path)\n`);
    return 1;
  }
  const log = createLogger({ level: 'warn', pretty: false, secrets: credentials ? [credentials.apiKey, credentials.apiSecret] : [] });
  let journal: SqliteJournal;
  try {
    // No lock: status only reads, and must work while the daemon runs.
    journal = SqliteJournal.open(config.journal.path);
  } catch (err) {
    if (!(err instanceof JournalError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
  const app = wire({ config, credentials, strategies: prepared.strategies, clock: systemClock, log, journal });
  try {
    await app.client.start();
    const { text, drift } = await statusReport(app);
    process.stdout.write(`${text}\n`);
    return drift ? 1 : 0;
  } finally {
    await app.client.close();
    journal.close();
  }
}
