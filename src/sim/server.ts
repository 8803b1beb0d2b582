// The HTTP adapter: node:http on 127.0.0.1, raw query and body passed through untouched (they
// are what the client signed). A SimFault destroys the socket without an answer.
import { amend } from '../core/amend.js';
import { errorText } from '../core/errors.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { HttpRequest } from '../core/ports.js';
import { SimExchange, SimFault, type SimOptions } from './exchange.js';

export { PREHISTORY_MS } from './exchange.js';

export interface SimServerOptions extends SimOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Serve an exchange built elsewhere instead of a new one. */
  exchange?: SimExchange;
  /** A new exchange's made-up past (SimExchange.prehistory); none by default. */
  prehistoryMs?: number;
}

export interface SimServer {
  url: string;
  port: number;
  apiKey: string;
  apiSecret: string;
  exchange: SimExchange;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

export async function startSimServer(opts: SimServerOptions = {}): Promise<SimServer> {
  const exchange = opts.exchange ?? new SimExchange(opts);
  if (!opts.exchange && opts.prehistoryMs) exchange.prehistory(opts.prehistoryMs);
  const sockets = new Set<Socket>();
  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    serve(exchange, req, res).catch((e: unknown) => {
      // A bug in the simulator: say so loudly rather than look like a network fault.
      if (res.headersSent) return res.destroy();
      const body = JSON.stringify({ code: -1000, msg: `simulator error: ${errorText(e)}` });
      res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    apiKey: exchange.apiKey,
    apiSecret: exchange.apiSecret,
    exchange,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}

async function serve(exchange: SimExchange, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) {
      res.destroy();
      return;
    }
    chunks.push(chunk as Buffer);
  }
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const method = req.method === 'GET' || req.method === 'POST' ? req.method : (req.method as 'GET');
  const request: HttpRequest = {
    method,
    path: q < 0 ? target : target.slice(0, q),
    query: q < 0 ? '' : target.slice(q + 1),
    body: Buffer.concat(chunks).toString('utf8'),
    headers,
  };
  const out = await exchange.handle(request, { remote: req.socket.remoteAddress ?? 'unknown' });
  if (out instanceof SimFault) {
    // No answer at all: the client sees the connection drop.
    req.socket.destroy();
    return;
  }
  res.writeHead(out.status, amend(out.headers, { 'content-length': Buffer.byteLength(out.body) }));
  res.end(out.body);
}
