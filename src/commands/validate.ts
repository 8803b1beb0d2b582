// `sluice validate`: what `sluice run` would refuse, before it runs. First every problem found
// without the venue, in one list (app/preflight.ts: the config, the credentials, the plugins and
// their params, the feeds they ask for); then, unless --offline, what the start learns from the
// venue (the symbols it lists, whether it takes the key), asked by the code the start runs and
// listed the same way. The last line says which checks ran, so a pass means what it says.
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../core/errors.js';
import { locateProblems } from '../config/index.js';
import { checkLocally, checkVenue } from '../app/preflight.js';

export interface ValidateOptions {
  /** Ask the venue nothing: its symbols and the key go unchecked (the last line says so). */
  offline?: boolean;
}

const LOCAL = 'checked: the config, the credentials (present and readable), the enabled plugins and their params, the feeds they ask for';

export async function validateCommand(path: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd(), opts: ValidateOptions = {}): Promise<{ ok: boolean; output: string }> {
  const local = await checkLocally(path, env, cwd);
  if (!local.ready) {
    return { ok: false, output: `${new ConfigError(local.problems, local.source).message}\n${LOCAL}; not the venue: fix the problems above first` };
  }
  const { loaded, strategies } = local.ready;
  const { config, credentials } = loaded;
  const total = config.strategies.length;
  const disabled = total - strategies.length;
  const lines = [`config OK: ${total} strateg${total === 1 ? 'y' : 'ies'}${disabled ? ` (${disabled} disabled)` : ''}, mode ${config.mode}`];
  if (config.mode === 'paper') lines.push('paper mode: orders go to the built-in simulated exchange, no real money');
  else if (credentials) lines.push(`credentials: found in ${env.SLUICE_API_KEY ? 'the environment' : config.credentials.file}`);
  lines.push(`plugins OK: ${strategies.map((s) => `${s.entry.id} (${s.definition.name})`).join(', ')}: loaded, params checked`);
  if (opts.offline) {
    lines.push(`${LOCAL}; not the venue (--offline): the symbols it lists and whether it takes the key are checked when sluice run starts`);
    return { ok: true, output: lines.join('\n') };
  }

  const venue = await checkVenue(loaded, strategies);
  const asked = venue.skipped ? `${venue.venue} was not asked: ${venue.skipped}` : `asked ${venue.venue}: ${venue.asked.join('; ')}${config.mode === 'paper' ? ' (paper mode trades with its own key, not yours)' : ''}`;
  if (venue.problems.length > 0) {
    const text = await readFile(path, 'utf8');
    return { ok: false, output: `${new ConfigError(locateProblems(text, venue.problems), local.source).message}\n${LOCAL}; ${asked}` };
  }
  if (!venue.skipped) lines.push(`venue OK: it lists every symbol the strategies trade and serves their feeds${config.mode === 'live' ? ', and takes the key' : ''}`);
  lines.push(`${LOCAL}; ${asked}`);
  return { ok: true, output: lines.join('\n') };
}
