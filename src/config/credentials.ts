// API credentials come from the environment, or from a file only its owner can read; never
// from YAML. Messages name variables, files and line numbers, never values.
import { open } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Credentials } from './types.js';
import type { RawProblem } from './rules.js';

export const KEY_VAR = 'SLUICE_API_KEY';
export const SECRET_VAR = 'SLUICE_API_SECRET';
/** The ops endpoint's token; http.tokenFile names a file holding it instead. */
export const HTTP_TOKEN_VAR = 'SLUICE_HTTP_TOKEN';
/** Shorter tokens are refused: a guessable token protects nothing. */
export const MIN_TOKEN_LENGTH = 16;

const HOW =
  `set ${KEY_VAR} and ${SECRET_VAR} in the environment, or set credentials.file to a file (chmod 600) with the lines ${KEY_VAR}=... and ${SECRET_VAR}=...`;

/**
 * Whitespace, control and invisible format characters belong in no key or secret: a key sent
 * with one is refused by the HTTP client only when a signed call is made, and reported as an
 * outcome unknown though nothing was sent. A pasted line break or a Windows line end is the usual one.
 */
const UNSAFE = /[\s\p{Cc}\p{Cf}]/u;

function unsafe(name: string, where: string, fix: string): string {
  return `${where}${name} contains whitespace or a control character (often a pasted line break, or a Windows line end): ${fix}`;
}

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
  if (key && secret) {
    const problems = ([[KEY_VAR, key], [SECRET_VAR, secret]] as const)
      .filter(([, value]) => UNSAFE.test(value))
      .map(([name]) => ({ path: ['credentials'], message: unsafe(name, '', `set it to the ${name === KEY_VAR ? 'key' : 'secret'} alone, with no spaces, tabs or line breaks`) }));
    return problems.length > 0 ? { problems } : { credentials: { apiKey: key, apiSecret: secret }, problems };
  }
  if (key || secret) {
    const [set, unset] = key ? [KEY_VAR, SECRET_VAR] : [SECRET_VAR, KEY_VAR];
    return { problems: [{ path: ['credentials'], message: `${set} is set but ${unset} is not: set both (or neither, and use credentials.file)` }] };
  }
  if (opts.file !== null) return readCredentialsFile(isAbsolute(opts.file) ? opts.file : resolve(opts.baseDir, opts.file));
  if (opts.live) return { problems: [{ path: ['credentials'], message: `live mode needs API credentials: ${HOW}` }] };
  return { problems: [] };
}

/**
 * The ops token: SLUICE_HTTP_TOKEN wins, else the first line of http.tokenFile (owner-only,
 * like the credentials file). Messages name the variable or the file, never the value.
 */
export async function resolveHttpToken(opts: { file: string | null; env: NodeJS.ProcessEnv; baseDir: string }): Promise<{ token?: string; problems: RawProblem[] }> {
  const fromEnv = opts.env[HTTP_TOKEN_VAR];
  if (fromEnv) {
    if (fromEnv.length < MIN_TOKEN_LENGTH) return { problems: [{ path: ['http', 'tokenFile'], message: `${HTTP_TOKEN_VAR} is shorter than ${MIN_TOKEN_LENGTH} characters: use a random one, e.g. openssl rand -hex 32` }] };
    return { token: fromEnv, problems: [] };
  }
  if (opts.file === null) return { problems: [] };
  const at = ['http', 'tokenFile'];
  const file = isAbsolute(opts.file) ? opts.file : resolve(opts.baseDir, opts.file);
  const read = await readPrivateFile(file, at);
  if (read.text === undefined) return read;
  const token = read.text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '');
  if (!token || token.length < MIN_TOKEN_LENGTH) {
    return { problems: [...read.problems, { path: at, message: `${file} must hold the token on its first line, at least ${MIN_TOKEN_LENGTH} characters: e.g. openssl rand -hex 32 > ${file}` }] };
  }
  return read.problems.length > 0 ? { problems: read.problems } : { token, problems: [] };
}

/**
 * Opens, checks (a regular file only its owner can read) and reads through one handle, so the
 * file checked is the file read. A file others can read is still read, so what it holds is
 * checked in the same round as its mode (the operator fixes both at once); `text` is absent only
 * when the file cannot be read at all.
 */
async function readPrivateFile(file: string, at: string[]): Promise<{ text?: string; problems: RawProblem[] }> {
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
    const problems: RawProblem[] = [];
    // POSIX permission bits only; Windows reports a fixed mode, so there is nothing to check there.
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8);
      problems.push({ path: at, message: `${file} is accessible to group or others (mode ${mode}); it holds secrets: run chmod 600 ${file}` });
    }
    return { text: await handle.readFile('utf8'), problems };
  } finally {
    await handle.close();
  }
}

async function readCredentialsFile(file: string): Promise<CredentialsResult> {
  const at = ['credentials', 'file'];
  const read = await readPrivateFile(file, at);
  if (read.text === undefined) return read;
  const problems = read.problems;
  const values = new Map<string, string>();
  read.text.split(/\r?\n/).forEach((raw, i) => {
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
    else if (UNSAFE.test(value)) problems.push({ path: at, message: unsafe(name, `${file}: `, `write the value alone after ${name}=`) });
  }
  if (problems.length > 0 || !apiKey || !apiSecret) return { problems };
  return { credentials: { apiKey, apiSecret }, problems };
}

function unquote(v: string): string {
  const t = v.trim();
  return /^(['"]).*\1$/.test(t) ? t.slice(1, -1) : t;
}
