// API credentials come from the environment, or from a file only its owner can read; never
// from YAML. Messages name variables, files and line numbers, never values.
import { open } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Credentials } from './types.js';
import type { RawProblem } from './rules.js';

export const KEY_VAR = 'SLUICE_API_KEY';
export const SECRET_VAR = 'SLUICE_API_SECRET';

const HOW =
  `set ${KEY_VAR} and ${SECRET_VAR} in the environment, or set credentials.file to a file (chmod 600) with the lines ${KEY_VAR}=... and ${SECRET_VAR}=...`;

export interface CredentialsResult {
  credentials?: Credentials;
  problems: RawProblem[];
}

/**
 * The environment wins when it holds either variable (both are then required); otherwise
 * credentials.file is read when set. Live mode needs credentials; paper mode takes them if
 * given (the simulator makes its own) but still refuses a half-set pair or an unsafe file.
 */
export async function resolveCredentials(opts: {
  live: boolean;
  file: string | null;
  env: NodeJS.ProcessEnv;
  baseDir: string;
}): Promise<CredentialsResult> {
  const key = opts.env[KEY_VAR] || undefined;
  const secret = opts.env[SECRET_VAR] || undefined;
  if (key && secret) return { credentials: { apiKey: key, apiSecret: secret }, problems: [] };
  if (key || secret) {
    const [set, unset] = key ? [KEY_VAR, SECRET_VAR] : [SECRET_VAR, KEY_VAR];
    return { problems: [{ path: ['credentials'], message: `${set} is set but ${unset} is not: set both (or neither, and use credentials.file)` }] };
  }
  if (opts.file !== null) return readCredentialsFile(isAbsolute(opts.file) ? opts.file : resolve(opts.baseDir, opts.file));
  if (opts.live) return { problems: [{ path: ['credentials'], message: `live mode needs API credentials: ${HOW}` }] };
  return { problems: [] };
}

async function readCredentialsFile(file: string): Promise<CredentialsResult> {
  const at = ['credentials', 'file'];
  let text: string;
  // Check the mode and read through one handle, so the file checked is the file read.
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problems: [{ path: at, message: `cannot open ${file} (${code ?? 'error'}): fix the path (relative paths start at the working directory)` }] };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { problems: [{ path: at, message: `${file} is not a regular file` }] };
    // POSIX permission bits only; Windows reports a fixed mode, so there is nothing to check there.
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8);
      return {
        problems: [{ path: at, message: `${file} is accessible to group or others (mode ${mode}); it holds secrets: run chmod 600 ${file}` }],
      };
    }
    text = await handle.readFile('utf8');
  } finally {
    await handle.close();
  }

  const problems: RawProblem[] = [];
  const values = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    const name = m?.[1];
    if (!m || (name !== KEY_VAR && name !== SECRET_VAR)) {
      problems.push({ path: at, message: `${file} line ${i + 1}: expected ${KEY_VAR}=... or ${SECRET_VAR}=... (comments start with #)` });
      return;
    }
    values.set(name, unquote(m[2] ?? ''));
  });
  const apiKey = values.get(KEY_VAR);
  const apiSecret = values.get(SECRET_VAR);
  for (const [name, value] of [[KEY_VAR, apiKey], [SECRET_VAR, apiSecret]] as const) {
    if (!value) problems.push({ path: at, message: `${file} has no ${name}=... line (or it is empty): add it` });
  }
  if (problems.length > 0 || !apiKey || !apiSecret) return { problems };
  return { credentials: { apiKey, apiSecret }, problems };
}

function unquote(v: string): string {
  const t = v.trim();
  return /^(['"]).*\1$/.test(t) ? t.slice(1, -1) : t;
}
