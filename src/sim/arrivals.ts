// The log of every request the venue saw (SimExchange.arrivals()), kept in typed columns: an
// object per request was a quarter of a 24-hour backtest's live heap (about 96 bytes each
// against 27 here). Objects are made only when someone reads the log, and kept for the next read.
import { INCIDENT_KINDS, type Arrival } from './types.js';

const NO_CODE = 0x7fffffff;
const FAULTS = [undefined, 'reset', 'error5xx', 'lost-response', 'timeout', 'error-after-act'] as const;
const INCIDENTS = [undefined, ...INCIDENT_KINDS];

/** Strings seen in a column, each stored once; index 0 is undefined. */
class Names {
  private readonly byName = new Map<string | undefined, number>([[undefined, 0]]);
  readonly names: (string | undefined)[] = [undefined];

  index(name: string | undefined): number {
    let i = this.byName.get(name);
    if (i === undefined) this.byName.set(name, (i = this.names.push(name) - 1));
    return i;
  }
}

export class ArrivalLog {
  private at = new Float64Array(1024);
  private status = new Uint16Array(1024);
  private code = new Int32Array(1024);
  private fault = new Uint8Array(1024);
  private incident = new Uint8Array(1024);
  private key = new Uint32Array(1024);
  private remote = new Uint32Array(1024);
  private endpoint = new Uint32Array(1024);
  private readonly keys = new Names();
  private readonly remotes = new Names();
  private readonly endpoints = new Names();
  /** Requests stored in the columns. */
  private stored = 0;
  /** The latest request, whose answer the venue may still be writing into it. */
  private latest: Arrival | undefined;
  /** Objects made for readers: the first `read.length` stored requests. */
  private read: Arrival[] = [];

  /** `kept`: beyond it, the oldest half is dropped. */
  constructor(private readonly kept: number) {}

  /** Logs `a`, which the venue goes on filling in (status, code, fault) until the next request. */
  add(a: Arrival): void {
    this.store();
    this.latest = a;
    if (this.stored + 1 > this.kept) this.drop(this.kept / 2);
  }

  /** Every request seen, in arrival order: one array, and one object per request, whenever read. */
  list(): readonly Arrival[] {
    this.store();
    for (let i = this.read.length; i < this.stored; i++) this.read.push(this.arrival(i));
    return this.read;
  }

  /** Requests in the log. */
  get size(): number {
    return this.stored + (this.latest ? 1 : 0);
  }

  /** Moves the latest request, complete now, into the columns. */
  private store(): void {
    const a = this.latest;
    if (!a) return;
    this.latest = undefined;
    // A reader may hold it already (read[stored]): it stays the one object for this request.
    if (this.stored === this.at.length) this.grow();
    const i = this.stored++;
    this.at[i] = a.at;
    this.status[i] = a.status;
    this.code[i] = a.code ?? NO_CODE;
    this.fault[i] = FAULTS.indexOf(a.fault);
    this.incident[i] = INCIDENTS.indexOf(a.incident);
    this.key[i] = this.keys.index(a.key);
    this.remote[i] = this.remotes.index(a.remote);
    this.endpoint[i] = this.endpoints.index(a.endpoint);
  }

  private arrival(i: number): Arrival {
    const a: Arrival = { at: this.at[i]!, key: this.keys.names[this.key[i]!], remote: this.remotes.names[this.remote[i]!]!, endpoint: this.endpoints.names[this.endpoint[i]!]!, status: this.status[i]! };
    if (this.fault[i]) a.fault = FAULTS[this.fault[i]!];
    if (this.incident[i]) a.incident = INCIDENTS[this.incident[i]!];
    if (this.code[i] !== NO_CODE) a.code = this.code[i]!;
    return a;
  }

  /** Drops the `n` oldest requests (the latest one, not yet stored, stays). */
  private drop(n: number): void {
    for (const column of [this.at, this.status, this.code, this.fault, this.incident, this.key, this.remote, this.endpoint]) column.copyWithin(0, n, this.stored);
    this.stored -= n;
    this.read.splice(0, Math.min(n, this.read.length));
  }

  private grow(): void {
    const size = this.at.length * 2;
    const wider = <T extends Float64Array | Uint16Array | Int32Array | Uint8Array | Uint32Array>(column: T, make: new (n: number) => T): T => {
      const next = new make(size);
      next.set(column);
      return next;
    };
    this.at = wider(this.at, Float64Array);
    this.status = wider(this.status, Uint16Array);
    this.code = wider(this.code, Int32Array);
    this.fault = wider(this.fault, Uint8Array);
    this.incident = wider(this.incident, Uint8Array);
    this.key = wider(this.key, Uint32Array);
    this.remote = wider(this.remote, Uint32Array);
    this.endpoint = wider(this.endpoint, Uint32Array);
  }
}
