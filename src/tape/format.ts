// The tape format: JSONL, a header line, then one line per exchange call. Lines are plain
// JSON so a tape can be read with grep and jq; bodies stay the exact text the venue sent, so
// replay hands the executor the same bytes and decimals never pass through a double.
import { amend } from '../core/amend.js';
import { SluiceError } from '../core/errors.js';
import { TransportFailure, type HttpMethod, type HttpResponse } from '../core/ports.js';
import type { Market } from '../core/types.js';
import type { EndpointId } from '../exchange/endpoints.js';
import { ResponseTooLargeError } from '../exchange/transport/errors.js';

export const TAPE_VERSION = 1;

export interface TapeHeader {
  tape: typeof TAPE_VERSION;
  kind: 'header';
  /** Epoch ms the recording started. */
  startedAt: number;
  /** Free-form (the config, the version...), redacted like every other line. */
  meta: Record<string, unknown>;
}

export interface RecordedRequest {
  method: HttpMethod;
  path: string;
  query: string;
  body: string;
  /** As sent, minus the key and the signature. */
  headers: Record<string, string>;
}

export interface RecordedResponse {
  status: number;
  /** Only content-type and retry-after: the rest is noise a replay must not depend on. */
  headers: Record<string, string>;
  body: string;
}

/** The transport threw TransportFailure: no HTTP answer arrived, or one too large to read. */
export interface RecordedFailure {
  message: string;
  maybeDelivered: boolean;
  /** An answer whose body was over the cap (ResponseTooLargeError): its status still classifies it (a 429 pauses, a 5xx is temporary). */
  tooLarge?: { maxBytes: number; status: number; headers: Record<string, string> };
}

interface CallBase {
  kind: 'call';
  /** Order in which requests left (lines are written when the answer arrives, so may interleave). */
  seq: number;
  market: Market;
  /** null for a route the endpoint table does not know. */
  endpoint: EndpointId | null;
  /** Local ms the request left. */
  at: number;
  /** Local ms until the answer (or failure) came. */
  ms: number;
  request: RecordedRequest;
}

export type TapeCall = (CallBase & { response: RecordedResponse }) | (CallBase & { failure: RecordedFailure });

export type TapeLine = TapeHeader | TapeCall;

export interface Tape {
  header: TapeHeader;
  /** In file order (the order answers arrived); `seq` gives the order requests left. */
  calls: TapeCall[];
}

/** A tape that cannot be read; names the file and the 1-based line. */
export class TapeFormatError extends SluiceError {
  readonly code = 'TAPE_MALFORMED';
  constructor(
    readonly file: string,
    readonly line: number,
    problem: string,
  ) {
    super(`${file}:${line}: ${problem}`);
  }
}

/** Request headers that authenticate: never written, and never compared on replay. */
export const SECRET_REQUEST_HEADERS: ReadonlySet<string> = new Set(['x-ch-apikey', 'x-ch-sign']);
const KEPT_RESPONSE_HEADERS: ReadonlySet<string> = new Set(['content-type', 'retry-after']);
export const REDACTED = '[redacted]';

export function recordRequestHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !SECRET_REQUEST_HEADERS.has(k.toLowerCase())));
}

export function recordResponse(res: HttpResponse): RecordedResponse {
  return { status: res.status, headers: keptHeaders(res.headers), body: res.body };
}

export function recordFailure(e: TransportFailure): RecordedFailure {
  const failure = { message: e.message, maybeDelivered: e.maybeDelivered };
  return e instanceof ResponseTooLargeError ? amend(failure, { tooLarge: { maxBytes: e.maxBytes, status: e.status, headers: keptHeaders(e.headers) } }) : failure;
}

/** What a replay throws for a recorded failure: the same class, carrying what the executor classifies by. */
export function replayFailure(f: RecordedFailure): TransportFailure {
  return f.tooLarge ? new ResponseTooLargeError(f.tooLarge.maxBytes, f.tooLarge.status, { ...f.tooLarge.headers }) : new TransportFailure(f.message, f.maybeDelivered);
}

function keptHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => KEPT_RESPONSE_HEADERS.has(k.toLowerCase())));
}

/**
 * Replaces every occurrence of a secret in every string (keys included) by [redacted]. The
 * second line of defence: a key echoed in an error body or pasted into the config meta must
 * not reach the disk either. Empty secrets are ignored (they would match everywhere).
 */
export function redact<T>(value: T, secrets: readonly string[]): T {
  const list = secrets.filter((s) => s.length > 0);
  if (list.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return list.reduce((s, secret) => (s.includes(secret) ? s.split(secret).join(REDACTED) : s), v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [walk(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

export function encodeLine(line: TapeLine): string {
  return JSON.stringify(line);
}

/** Parses and checks one line; `lineNo` is 1-based. The first line must be the header. */
export function decodeLine(text: string, file: string, lineNo: number): TapeLine {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return fail(file, lineNo, `not JSON (${(e as Error).message})`);
  }
  if (!isObj(v)) return fail(file, lineNo, 'must be a JSON object');
  if (lineNo === 1) {
    if (v.kind !== 'header') return fail(file, lineNo, `the first line must be the header, got kind ${JSON.stringify(v.kind)}`);
    if (v.tape !== TAPE_VERSION) return fail(file, lineNo, `tape version ${JSON.stringify(v.tape)} is not ${TAPE_VERSION} (written by another version of sluice?)`);
    if (!isInt(v.startedAt)) return fail(file, lineNo, 'header.startedAt must be an integer (epoch ms)');
    if (!isObj(v.meta)) return fail(file, lineNo, 'header.meta must be an object');
    return v as unknown as TapeHeader;
  }
  if (v.kind !== 'call') return fail(file, lineNo, `kind must be "call", got ${JSON.stringify(v.kind)}`);
  if (!isInt(v.seq)) fail(file, lineNo, 'seq must be an integer');
  if (v.market !== 'spot' && v.market !== 'futures') fail(file, lineNo, 'market must be "spot" or "futures"');
  if (v.endpoint !== null && typeof v.endpoint !== 'string') fail(file, lineNo, 'endpoint must be a string or null');
  if (!isInt(v.at) || !isInt(v.ms)) fail(file, lineNo, 'at and ms must be integers');
  const r = v.request;
  if (!isObj(r) || (r.method !== 'GET' && r.method !== 'POST') || !isStr(r.path) || !isStr(r.query) || !isStr(r.body) || !isStrMap(r.headers)) {
    fail(file, lineNo, 'request must be {method: GET|POST, path, query, body, headers}');
  }
  if (isObj(v.response)) {
    const s = v.response;
    if (!isInt(s.status) || !isStrMap(s.headers) || !isStr(s.body)) fail(file, lineNo, 'response must be {status, headers, body}');
  } else if (isObj(v.failure)) {
    const f = v.failure;
    if (!isStr(f.message) || typeof f.maybeDelivered !== 'boolean') fail(file, lineNo, 'failure must be {message, maybeDelivered}');
    const big = f.tooLarge;
    if (big !== undefined && !(isObj(big) && isInt(big.maxBytes) && isInt(big.status) && isStrMap(big.headers))) fail(file, lineNo, 'failure.tooLarge must be {maxBytes, status, headers}');
  } else fail(file, lineNo, 'a call needs a response or a failure');
  return v as unknown as TapeCall;
}

// A function, not a closure per line: tsx names each closure it makes (a defineProperty a line).
function fail(file: string, lineNo: number, problem: string): never {
  throw new TapeFormatError(file, lineNo, problem);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isStrMap = (v: unknown): boolean => isObj(v) && Object.values(v).every(isStr);
