// The venue's troubles a tape recorded, as incidents a backtest's simulator plays back at their
// recorded times (sim/troubles.ts answers them), so a backtest meets a recorded day's bans, 429s,
// 5xx and lost answers where the recording met them. From each call, by what its answer says,
// read with the client's own error table (exchange/errors.ts):
//   418                          ban: from the request's time until the end it stated (Retry-After
//                                or banUntil, as the client reads them) or, unstated, until the
//                                tape's next successful answer; overlapping 418s are one ban
//   429, -1003                   rate_limit, with its recorded Retry-After
//   504, -1006, -1007            unknown_outcome: the venue may have acted
//   another 5xx, -1000/-1001/-1016   error: the first request on that endpoint gets it
//   no answer                    unknown_outcome when the transport says the request may have
//                                arrived (a timeout, a reset after sending), else reset
//   an answer too large to read  by its status as above; a 2xx is unknown_outcome, unreadable
// Left out: -1021 (our clock's doing; sim.scenario has clock_jump for it), rejections and refused
// credentials (our requests' doing, which the simulator judges itself), routes the endpoint
// table does not know (except for a 418: a ban stops everything).
//
// Where they are read: a run meets them from its first request, so it needs every one before it
// starts, and no part of a tape can promise that: a line is written when its answer arrives, so
// a call sent at t may sit any distance further on in the file (a slow answer, a clock stepped
// back), and an unstated ban's end is the next success, maybe much later. So incidents never
// stream with the events; they are read in a pass over the whole tape:
// - the pass that decodes the events, where nothing waits on it: preparing the event cache (a
//   sweep, a queue worker) and a first run that decodes in process (it decodes the tape into the
//   cache first, then reads the cache): event-cache.ts;
// - a first run decoding on a thread reads them on its main thread meanwhile (the tape read once
//   more, parsing only the lines that are not a plain success), so the run and the decoding still
//   overlap: waiting for the thread's pass would put the whole decoding before the run.
// Every pass sees the same lines the same way, so each path gives the same list. The result is
// kept in the event cache beside the tape's events (<hash>.incidents), so later runs and a
// sweep's runs read a small file.
import { join } from 'node:path';
import { VenueCode } from '../exchange/codes.js';
import { banEnd, CODE_CLASS } from '../exchange/errors.js';
import { parseJsonLossless } from '../exchange/json.js';
import type { RecordedAnswer, RecordedIncident } from '../sim/types.js';
import { perFileVersion, tapeDigest } from './digest.js';
import type { Tape, TapeCall } from './format.js';
import { openTape } from './reader.js';
import { readSidecar, writeSidecar } from './sidecar.js';

/** The incidents of calls in file order (a tape in memory), in time order. */
export function incidentsOf(calls: Iterable<TapeCall>): RecordedIncident[] {
  const collector = new IncidentCollector();
  for (const c of calls) collector.add(c);
  return collector.done();
}

/**
 * The incidents of a tape in memory or in a file. A file's are kept in the event cache when
 * there is one (the file is the memo: delete it and the tape is read again), else in memory.
 */
export async function recordedIncidents(from: { tape?: Tape; tapePath?: string; eventCacheDir?: string }): Promise<readonly RecordedIncident[]> {
  if (from.tape) return incidentsOf(from.tape.calls);
  if (!from.tapePath) return [];
  const path = from.tapePath;
  if (from.eventCacheDir !== undefined) {
    const sidecar = sidecarOf(join(from.eventCacheDir, `${await tapeDigest(path)}.events`));
    return readIncidents(sidecar) ?? writeIncidents(sidecar, await fromFile(path));
  }
  return incidentsOfFile(path);
}

/** The incidents file beside a tape's event cache file. */
export function sidecarOf(eventsPath: string): string {
  return eventsPath.replace(/\.events$/, '.incidents');
}

/** The calls, each shown to `collector` as it passes: a pass that decodes a tape's events collects its incidents too. */
export async function* collecting(calls: AsyncIterable<TapeCall>, collector: IncidentCollector): AsyncGenerator<TapeCall> {
  for await (const c of calls) {
    collector.add(c);
    yield c;
  }
}

/** Without a cache: a sweep's runs in one thread, or a test's, read a tape once. */
const incidentsOfFile = perFileVersion(16, fromFile);
/** 2: the sidecar's list under `payload` (src/tape/sidecar.ts). */
const SIDECAR_VERSION = 2;

async function fromFile(path: string): Promise<RecordedIncident[]> {
  const collector = new IncidentCollector();
  // A plain success matters only while a ban waits for one to end it.
  const { calls } = await openTape(path, { select: (text) => collector.waiting || !plainSuccess(text) });
  for await (const c of calls) collector.add(c);
  return collector.done();
}

function readIncidents(path: string): RecordedIncident[] | undefined {
  const payload = readSidecar(path, SIDECAR_VERSION);
  return Array.isArray(payload) ? (payload as RecordedIncident[]) : undefined;
}

/** The incidents kept beside the cache file, for the next run. */
export function writeIncidents(path: string, incidents: RecordedIncident[]): RecordedIncident[] {
  return writeSidecar(path, SIDECAR_VERSION, incidents);
}

const RESPONSE_STATUS = '"response":{"status":';

