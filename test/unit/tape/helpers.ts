// Shared by the tape tests: a temp dir, signed requests for the simulator, and tiny tape builders.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../../src/core/clock.js';
import type { HttpMethod, HttpRequest } from '../../../src/core/ports.js';
import type { Market } from '../../../src/core/types.js';
import { endpointFor } from '../../../src/exchange/endpoints.js';
import { sign } from '../../../src/exchange/sign.js';
import { LEVEL_CELLS, TRADE_CELLS, type RecordedMarketEvent } from '../../../src/sim/types.js';
import type { RecordedFailure, TapeCall } from '../../../src/tape/index.js';

export const T0 = 1_700_000_000_000;

export function tempDir(): { dir: string; path: (name: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-tape-'));
  return { dir, path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A request as the executor builds it: X-CH headers signed over the exact query and body. */
export function signedRequest(
  creds: { apiKey: string; apiSecret: string },
  clock: Clock,
  method: HttpMethod,
  path: string,
  params: { query?: string; body?: string } = {},
): HttpRequest {
  const query = params.query ?? '';
  const body = params.body ?? '';
  const ts = String(clock.now());
  const headers: Record<string, string> = {
    'X-CH-APIKEY': creds.apiKey,
    'X-CH-TS': ts,
    'X-CH-SIGN': sign(creds.apiSecret, { timestamp: ts, method, path, query, body }),
  };
  if (method === 'POST') headers['Content-Type'] = 'application/json';
  return { method, path, query, body, headers };
}

/** A recorded call (a 200 answer unless told otherwise), for hand-written tapes. */
export function call(
  seq: number,
  market: Market,
  method: HttpMethod,
  path: string,
  o: { query?: string; body?: string; at?: number; ms?: number; response?: string; status?: number; headers?: Record<string, string>; failure?: RecordedFailure } = {},
): TapeCall {
  const base = {
    kind: 'call',
    seq,
    market,
    endpoint: endpointFor(method, path)?.id ?? null,
    at: o.at ?? T0 + seq * 100,
    ms: o.ms ?? 5,
    request: { method, path, query: o.query ?? '', body: o.body ?? '', headers: o.headers ?? {} },
  } as const;
  if (o.failure) return { ...base, failure: o.failure };
  return { ...base, response: { status: o.status ?? 200, headers: { 'content-type': 'application/json' }, body: o.response ?? '{}' } };
}

/** The `trade` events a `tradeCells` event (the event cache's packed form) stands for, in order. */
export function tradesOf(e: Extract<RecordedMarketEvent, { type: 'tradeCells' }>): Array<Extract<RecordedMarketEvent, { type: 'trade' }>> {
  const out: Array<Extract<RecordedMarketEvent, { type: 'trade' }>> = [];
  const c = e.cells;
  for (let i = 0; i < c.length; i += TRADE_CELLS) {
    out.push({ type: 'trade', symbol: e.symbol, price: { digits: c[i]!, places: c[i + 1]! }, qty: { digits: c[i + 2]!, places: c[i + 3]! }, side: c[i + 4] === 1 ? 'BUY' : 'SELL' });
  }
  return out;
}

/** The `book` event a `bookCells` event (the event cache's packed form) stands for. */
export function bookOf(e: Extract<RecordedMarketEvent, { type: 'bookCells' }>): Extract<RecordedMarketEvent, { type: 'book' }> {
  const levels: Array<Extract<RecordedMarketEvent, { type: 'book' }>['bids'][number]> = [];
  const c = e.cells;
  for (let i = 0; i < c.length; i += LEVEL_CELLS) levels.push([{ digits: c[i]!, places: c[i + 1]! }, { digits: c[i + 2]!, places: c[i + 3]! }]);
  return { type: 'book', symbol: e.symbol, bids: levels.slice(0, e.bids), asks: levels.slice(e.bids) };
}
