// The live transport: an undici Pool per venue origin, keep-alive, and timeouts on every phase.
import { Pool, errors as undiciErrors } from 'undici';
import { TransportFailure, type HttpRequest, type HttpResponse, type Transport } from '../../core/ports.js';
import { ResponseTooLargeError } from './errors.js';

export { ResponseTooLargeError };

export interface HttpTransportOptions {
  /** Origin such as https://openapi.example.com or http://127.0.0.1:8080. */
  baseUrl: string;
  /** Most requests in flight at once (one per connection); more wait in undici's queue. Default DEFAULT_CONNECTIONS. */
  connections?: number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /**
   * The whole request, answer included. The body timeout only bounds the gap between two
   * chunks, so a venue trickling its answer a byte at a time could otherwise hold a call forever.
   */
  totalTimeoutMs?: number;
  /** Bodies above this are refused: a venue never needs megabytes to answer us. */
  maxResponseBytes?: number;
}

/**
 * A connection carries one request per round trip (no pipelining: a venue's proxies seldom
 * allow it), so the pool, not the venue's limits, would bound the rate far from the venue:
 * measured at saturation with 100-200 ms each way, 8 connections carried 88 orders/s of the
 * venue's 300, 64 carried 258 (bench/RESULTS.md, Engine). 64 carry the order endpoints' ceiling
 * (75 requests/s) up to round trips of about 0.8 s.
 */
export const DEFAULT_CONNECTIONS = 64;

export class HttpTransport implements Transport {
  private readonly pool: Pool;
  private readonly maxResponseBytes: number;
  private readonly totalTimeoutMs: number;
  private readonly basePath: string;

  constructor(opts: HttpTransportOptions) {
    const url = new URL(opts.baseUrl);
    this.basePath = url.pathname.replace(/\/$/, '');
    this.maxResponseBytes = opts.maxResponseBytes ?? 4 * 1024 * 1024;
    this.totalTimeoutMs = opts.totalTimeoutMs ?? 20_000;
    this.pool = new Pool(url.origin, {
      connections: opts.connections ?? DEFAULT_CONNECTIONS,
      pipelining: 1,
      connectTimeout: opts.connectTimeoutMs ?? 5_000,
      headersTimeout: opts.headersTimeoutMs ?? 10_000,
      bodyTimeout: opts.bodyTimeoutMs ?? 10_000,
      keepAliveTimeout: 30_000,
    });
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const path = `${this.basePath}${req.path}${req.query ? `?${req.query}` : ''}`;
    const deadline = AbortSignal.timeout(this.totalTimeoutMs);
    const late = `no complete answer within ${this.totalTimeoutMs} ms`;
    // Names go out as the caller spells them (the contract calls X-CH-APIKEY case-sensitive; HTTP
    // does not, but a venue may). Content-Type is matched without case: the caller's replaces the
    // default, never goes out beside it as a second one.
    const given = req.headers ?? {};
    const sent: Record<string, string> = Object.keys(given).some((k) => k.toLowerCase() === 'content-type') ? {} : { 'Content-Type': 'application/json' };
    for (const [k, v] of Object.entries(given)) sent[k] = v;
    let res;
    try {
      res = await this.pool.request({
        method: req.method,
        path,
        headers: sent,
        body: req.method === 'POST' ? req.body : undefined,
        signal: deadline,
      });
    } catch (err) {
      throw toTransportFailure(err, deadline.aborted ? late : undefined);
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    // A declared length over the cap is refused before a byte of the body is read.
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxResponseBytes) {
      // Abandoned on purpose: the abort error undici then emits has no other listener and
      // would otherwise take the process down.
      res.body.on('error', () => undefined);
      res.body.destroy();
      throw new ResponseTooLargeError(this.maxResponseBytes, res.statusCode, headers);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > this.maxResponseBytes) {
          // Stop reading at once: destroying the body closes the connection, so an endless
          // answer costs us at most maxResponseBytes plus one chunk, never all of it.
          res.body.destroy();
          throw new ResponseTooLargeError(this.maxResponseBytes, res.statusCode, headers);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (err) {
      if (err instanceof TransportFailure) throw err;
      // The status line arrived but the body did not (connection closed or stalled mid-body).
      throw toTransportFailure(err, `HTTP ${res.statusCode} answer cut off while reading the body${deadline.aborted ? `: ${late}` : ''}`);
    }
    return { status: res.statusCode, headers, body: Buffer.concat(chunks).toString('utf8') };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** Only a failure to connect proves the venue never saw the request. */
function toTransportFailure(err: unknown, context?: string): TransportFailure {
  const e = err as { code?: string; message?: string };
  const neverSent =
    err instanceof undiciErrors.ConnectTimeoutError ||
    e.code === 'ECONNREFUSED' ||
    e.code === 'ENOTFOUND' ||
    e.code === 'EAI_AGAIN' ||
    e.code === 'UND_ERR_CONNECT_TIMEOUT';
  // undici's codes are strings; an abort's DOMException has a number there and says more by name.
  const what = `${typeof e.code === 'string' ? e.code : ((err as Error | undefined)?.name ?? 'network error')}: ${e.message ?? String(err)}`;
  return new TransportFailure(context ? `${context} (${what})` : what, !neverSent, { cause: err });
}