/**
 * Whether a tape line is a 2xx answer whose body has no "code" (escaped, inside the line's
 * JSON): a success, which holds no incident. Anything else is parsed and judged.
 */
export function plainSuccess(text: string): boolean {
  const i = text.indexOf(RESPONSE_STATUS);
  return i >= 0 && text.charCodeAt(i + RESPONSE_STATUS.length) === 0x32 /* 2 */ && !text.includes('\\"code\\"', i);
}

/** Gathers a tape's incidents from its calls in file order. */
export class IncidentCollector {
  private readonly bans: RecordedIncident[] = [];
  private readonly others: RecordedIncident[] = [];
  /**
   * Bans whose end the venue did not say: the tape's next successful answer ends them. Each
   * keeps the latest arrival from its own line on, the end of one nothing ends: a pass that
   * parses only the lines that can hold an incident parses every line while one waits, so it
   * sees what a pass over every line sees.
   */
  private unended: Array<{ ban: RecordedIncident; last: number }> = [];

  get waiting(): boolean {
    return this.unended.length > 0;
  }

  add(c: TapeCall): void {
    const arrival = c.at + c.ms;
    for (const u of this.unended) u.last = Math.max(u.last, arrival);
    const seen = judge(c);
    if (seen === 'success') {
      // Sent after the ban began and let through: it had ended by then.
      const still: Array<{ ban: RecordedIncident; last: number }> = [];
      for (const u of this.unended) {
        if (u.ban.at < c.at) u.ban.until = c.at;
        else still.push(u);
      }
      this.unended = still;
    } else if (seen?.kind === 'ban') {
      this.bans.push(seen);
      if (seen.until === undefined) this.unended.push({ ban: seen, last: arrival });
    } else if (seen) this.others.push(seen);
  }

  /** Every incident, in time order (file order within a millisecond); a ban nothing ended lasts to the tape's end. */
  done(): RecordedIncident[] {
    for (const u of this.unended) u.ban.until = u.last + 1;
    this.unended = [];
    const merged: RecordedIncident[] = [];
    for (const b of [...this.bans].sort((x, y) => x.at - y.at)) {
      const last = merged[merged.length - 1];
      // A 418 while banned (requests in flight, or sent by another loop) is the same ban.
      if (last && b.at <= last.until!) last.until = Math.max(last.until!, b.until!);
      else merged.push(b.answer ? { kind: 'ban', at: b.at, until: b.until!, answer: b.answer } : { kind: 'ban', at: b.at, until: b.until! });
    }
    return [...merged, ...this.others].sort((x, y) => x.at - y.at);
  }
}

/** What a call's answer was: a success, an incident (a ban's end may be left to the collector), or neither. */
function judge(c: TapeCall): RecordedIncident | 'success' | undefined {
  if ('response' in c) {
    const r = c.response;
    // plainSuccess() on the parsed call: not parsed again, and judged as a pass that skips the line's text judges it.
    if (r.status >= 200 && r.status < 300 && !r.body.includes('"code"')) return 'success';
    return answered(c, r.status, r.headers, r.body);
  }
  const f = c.failure;
  if (f.tooLarge) return answered(c, f.tooLarge.status, f.tooLarge.headers, undefined);
  if (c.endpoint === null) return undefined;
  return { kind: f.maybeDelivered ? 'unknown_outcome' : 'reset', at: c.at, endpoint: c.endpoint, message: f.message };
}

/** `body` undefined: an answer too large to read. */
function answered(c: TapeCall, status: number, recordedHeaders: Record<string, string>, body: string | undefined): RecordedIncident | 'success' | undefined {
  const parsed = body === undefined ? undefined : parse(body);
  const code = codeOf(parsed);
  const ok = status >= 200 && status < 300;
  if (ok && body !== undefined && (code === undefined || code === 0)) return 'success';
  const headers = Object.fromEntries(Object.entries(recordedHeaders).map(([k, v]) => [k.toLowerCase(), v]));
  const answer: RecordedAnswer = { status, headers, body: body ?? '' };
  if (status === 418) {
    const arrived = c.at + c.ms;
    const until = banEnd({ headers, body: parsed, now: arrived, localNow: arrived });
    // Stated: the simulator states the same end; unstated, it answers as recorded (no end).
    return until === undefined ? { kind: 'ban', at: c.at, answer } : { kind: 'ban', at: c.at, until };
  }
  if (c.endpoint === null || code === VenueCode.INVALID_TIMESTAMP) return undefined;
  const cls = code === undefined ? undefined : CODE_CLASS[code];
  const endpoint: string = c.endpoint;
  if (status === 429 || cls === 'rateLimited') return { kind: 'rate_limit', at: c.at, endpoint, answer };
  if (status === 504 || cls === 'outcomeUnknown' || (ok && body === undefined)) return { kind: 'unknown_outcome', at: c.at, endpoint, answer };
  if (status >= 500 || cls === 'temporary') return { kind: 'error', at: c.at, endpoint, answer };
  return undefined;
}

function parse(body: string): unknown {
  try {
    return parseJsonLossless(body);
  } catch {
    return undefined;
  }
}

/** A body's venue code, a number or numeric text, as the client reads it. */
function codeOf(body: unknown): number | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const raw = (body as Record<string, unknown>).code;
  if (typeof raw === 'number') return raw;
  return typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : undefined;
}
