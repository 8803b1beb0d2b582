// The venue's bad moments on a schedule, met before it looks at a request: the scenario's timed
// troubles (SimOptions.troubles: a 429 storm, a ban, a clock jump) and the troubles a tape
// recorded (SimOptions.incidents), each played back at its recorded time. How a recorded one
// answers, by kind:
//   ban              every request from `at` until `until` is answered 418: stating the end
//                    (banUntil, to the ms) when the recorded 418 stated it, else as recorded
//   rate_limit       the first request on its endpoint at or after `at` gets the recorded 429
//   error            the same with the recorded 5xx, or 200 -1000: the venue does not act
//   unknown_outcome  on a write (place or cancel), the venue acts, then gives the recorded
//                    answer (a 504) or none: of "it acted" and "it did not", the case that
//                    leaves the strategy an order it does not know of. A read just gets it.
//   reset            no answer, and the caller is told the request never left
// An endpoint's incidents meet its requests first in, first out: one request, one incident, so
// a run that calls an endpoint less often than the recording meets its incidents later.
import type { HttpResponse } from '../core/ports.js';
import { VenueCode } from '../exchange/codes.js';
import { banned, SimError } from './errors.js';
import { WRITES } from './routes.js';
import { INCIDENT_KINDS, SimFault, type Arrival, type IncidentKind, type RecordedIncident, type Trouble } from './types.js';

export type IncidentCounts = Record<IncidentKind, number>;

export class Troubles {
  /** Each endpoint's recorded incidents not met yet, in time order. */
  private readonly queues = new Map<string, RecordedIncident[]>();
  private readonly bans: RecordedIncident[];
  private readonly metBans = new Set<RecordedIncident>();
  private readonly given = counts();
  private readonly played = counts();

  constructor(
    private readonly scheduled: readonly Trouble[],
    incidents: readonly RecordedIncident[],
  ) {
    const inOrder = [...incidents].sort((a, b) => a.at - b.at);
    this.bans = inOrder.filter((i) => i.kind === 'ban');
    for (const i of inOrder) {
      this.given[i.kind]++;
      if (i.kind === 'ban' || i.endpoint === undefined) continue;
      let queue = this.queues.get(i.endpoint);
      if (!queue) this.queues.set(i.endpoint, (queue = []));
      queue.push(i);
    }
  }

  /** How far the venue's clock is off at venue time `now` (a clock_jump). */
  skewAt(now: number): number {
    return this.troubled('clock_jump', now)?.skewMs ?? 0;
  }

  /**
   * What answers a request arriving at `now` before the venue looks at it: a scheduled ban or
   * storm (a SimError, answered as any refusal is), a recorded ban, or the endpoint's next
   * recorded incident when it is due and does not wait for the venue to act (afterAct).
   */
  before(arrival: Arrival, now: number): SimError | HttpResponse | SimFault | undefined {
    const trouble = this.troubled('ban', now) ?? this.troubled('rate_limit_storm', now);
    if (trouble?.kind === 'ban') return banned(trouble.until, now);
    if (trouble?.kind === 'rate_limit_storm') {
      const seconds = Math.max(1, Math.ceil((trouble.until - now) / 1000));
      return new SimError(VenueCode.TOO_MANY_REQUESTS, 'Too many requests: the venue is shedding load.', 429, { headers: { 'retry-after': String(seconds) } });
    }
    if (this.given.ban + this.queues.size === 0) return undefined;
    const ban = this.bans.find((b) => b.at <= now && now < b.until!);
    if (ban) {
      if (!this.metBans.has(ban)) {
        this.metBans.add(ban);
        this.played.ban++;
      }
      arrival.incident = 'ban';
      return ban.answer ? this.recorded(arrival, ban.answer) : banned(ban.until!, now, { exact: true });
    }
    const next = this.due(arrival.endpoint, now);
    if (!next || this.acts(next)) return undefined;
    return this.play(arrival, next, false);
  }

  /** After the venue acted on a write: the endpoint's next recorded incident, when it is due and loses the answer. */
  afterAct(arrival: Arrival, now: number): HttpResponse | SimFault | undefined {
    const next = this.due(arrival.endpoint, now);
    return next && this.acts(next) ? this.play(arrival, next, true) : undefined;
  }

  /** The recorded incidents given, and how many of each met a request. */
  incidents(): { given: IncidentCounts; played: IncidentCounts } {
    return { given: { ...this.given }, played: { ...this.played } };
  }

  private troubled(kind: Trouble['kind'], now: number): Trouble | undefined {
    return this.scheduled.find((t) => t.kind === kind && t.from <= now && now < t.until);
  }

  private due(endpoint: string, now: number): RecordedIncident | undefined {
    const next = this.queues.get(endpoint)?.[0];
    return next && next.at <= now ? next : undefined;
  }

  private acts(i: RecordedIncident): boolean {
    return i.kind === 'unknown_outcome' && WRITES.has(i.endpoint!);
  }

  private play(arrival: Arrival, i: RecordedIncident, acted: boolean): HttpResponse | SimFault {
    this.queues.get(i.endpoint!)!.shift();
    this.played[i.kind]++;
    arrival.incident = i.kind;
    if (i.answer) return this.recorded(arrival, i.answer);
    const fault = i.kind === 'reset' ? 'reset' : 'lost-response';
    arrival.fault = fault;
    return new SimFault(fault, acted, i.kind !== 'reset', i.message ?? 'connection failed');
  }

  /** The recorded answer, as text (a trusted caller parses text too). */
  private recorded(arrival: Arrival, a: NonNullable<RecordedIncident['answer']>): HttpResponse {
    arrival.status = a.status;
    const code = codeOf(a.body);
    if (code !== undefined) arrival.code = code;
    return { status: a.status, headers: { ...a.headers }, body: a.body };
  }
}

function counts(): IncidentCounts {
  return Object.fromEntries(INCIDENT_KINDS.map((k) => [k, 0])) as IncidentCounts;
}

/** The venue code of an error body, for the arrival log. */
function codeOf(body: string): number | undefined {
  const m = /"code"\s*:\s*"?(-?\d+)"?/.exec(body);
  return m ? Number(m[1]) : undefined;
}
