// The daemon's local HTTP endpoint on node:http: four read-only routes need no framework.
// It only reads from the OpsSource, so it can never change what the daemon does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../core/clock.js';
import type { Metrics } from './metrics.js';
import { STATUS_PAGE, STATUS_PAGE_CSP } from './page.js';
import type { OpsLog, OpsSource } from './types.js';

export interface OpsServerOptions {
  /** Config `http.host`; keep it on loopback unless something in front authenticates. */
  host: string;
  /** Config `http.port`; 0 picks a free port. */
  port: number;
  source: OpsSource;
  metrics: Metrics;
  now?: () => number;
  log?: OpsLog;
}

export interface OpsServer {
  /** Base URL, e.g. http://127.0.0.1:9464 */
  url: string;
  close(): Promise<void>;
}

export interface HealthVerdict {
  status: 'ok' | 'starting' | 'unhealthy';
  reasons: string[];
}

export const STARTING_REASON = 'starting: reconciling with the venue';

/** Healthy only when ready, not banned, not halted and the venue answers; names every reason otherwise. */
export function healthOf(source: OpsSource, now: number): HealthVerdict {
  const reasons: string[] = [];
  const ready = source.ready();
  if (!ready) reasons.push(STARTING_REASON);
  const h = source.health();
  if (h.bannedUntil > now) reasons.push(`banned by the venue until ${new Date(h.bannedUntil).toISOString()}`);
  if (h.killSwitch === 'halted') reasons.push('kill switch is halted');
  if (!h.venueReachable) {
    reasons.push(`venue unreachable (last answer ${h.lastVenueOkAt === null ? 'never' : new Date(h.lastVenueOkAt).toISOString()})`);
  }
  return { status: !ready ? 'starting' : reasons.length ? 'unhealthy' : 'ok', reasons };
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function startOpsServer(opts: OpsServerOptions): Promise<OpsServer> {
  const now = opts.now ?? systemClock.now;

  async function route(path: string): Promise<{ status: number; type: string; body: string; headers?: Record<string, string> }> {
    switch (path) {
      case '/metrics':
        return { status: 200, type: opts.metrics.contentType, body: await opts.metrics.text() };
      case '/healthz': {
        const verdict = healthOf(opts.source, now());
        const body = verdict.status === 'ok' ? { status: 'ok' } : verdict;
        return { status: verdict.status === 'ok' ? 200 : 503, type: JSON_TYPE, body: JSON.stringify(body) };
      }
      case '/status.json':
        return { status: 200, type: JSON_TYPE, body: JSON.stringify(opts.source.status()) };
      case '/':
        return { status: 200, type: 'text/html; charset=utf-8', body: STATUS_PAGE, headers: { 'content-security-policy': STATUS_PAGE_CSP } };
      default:
        return { status: 404, type: JSON_TYPE, body: JSON.stringify({ error: `not found: ${path}` }) };
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const common = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...common, allow: 'GET, HEAD', 'content-type': JSON_TYPE }).end(JSON.stringify({ error: `method ${req.method} not allowed` }));
      return;
    }
    let answer;
    try {
      answer = await route(new URL(req.url ?? '/', 'http://ops.invalid').pathname);
    } catch (err) {
      // A bug in a source must not take the endpoint (or the daemon) down; the body stays
      // generic because error texts are not ours to publish.
      opts.log?.warn({ err, path: req.url }, 'ops endpoint failed to answer');
      answer = { status: 500, type: JSON_TYPE, body: JSON.stringify({ error: 'internal error' }) };
    }
    res.writeHead(answer.status, { ...common, ...answer.headers, 'content-type': answer.type, 'content-length': Buffer.byteLength(answer.body) });
    res.end(req.method === 'HEAD' ? undefined : answer.body);
  }

  const server = createServer((req, res) => void handle(req, res));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      const { address, port } = server.address() as AddressInfo;
      const host = address.includes(':') ? `[${address}]` : address;
      resolve({
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            // A browser's keep-alive connection would otherwise hold close() open.
            server.closeAllConnections();
          }),
      });
    });
  });
}
