// YAML + environment -> validated, frozen Config. Every stage collects problems instead of
// stopping at the first, and one ConfigError lists them all, in file order, each with its YAML
// path, line and fix. Only a YAML syntax error stops early: past it the structure is a guess.
import { readFile } from 'node:fs/promises';
import { inspect } from 'node:util';
import { isMap } from 'yaml';
import { ConfigError, type ConfigProblem } from '../core/errors.js';
import { KEY_VAR, resolveCredentials, resolveHttpToken, SECRET_VAR } from './credentials.js';
import { httpProblems, crossFieldProblems, dropEmptySections, removeSecretKeys, unknownKeyMessage, type RawProblem } from './rules.js';
import { shownChoice } from '../core/spelling.js';
import { asConfig, configSchema, deepFreeze, kindOf, knownKeys, strategyFields } from './schema.js';
import type { Config, Credentials, LoadedConfig, StrategyConfig } from './types.js';
import { formatPath, interpolate, lineOf, parseYamlText, type Path } from './yaml.js';

export interface ParseOptions {
  /** Names the config in messages (the file path when loading a file). */
  source?: string;
  env?: NodeJS.ProcessEnv;
  /** Relative credentials.file paths resolve here; process.cwd() by default, like plugin paths. */
  baseDir?: string;
  /**
   * The config drives a backtest, which trades the simulator: what only a daemon uses (the
   * venue's addresses, credentials, the ops token) is neither required nor read, and the mode is
   * paper, so the config a daemon runs live (and records its tape with) backtests as it stands.
   */
  backtest?: boolean;
}

/** What a backtest never uses, taken out before the checks: its ${VAR}s need not be set, nor live's requirements met. */
const DAEMON_ONLY: readonly (readonly string[])[] = [['venue', 'spotUrl'], ['venue', 'futuresUrl'], ['credentials'], ['http'], ['alerts']];

/** What checking a config found: the config when it has no problem, else every problem. */
export interface ConfigCheck {
  /** The config, when it has no problem. */
  loaded?: LoadedConfig;
  /** Every problem, in file order; empty when `loaded` is there. */
  problems: ConfigProblem[];
  /**
   * Each strategies entry as far as its own fields are right (the config's own entries when it
   * has no problem): what the plugin check reads, so plugins are checked in the same round.
   * Undefined when the file could not be read or is not YAML: nothing past that is known.
   */
  strategies?: readonly Partial<StrategyConfig>[];
  /** The paths whose values came from ${VAR}: a problem never shows them. */
  fromEnvironment: ReadonlySet<string>;
  /** Names the config in messages. */
  source: string;
}

/** Reads and validates a config file. Throws ConfigError listing every problem. */
export async function loadConfig(filePath: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  return loadedOrThrow(await checkConfigFile(filePath, env));
}

/** Validates config text; the seam tests use. Throws ConfigError listing every problem. */
export async function parseConfig(yamlText: string, opts: ParseOptions = {}): Promise<LoadedConfig> {
  return loadedOrThrow(await checkConfig(yamlText, opts));
}

function loadedOrThrow(check: ConfigCheck): LoadedConfig {
  if (!check.loaded) throw new ConfigError(check.problems, check.source);
  return check.loaded;
}

/** Reads and checks a config file; every problem is returned, none thrown. */
export async function checkConfigFile(filePath: string, env: NodeJS.ProcessEnv = process.env, baseDir = process.cwd()): Promise<ConfigCheck> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return { problems: [{ path: '(file)', message: `cannot read ${filePath} (${code}): check the --config path` }], fromEnvironment: new Set(), source: filePath };
  }
  return checkConfig(text, { source: filePath, env, baseDir });
}

