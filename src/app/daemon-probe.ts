// A look at a running daemon's ops endpoint (/status.json) on the config's http.host and
// http.port: what only the daemon knows (its limiter's use, the strategies it disabled while
// running). `sluice doctor` and `sluice status` ask; neither needs an answer.
import { opsEnabled, type Config } from '../config/index.js';

/** The running daemon's /status.json, or undefined when none answers (the endpoint off, a free port picked at start, nothing listening). */
export async function daemonStatus(config: Pick<Config, 'mode' | 'http'>, token: string | undefined): Promise<Record<string, unknown> | undefined> {
  const { host, port } = config.http;
  if (!opsEnabled(config) || port === 0) return undefined; // port 0: a free port picked at start, nothing to find it by
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  try {
    const res = await fetch(`http://${h.includes(':') ? `[${h}]` : h}:${port}/status.json`, { signal: AbortSignal.timeout(2000), ...(token !== undefined ? { headers: { authorization: `Bearer ${token}` } } : {}) });
    if (!res.ok) return undefined;
    const body: unknown = await res.json();
    return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The strategies a /status.json lists, each kept only if it reads (an id and whether it is enabled); undefined when it has no list. */
export function daemonStrategies(status: Record<string, unknown> | undefined): { id: string; enabled: boolean; disabledReason?: string }[] | undefined {
  const list = status?.strategies;
  if (!Array.isArray(list)) return undefined;
  return list.flatMap((s: unknown) => {
    if (s === null || typeof s !== 'object') return [];
    const { id, enabled, disabledReason } = s as Record<string, unknown>;
    if (typeof id !== 'string' || typeof enabled !== 'boolean') return [];
    return [typeof disabledReason === 'string' ? { id, enabled, disabledReason } : { id, enabled }];
  });
}
