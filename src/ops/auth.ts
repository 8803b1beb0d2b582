// Who may read the ops endpoint. On loopback without a token: anyone on this machine, but only
// through a loopback Host header, so a web page elsewhere cannot read it by DNS rebinding. With
// a token (required off loopback, see config http.host): an `Authorization: Bearer` header
// (Prometheus, curl), or a cookie set once the browser opened /?token=... (the page's own
// requests and its event stream then carry it). /healthz stays open for probes: it tells only
// whether the daemon is healthy and why not.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopback } from '../core/net.js';

export const COOKIE = 'sluice_ops';

export type AuthVerdict =
  | { ok: true }
  /** The token was given in the query: set the cookie and send the browser to the URL without it. */
  | { ok: true; setCookie: string; redirect: string }
  | { ok: false; status: 401 | 403; error: string };

const digest = (text: string) => createHash('sha256').update(text).digest();
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

export function authorize(req: IncomingMessage, url: URL, token: string | undefined): AuthVerdict {
  if (url.pathname === '/healthz') return { ok: true };
  if (token === undefined) {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (isLoopback(host)) return { ok: true };
    return { ok: false, status: 403, error: 'this endpoint answers loopback addresses only (set a token to serve others: see http.host in the config)' };
  }
  // The cookie holds a digest of the token, never the token itself.
  const cookieValue = createHash('sha256').update(`sluice-ops-cookie:${token}`).digest('hex');
  const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined && same(bearer, token)) return { ok: true };
  const cookie = (req.headers.cookie ?? '').split(/;\s*/).find((c) => c.startsWith(`${COOKIE}=`))?.slice(COOKIE.length + 1);
  if (cookie !== undefined && same(cookie, cookieValue)) return { ok: true };
  const query = url.searchParams.get('token');
  if (query !== null && same(query, token)) {
    url.searchParams.delete('token');
    return { ok: true, setCookie: `${COOKIE}=${cookieValue}; Path=/; HttpOnly; SameSite=Strict`, redirect: `${url.pathname}${url.search}` };
  }
  return { ok: false, status: 401, error: 'token required: send Authorization: Bearer <token>, or open /?token=<token> once in a browser' };
}