/** Checks config text; every problem is returned, none thrown. */
export async function checkConfig(yamlText: string, opts: ParseOptions = {}): Promise<ConfigCheck> {
  const source = opts.source ?? 'config';
  // A backtest reads no credentials, not even from the environment.
  const env = opts.backtest ? { ...(opts.env ?? process.env), [KEY_VAR]: undefined, [SECRET_VAR]: undefined } : (opts.env ?? process.env);
  const { parsed, problems: syntax } = parseYamlText(yamlText);
  if (syntax.length > 0) return { problems: syntax, fromEnvironment: new Set(), source };
  if (opts.backtest) {
    // Only where the parent is a map: a malformed section is for the schema to name.
    for (const path of DAEMON_ONLY) if (path.length === 1 || isMap(parsed.doc.getIn(path.slice(0, -1)))) parsed.doc.deleteIn(path);
    if (parsed.doc.has('mode')) parsed.doc.set('mode', 'paper');
  }

  const problems: ConfigProblem[] = [];
  const interpolation = interpolate(parsed, env);
  problems.push(...interpolation.problems);
  // A value whose ${VAR} failed is not checked again: the schema would only complain about the hole.
  const failed = interpolation.problems.map((p) => p.path);
  const add = ({ path, message, given }: RawProblem) => {
    const at = formatPath(path);
    if (failed.some((f) => at === f || at.startsWith(`${f}.`) || at.startsWith(`${f}[`))) return;
    const vars = interpolation.sources.get(at);
    // A value from the environment may be a secret: its kind is shown, never the value.
    const shown = given && (vars ? kindOf(given.value) : (shownChoice(given.value, given.options) ?? kindOf(given.value)));
    const full = shown ? `${message} (got ${shown})` : message;
    problems.push({ path: at, line: lineOf(parsed, path), message: vars ? `${full} (the value comes from \${${vars.join('}, ${')}})` : full });
  };

  const raw: unknown = parsed.doc.toJS({ maxAliasCount: 100 }) ?? {}; // an empty file means all defaults
  removeSecretKeys(raw).forEach(add);
  dropEmptySections(raw);
  // reportInput: a choice's problem quotes the value given (issueProblems).
  const result = configSchema.safeParse(raw, { reportInput: true });
  if (!result.success) for (const issue of result.error.issues) issueProblems(issue).forEach(add);
  crossFieldProblems(raw).forEach(add);

  const section = (raw as { mode?: unknown; credentials?: { file?: unknown } } | null) ?? {};
  const file = section.credentials?.file;
  const found = await resolveCredentials({
    live: section.mode === 'live',
    file: typeof file === 'string' && file !== '' ? file : null,
    env,
    baseDir: opts.baseDir ?? process.cwd(),
  });
  found.problems.forEach(add);
  const tokenFile = (section as { http?: { tokenFile?: unknown } }).http?.tokenFile;
  const token = await resolveHttpToken({ file: typeof tokenFile === 'string' && tokenFile !== '' ? tokenFile : null, env, baseDir: opts.baseDir ?? process.cwd() });
  token.problems.forEach(add);
  if (token.problems.length === 0) httpProblems(raw, token.token !== undefined).forEach(add);

  const fromEnvironment = new Set(interpolation.sources.keys());
  if (problems.length > 0 || !result.success) {
    // Stable sort: file order, problems without a line last.
    return { problems: problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity)), strategies: strategyFields(raw), fromEnvironment, source };
  }
  const parsedConfig = asConfig(result.data);
  const config: Config = deepFreeze({
    ...parsedConfig,
    venue: { ...parsedConfig.venue, futuresUrl: parsedConfig.venue.futuresUrl ?? parsedConfig.venue.spotUrl },
  });
  const loaded = { config, ...(found.credentials ? { credentials: sealed(found.credentials) } : {}), ...(token.token !== undefined ? { httpToken: token.token } : {}), source, fromEnvironment };
  return { loaded, problems: [], strategies: config.strategies, fromEnvironment, source };
}

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  issues?: { message: string }[];
  input?: unknown;
  values?: unknown[];
}

/** One zod issue as problems: unknown keys become one problem per key, with a guess. */
function issueProblems(issue: Issue): RawProblem[] {
  const path: Path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    const known = knownKeys(path);
    return issue.keys.map((key) => ({ path: [...path, key], message: unknownKeyMessage(key, known) }));
  }
  if (issue.code === 'invalid_key') return [{ path, message: `invalid key: ${issue.issues?.[0]?.message ?? 'not allowed here'}` }];
  // An enum's or a union of literals' (the schema's choices): the value given goes with it.
  if ((issue.code === 'invalid_value' || issue.code === 'invalid_union') && issue.input !== undefined) {
    return [{ path, message: issue.message, given: { value: issue.input, options: issue.values ?? [] } }];
  }
  return [{ path, message: issue.message }];
}

/**
 * The secrets stay plain properties (the executor needs them) but print as [redacted] in
 * JSON, pino and util.inspect, so logging the object by mistake leaks nothing.
 */
function sealed(c: Credentials): Credentials {
  const redacted = () => '[redacted credentials]';
  const out = { apiKey: c.apiKey, apiSecret: c.apiSecret };
  Object.defineProperty(out, 'toJSON', { value: redacted });
  Object.defineProperty(out, inspect.custom, { value: redacted });
  return Object.freeze(out);
}
