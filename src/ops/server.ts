// The daemon's local HTTP endpoint on node:http: a few read-only routes need no framework.
// It only reads from the OpsSource, so it can never change what the daemon does.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHARTS_SCRIPT } from '../charts/client.js';
import { chartLibraryPath } from '../charts/library.js';
import { systemClock } from '../core/clock.js';
import { authorize } from './auth.js';
import { DASHBOARD_SCRIPT } from './dashboard.js';
import type { Metrics } from './metrics.js';
import { STATUS_PAGE, STATUS_PAGE_CSP } from './page.js';
import type { OpsLog, OpsSource } from './types.js';

export interface OpsServerOptions {
  /** Config `http.host`; loopback unless a token is set (the config refuses it otherwise). */
  host: string;
  /** Config `http.port`; 0 picks a free port. */
  port: number;
  source: OpsSource;
  metrics: Metrics;
  /** Required on every route but /healthz when set (SLUICE_HTTP_TOKEN or http.tokenFile). */
  token?: string;
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

/** Healthy only when ready, not banned, not halted, the venue answers and the journal takes writes; names every reason otherwise. */
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
  if (h.journalFailure) reasons.push(`journal takes no writes since ${new Date(h.journalFailure.since).toISOString()}, so nothing is placed: ${h.journalFailure.message}`);
  return { status: !ready ? 'starting' : reasons.length ? 'unhealthy' : 'ok', reasons };
}

const JSON_TYPE = 'application/json; charset=utf-8';
const JS_TYPE = 'text/javascript; charset=utf-8';

interface Answer {
  status: number;
  type: string;
  body: string;
  headers?: Record<string, string>;
}

export function startOpsServer(opts: OpsServerOptions): Promise<OpsServer> {
  const now = opts.now ?? systemClock.now;
  // Read at start, so a missing node_modules install fails here and not on a browser's first visit.
  const library = readFileSync(chartLibraryPath(), 'utf8');
  const streams = new Set<() => void>();

  async function route(path: string): Promise<Answer> {
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
      case '/vendor/lightweight-charts.js':
        return { status: 200, type: JS_TYPE, body: library };
      case '/charts.js':
        return { status: 200, type: JS_TYPE, body: CHARTS_SCRIPT };
      case '/dashboard.js':
        return { status: 200, type: JS_TYPE, body: DASHBOARD_SCRIPT };
      case '/favicon.ico':
        // Browsers ask for it on their own; there is none, and a 404 would read as an error.
        return { status: 204, type: 'image/x-icon', body: '' };
      default:
        return { status: 404, type: JSON_TYPE, body: JSON.stringify({ error: `not found: ${path}` }) };
    }
  }

  /** Server-sent events: everything kept first, then what each new sample adds, with the state of that moment. */
  function stream(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    let cursor: number | undefined;
    const send = () => {
      const history = opts.source.history(cursor);
      cursor = history.cursor;
      res.write(`data: ${JSON.stringify({ status: opts.source.status(), health: opts.source.health(), history })}\n\n`);
    };
    const stop = opts.source.onSample(() => {
      try {
        send();
      } catch (err) {
        opts.log?.warn({ err }, 'ops event stream failed to send');
      }
    });
    const end = () => {
      stop();
      streams.delete(end);
      res.end();
    };
    streams.add(end);
    res.on('close', end);
    try {
      send();
    } catch (err) {
      opts.log?.warn({ err }, 'ops event stream failed to start');
      end();
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const common = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    const reply = (a: Answer) => {
      res.writeHead(a.status, { ...common, ...a.headers, 'content-type': a.type, 'content-length': Buffer.byteLength(a.body) });
      res.end(req.method === 'HEAD' ? undefined : a.body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      reply({ status: 405, type: JSON_TYPE, body: JSON.stringify({ error: `method ${req.method} not allowed` }), headers: { allow: 'GET, HEAD' } });
      return;
    }
    const url = new URL(req.url ?? '/', 'http://ops.invalid');
    const auth = authorize(req, url, opts.token);
    if (!auth.ok) {
      reply({ status: auth.status, type: JSON_TYPE, body: JSON.stringify({ error: auth.error }), headers: auth.status === 401 ? { 'www-authenticate': 'Bearer' } : {} });
      return;
    }
    if ('redirect' in auth) {
      reply({ status: 303, type: 'text/plain; charset=utf-8', body: 'signed in\n', headers: { location: auth.redirect, 'set-cookie': auth.setCookie } });
      return;
    }
    let answer: Answer;
    try {
      if (url.pathname === '/events' && req.method === 'GET') return stream(res);
      answer = await route(url.pathname);
    } catch (err) {
      // A bug in a source must not take the endpoint (or the daemon) down; the body stays
      // generic because error texts are not ours to publish. The path only: a query may hold the token.
      opts.log?.warn({ err, path: url.pathname }, 'ops endpoint failed to answer');
      answer = { status: 500, type: JSON_TYPE, body: JSON.stringify({ error: 'internal error' }) };
    }
    reply(answer);
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
            for (const end of [...streams]) end();
            server.close((err) => (err ? fail(err) : done()));
            // A browser's keep-alive connection would otherwise hold close() open.
            server.closeAllConnections();
          }),
      });
    });
  });
}
