// A minimal hand-built venue client for the simulator's conformance suite: node:http and
// node:crypto only, on purpose not sluice's client or signer, so one bug cannot hide in both.
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { ManualClock } from '../../src/core/clock.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/index.js';

export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: any;
}

/** What a dropped connection looks like to the client. */
export class NoAnswer extends Error {}

export function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

export function send(url: string, method: string, target: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, method, path: target, headers: { ...headers, connection: 'close' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => reject(new NoAnswer(e.message)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
      });
    });
    req.on('error', (e) => reject(new NoAnswer(e.message)));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export interface SignedOptions {
  query?: string;
  /** A string is sent byte for byte; an object is JSON.stringify'd. */
  body?: string | object;
  ts?: number | string;
  /** Replace the computed signature. */
  sign?: string;
  /** Sign this text instead of the correct pre-hash. */
  signText?: string;
  omit?: Array<'key' | 'ts' | 'sign' | 'content-type'>;
  key?: string;
  contentType?: string;
}

export class TestClient {
  constructor(
    readonly url: string,
    readonly apiKey: string,
    private readonly apiSecret: string,
    private readonly now: () => number,
  ) {}

  get(path: string, query = ''): Promise<Raw> {
    return send(this.url, 'GET', query ? `${path}?${query}` : path, {});
  }

  signed(method: 'GET' | 'POST', path: string, o: SignedOptions = {}): Promise<Raw> {
    const query = o.query ?? '';
    const body = o.body === undefined ? (method === 'POST' ? '{}' : '') : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    const ts = String(o.ts ?? this.now());
    const text = o.signText ?? `${ts}${method}${path}${query ? `?${query}` : ''}${method === 'POST' ? body : ''}`;
    const headers: Record<string, string> = {
      'X-CH-APIKEY': o.key ?? this.apiKey,
      'X-CH-TS': ts,
      'X-CH-SIGN': o.sign ?? hmacHex(this.apiSecret, text),
    };
    if (method === 'POST') headers['Content-Type'] = o.contentType ?? 'application/json';
    for (const h of o.omit ?? []) {
      if (h === 'key') delete headers['X-CH-APIKEY'];
      if (h === 'ts') delete headers['X-CH-TS'];
      if (h === 'sign') delete headers['X-CH-SIGN'];
      if (h === 'content-type') delete headers['Content-Type'];
    }
    return send(this.url, method, query ? `${path}?${query}` : path, headers, method === 'POST' ? body : undefined);
  }

  /** A signed call that must succeed; returns the parsed body. */
  async ok(method: 'GET' | 'POST', path: string, o: SignedOptions = {}): Promise<any> {
    const r = await this.signed(method, path, o);
    if (r.status !== 200) throw new Error(`${method} ${path} -> ${r.status} ${r.body}`);
    return r.json;
  }
}

export interface Venue {
  server: SimServer;
  clock: ManualClock;
  client: TestClient;
}

export const T0 = 1_700_000_000_000;

/**
 * A simulator on 127.0.0.1 port 0 with a manual clock, and a client for it. The venue-rule
 * suites read answers in the lenient shapes (string decimals and ids) unless they ask for a
 * profile: the rules are the same in both, and sim-strict.test.ts checks the strict shapes.
 */
export async function startVenue(opts: SimServerOptions = {}): Promise<Venue> {
  const clock = (opts.clock as ManualClock | undefined) ?? new ManualClock(T0);
  const server = await startSimServer({ port: 0, seed: 1, profile: 'lenient', ...opts, clock });
  return { server, clock, client: new TestClient(server.url, server.apiKey, server.apiSecret, () => clock.now()) };
}
