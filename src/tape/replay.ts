// Replays a tape as a Transport. Each request must be the next recorded one of its route
// (market, method, path), first in first out; routes are queued separately because
// concurrent calls to different endpoints may leave in another order on a rerun. Requests
// are compared after normalisation: parameters, not bytes, minus what changes every run
// (timestamps, key, signature). Any difference is a TapeMismatchError with a readable diff.
import { TapeMismatchError } from '../core/errors.js';
import type { HttpRequest, HttpResponse, Transport } from '../core/ports.js';
import type { Market } from '../core/types.js';
import { endpointFor } from '../exchange/endpoints.js';
import { parseJsonLossless } from '../exchange/json.js';
import { replayFailure, SECRET_REQUEST_HEADERS, type RecordedRequest, type TapeCall } from './format.js';

/** Parameters that change on every run, wherever they appear (query or body). */
export const VOLATILE_PARAMS: ReadonlySet<string> = new Set(['timestamp']);
/** Headers that change on every run or are never recorded. */
const IGNORED_HEADERS: ReadonlySet<string> = new Set(['x-ch-ts', ...SECRET_REQUEST_HEADERS]);

const ABSENT = '(absent)';

export class ReplayTransport implements Transport {
  private readonly queues = new Map<string, TapeCall[]>();
  /** Requests answered so far per route: the index reported in a mismatch. */
  private readonly served = new Map<string, number>();

  /**
   * `wait` (a clock's sleep) lets the recorded duration of each call pass before its answer,
   * so a replay on a virtual clock sees answers at the same moments the recording did.
   */
  constructor(
    calls: Iterable<TapeCall>,
    readonly market: Market,
    private readonly wait?: (ms: number) => Promise<void>,
  ) {
    // Sorted by seq: lines are written as answers arrive, so two overlapping calls to one
    // endpoint may sit in the file in the other order than they left.
    const mine = [...calls].filter((c) => c.market === market).sort((a, b) => a.seq - b.seq);
    for (const c of mine) {
      const key = routeKey(c.request);
      const q = this.queues.get(key);
      if (q) q.push(c);
      else this.queues.set(key, [c]);
    }
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    const key = routeKey(request);
    const index = this.served.get(key) ?? 0;
    const name = endpointFor(request.method, request.path)?.id ?? `${this.market} endpoint`;
    const label = `${name} request #${index} (${request.method} ${request.path})`;
    const recorded = this.queues.get(key)?.[0];
    if (!recorded) throw new TapeMismatchError(`${label}: not recorded (the tape holds ${index} such request${index === 1 ? '' : 's'})`);
    const diff = diffRequests(recorded.request, request);
    if (diff.length > 0) throw new TapeMismatchError([`${label}, recorded as seq ${recorded.seq}:`, ...diff].join('\n'));
    this.queues.get(key)!.shift();
    this.served.set(key, index + 1);
    if (this.wait && recorded.ms > 0) await this.wait(recorded.ms);
    if ('failure' in recorded) throw replayFailure(recorded.failure);
    return { status: recorded.response.status, headers: { ...recorded.response.headers }, body: recorded.response.body };
  }

  /** Recorded calls of this market not asked for yet, in the order they left. */
  remaining(): TapeCall[] {
    return [...this.queues.values()].flat().sort((a, b) => a.seq - b.seq);
  }

  /** Throws TapeMismatchError when the rerun sent fewer requests than the tape holds (up to `until`, a local time, when given). */
  assertComplete(until = Number.POSITIVE_INFINITY): void {
    const left = this.remaining().filter((c) => c.at <= until);
    if (left.length === 0) return;
    const lines = left.slice(0, 10).map((c) => `- seq ${c.seq}: ${c.endpoint ?? routeKey(c.request)} ${c.request.method} ${c.request.path}${c.request.query ? `?${c.request.query}` : ''}`);
    if (left.length > 10) lines.push(`  ... and ${left.length - 10} more`);
    throw new TapeMismatchError([`${this.market}: ${left.length} recorded request${left.length === 1 ? ' was' : 's were'} never sent:`, ...lines].join('\n'));
  }
}

function routeKey(r: { method: string; path: string }): string {
  return `${r.method} ${r.path}`;
}

/**
 * The fields that differ, as `- recorded` / `+ now` line pairs, e.g.
 *   - body.price: "30000"
 *   + body.price: "30001"
 */
export function diffRequests(recorded: RecordedRequest | HttpRequest, now: HttpRequest): string[] {
  const a = normalise(recorded);
  const b = normalise(now);
  const out: string[] = [];
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(field) ?? ABSENT;
    const y = b.get(field) ?? ABSENT;
    if (x !== y) out.push(`- ${field}: ${x}`, `+ ${field}: ${y}`);
  }
  return out;
}

/** Flat field -> JSON text of its value, e.g. "query.symbol" -> "\"BTCUSDT\"". */
function normalise(r: RecordedRequest | HttpRequest): Map<string, string> {
  const fields = new Map<string, string>();
  const query = new URLSearchParams(r.query);
  for (const k of new Set(query.keys())) {
    if (VOLATILE_PARAMS.has(k)) continue;
    const all = query.getAll(k);
    fields.set(`query.${k}`, JSON.stringify(all.length === 1 ? all[0] : all));
  }
  if (r.body.trim() !== '') {
    let body: unknown;
    try {
      body = parseJsonLossless(r.body);
    } catch {
      // Not JSON: only the exact text can be compared.
      fields.set('body', JSON.stringify(r.body));
      body = undefined;
    }
    if (body !== undefined) flatten(body, 'body', fields);
  }
  for (const [k, v] of Object.entries(r.headers)) {
    const name = k.toLowerCase();
    if (!IGNORED_HEADERS.has(name)) fields.set(`header.${name}`, JSON.stringify(v));
  }
  return fields;
}

function flatten(v: unknown, path: string, into: Map<string, string>): void {
  if (Array.isArray(v) && v.length > 0) v.forEach((x, i) => flatten(x, `${path}[${i}]`, into));
  else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) {
    for (const [k, x] of Object.entries(v)) if (!VOLATILE_PARAMS.has(k)) flatten(x, `${path}.${k}`, into);
  } else into.set(path, JSON.stringify(v));
}
