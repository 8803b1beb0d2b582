// What a command checks before it wires anything. First every problem found without the venue,
// in one list: the config (schema, rules, credentials, the ops token), each enabled plugin (its
// path, its params) and the feeds the plugins ask for, so an operator fixes them in one round;
// a check that needs a field the config got wrong is skipped, the field's own problem listed.
// Then, for `sluice validate`, what the start learns from the venue, asked by the code the start
// runs: the instrument catalog that refuses a start, and the signed account read of its first
// reconcile pass, a refusal worded as the start words it.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { systemClock } from '../core/clock.js';
import { AuthError, ConfigError, VenueError, errorText, type ConfigProblem } from '../core/errors.js';
import { checkConfigFile, locateProblems, type Config, type LoadedConfig } from '../config/index.js';
import { refusedAtStart } from '../engine/credentials.js';
import { feedProblems, requirementsOf } from '../engine/instruments.js';
import { inspectJournal } from '../store/inspect.js';
import { SCHEMA_VERSION } from '../store/sqlite.js';
import { checkStrategies, type LoadedStrategy } from '../strategy/index.js';
import { buildApp, type App } from './build.js';
import { createLogger, scrub } from './logger.js';
import { inspect } from './profiles.js';

export interface LocalCheck {
  /** The config and its loaded plugins, when nothing is wrong. */
  ready?: { loaded: LoadedConfig; strategies: LoadedStrategy[] };
  /** Every problem, with its line, in file order. */
  problems: ConfigProblem[];
  /** Names the config in messages. */
  source: string;
}

/** Every problem found without the venue, in one list (none thrown). */
export async function checkLocally(path: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<LocalCheck> {
  const config = await checkConfigFile(path, env, cwd);
  const entries = config.strategies ?? [];
  const plugins = await checkStrategies(entries, cwd, config.fromEnvironment);
  const problems = [...config.problems, ...plugins.problems, ...feedProblems(requirementsOf(entries, plugins.loaded))];
  // Not when the file did not read, or the list itself is wrong: their own problems say so.
  if (config.strategies && !entries.some((s) => s.enabled !== false) && !config.problems.some((p) => p.path === 'strategies')) {
    problems.push({ path: 'strategies', message: 'no enabled strategy: add one (see strategies/README.md) or set enabled: true' });
  }
  if (config.loaded && problems.length === 0) {
    // The config's own entries, whole, as it has no problem.
    return { ready: { loaded: config.loaded, strategies: plugins.loaded as LoadedStrategy[] }, problems, source: config.source };
  }
  // Plugin and feed problems have paths only: their lines come from the file's text.
  const text = await readFile(path, 'utf8').catch(() => '');
  return { problems: locateProblems(text, problems), source: config.source };
}

export interface VenueCheck {
  /** Where it asked: the venue's URL, or the built-in simulator. */
  venue: string;
  /** What it asked; none when it could not ask (`skipped` says why). */
  asked: string[];
  skipped?: string;
  problems: ConfigProblem[];
}

/**
 * What the start learns from the venue, asked as the start asks it: the symbols and feeds the
 * strategies need, and live, whether the venue takes the key (paper mode's simulator takes its
 * own). Nothing is sent to a venue whose ban the journal records. Problems have no lines yet.
 */
export async function checkVenue(loaded: LoadedConfig, strategies: readonly LoadedStrategy[]): Promise<VenueCheck> {
  const { config, credentials } = loaded;
  const live = config.mode === 'live';
  const venue = live ? `the venue at ${config.venue.spotUrl}${config.venue.futuresUrl !== config.venue.spotUrl ? ` and ${config.venue.futuresUrl}` : ''}` : 'the built-in simulator';
  const journal = live ? inspectJournal(resolve(config.journal.path), SCHEMA_VERSION) : undefined;
  if (journal?.kind === 'journal' && journal.banUntil > systemClock.now()) {
    return { venue, asked: [], skipped: `the journal records a venue ban until ${new Date(journal.banUntil).toISOString()}, and nothing is sent before it ends`, problems: [] };
  }
  const secrets = credentials ? [credentials.apiKey, credentials.apiSecret] : [];
  const log = createLogger({ level: 'silent', pretty: false, secrets });
  // The inspect profile: reads only, a throwaway journal, one retry so an unreachable venue fails fast.
  const app = buildApp({ config, profile: inspect(config, 'memory', { retries: 1 }), credentials, strategies, log });
  const problems: ConfigProblem[] = [];
  const asked: string[] = [];
  let skipped: string | undefined;
  try {
    await app.client.start();
    asked.push('the symbols and feeds the strategies need');
    try {
      await app.engine.load();
    } catch (err) {
      if (!(err instanceof ConfigError)) problems.push(unanswered(config, "reading the venue's instruments", err));
      else problems.push(...err.problems);
    }
    if (live) {
      asked.push('the key, by the signed account read the start makes first');
      problems.push(...(await keyProblems(app, config)));
    }
  } catch (err) {
    // The clock sync, the first request of a start: nothing else can be asked.
    problems.push(unanswered(config, "asking the venue's time", err));
    skipped = 'its time endpoint did not answer';
  } finally {
    await app.client.close();
    app.journal.close();
  }
  // What the venue said goes into the output: scrubbed, as every log line is.
  return { venue, asked, skipped, problems: problems.map((p) => ({ path: p.path, message: scrub(p.message, secrets) })) };
}

/**
 * Whether the venue takes the key, by the signed account read a start makes first (each market
 * the strategies trade), through an app whose client has started: a refusal worded as the start
 * words it, under `credentials`. None thrown.
 */
export async function keyProblems(app: App, config: Config): Promise<ConfigProblem[]> {
  const problems: ConfigProblem[] = [];
  for (const market of app.engine.markets()) {
    try {
      await app.readers[market].holdings();
    } catch (err) {
      problems.push(err instanceof AuthError ? { path: 'credentials', message: refusedAtStart(err).message } : unanswered(config, `the signed ${market} account read`, err));
    }
  }
  return problems;
}

/**
 * A live start the venue refused at its instruments (a symbol it does not list, a feed it cannot
 * serve: a ConfigError) has not yet asked whether it takes the key; `sluice run` asks it now, by
 * the code `sluice validate` runs, so every problem the venue has with the config comes in one
 * round. Any other failure is returned as it is.
 */
export async function withKeyProblems(err: unknown, app: App, config: Config): Promise<unknown> {
  if (!(err instanceof ConfigError) || config.mode !== 'live') return err;
  const more = await keyProblems(app, config);
  return more.length > 0 ? new ConfigError([...err.problems, ...more], 'strategies') : err;
}

/** A failed call names the URL field of the host it went to. */
function urlField(config: Config, err: unknown): 'venue.spotUrl' | 'venue.futuresUrl' {
  return err instanceof VenueError && err.venue.endpoint.startsWith('futures.') && config.venue.futuresUrl !== config.venue.spotUrl ? 'venue.futuresUrl' : 'venue.spotUrl';
}

function unanswered(config: Config, what: string, err: unknown): ConfigProblem {
  const field = urlField(config, err);
  return { path: field, message: `${what} failed (${errorText(err)}): check ${field} and that this machine reaches it` };
}
