// pino JSON logs (pretty on a TTY). Secrets are removed twice: by key (redact) and by value
// (any occurrence of the API key or secret in the written line), so a secret that slips into
// a message or an error text is still never written.
import pino, { type Logger } from 'pino';
import { amend } from '../core/amend.js';

export interface LoggerOptions {
  level: string;
  pretty: boolean;
  /** Values that must never be written, e.g. the API key and secret. */
  secrets: readonly string[];
  destination?: pino.DestinationStream;
  /** The clock whose time each line carries (a backtest's virtual time); the system's by default. */
  now?: () => number;
}

const REDACT_PATHS = [
  'apiKey',
  'apiSecret',
  'secret',
  'credentials',
  '*.apiKey',
  '*.apiSecret',
  '*.secret',
  '*.credentials',
  'headers["X-CH-APIKEY"]',
  'headers["X-CH-SIGN"]',
  '*.headers["X-CH-APIKEY"]',
  '*.headers["X-CH-SIGN"]',
];

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[REDACTED]');
  return out;
}

/** Config `log.pretty`: `auto` is readable lines on a terminal and JSON lines otherwise (a file, journald, a pipe). */
export function prettyLogs(setting: 'auto' | boolean, stdoutIsTTY: boolean | undefined): boolean {
  return setting === 'auto' ? Boolean(stdoutIsTTY) : setting;
}

export function createLogger(opts: LoggerOptions): Logger {
  const secrets = opts.secrets.filter((s) => s.length >= 4);
  const options: pino.LoggerOptions = {
    level: opts.level,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    hooks: { streamWrite: (line) => scrub(line, secrets) },
    base: undefined,
    ...(opts.now ? { timestamp: () => `,"time":${opts.now!()}` } : {}),
  };
  if (opts.destination) return pino(options, opts.destination);
  if (opts.pretty) {
    // One line per event, fields after the message: a terminal shows a stream of events, not a tree.
    return pino(amend(options, { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true } } }));
  }
  return pino(options);
}
