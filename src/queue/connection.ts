// Where the queue is: `--queue redis://[user:password@]HOST[:PORT][/DB]` (rediss:// for TLS),
// checked at the door. A password in the URL is a secret: it goes to the connection and never
// into a message, a log line or job data (`display` is the URL without it).
import type { RedisOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { ConfigError } from '../core/errors.js';

export interface QueueAddress {
  /** The URL as it may be printed: any password replaced by ***. */
  display: string;
  /** ioredis options for this address, as BullMQ wants them for workers (maxRetriesPerRequest null). */
  options: RedisOptions;
}

const EXAMPLE = 'e.g. --queue redis://127.0.0.1:6379';

function problem(message: string): ConfigError {
  return new ConfigError([{ path: '--queue', message }], '--queue');
}

export function parseQueueUrl(text: string): QueueAddress {
  if (/^[^/:@]+:\d+$/.test(text)) throw problem(`needs the scheme: write redis://${text}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw problem(`must be a Redis URL like redis://HOST:PORT (${EXAMPLE})`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw problem(`must start with redis:// (or rediss:// for TLS), not ${url.protocol}// (${EXAMPLE})`);
  if (url.hostname === '') throw problem(`names no host (${EXAMPLE})`);
  const port = url.port === '' ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d+$/.test(dbText)) throw problem(`the path must be a database number (redis://HOST:PORT/0), not /${dbText}`);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const auth = username !== undefined || password !== undefined ? `${username ?? ''}${password !== undefined ? ':***' : ''}@` : '';
  const display = `${url.protocol}//${auth}${url.host}${dbText ? `/${dbText}` : ''}`;
  return {
    display,
    options: {
      host,
      port,
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
      ...(dbText !== '' ? { db: Number(dbText) } : {}),
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
      // Commands wait for a lost connection to come back instead of failing: a Redis restart
      // pauses a sweep, it does not end it.
      maxRetriesPerRequest: null,
      retryStrategy: (times: number) => Math.min(100 * times, 2000),
    },
  };
}

/**
 * A connection of our own (tapes, cancel flags, the up/down watch). Its errors are the
 * reconnects' (watchConnection tells them once); unheard, ioredis would print each one.
 */
export function connect(address: QueueAddress, name: string): Redis {
  const redis = new Redis({ ...address.options, connectionName: name });
  redis.on('error', () => undefined);
  return redis;
}

/** The code of a connection error (ECONNREFUSED, ETIMEDOUT, ...) or its message, never the address's password. */
export function connectionProblem(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && e.code !== '') return e.code;
  return typeof e?.message === 'string' ? e.message : String(err);
}

/**
 * Tells `onChange` when the connection goes down and when it is back, once each: ioredis
 * reports every failed reconnect, and a sweep's stderr should say it once, plainly.
 */
export function watchConnection(redis: Redis, onChange: (up: boolean, detail: string) => void): void {
  let up = true;
  redis.on('error', (err: unknown) => {
    if (!up) return;
    up = false;
    onChange(false, connectionProblem(err));
  });
  redis.on('ready', () => {
    if (up) return;
    up = true;
    onChange(true, 'ready');
  });
}

/**
 * Connects and checks the server once, failing fast with a message naming the address and the
 * fix: a sweep must not sit silently queued on a Redis that is not there. BullMQ needs Redis 5
 * or later and keys that are never evicted.
 */
export async function checkServer(address: QueueAddress, timeoutMs = 5000): Promise<{ version: string; evictionPolicy: string | null }> {
  const probe = new Redis({ ...address.options, maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true, connectTimeout: timeoutMs });
  let last = 'no answer';
  probe.on('error', (err: unknown) => (last = connectionProblem(err)));
  try {
    await probe.connect();
    const info = await probe.info('server');
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? '0';
    if (Number(version.split('.')[0]) < 5) throw new Error(`Redis at ${address.display} is version ${version}; the queue needs Redis 5 or later`);
    let evictionPolicy: string | null = null;
    try {
      const reply = (await probe.config('GET', 'maxmemory-policy')) as string[];
      evictionPolicy = reply[1] ?? null;
    } catch {
      // Managed Redis services may refuse CONFIG: the policy stays unknown.
    }
    return { version, evictionPolicy };
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('Redis at ')) throw err;
    throw new Error(`cannot reach Redis at ${address.display} (${last === 'no answer' ? connectionProblem(err) : last}): start redis-server there, or fix --queue`);
  } finally {
    probe.disconnect();
  }
}
