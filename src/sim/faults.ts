// Faults, each with a rate, drawn from the seed. Every request draws the same number of values
// whatever the rates are, so changing one rate never shifts the draws of another.
import { stream, type Rng } from './random.js';

export interface LatencySpec {
  /** One-way delay in ms, each way (request and response). */
  min: number;
  max: number;
  /** uniform in [min, max]; exponential: min plus an exponential tail of mean (max-min)/4, capped at max. */
  shape?: 'uniform' | 'exponential';
}

export interface FaultOptions {
  latencyMs: LatencySpec;
  /** Answer 503 {code:-1016} (service unavailable) without acting. */
  error5xxRate: number;
  /** Drop the connection before acting (no answer). */
  resetRate: number;
  /** Act on a write (order, batch, cancel), then drop the connection: the client never hears. */
  lostResponseRate: number;
  /** Act on a write, then answer 504 {code:-1007}: outcome unknown to the client. */
  timeoutRate: number;
  /**
   * Act on a write (place or cancel), then answer an error instead of its success body: 500
   * {code:-1000}, 502 with an HTML page, or 200 {code:-1001}, one of the three by a seeded draw.
   */
  errorAfterActRate: number;
  /** Share of fills that myTrades shows only lateFillDelayMs after they happened. */
  lateFillRate: number;
  lateFillDelayMs: number;
  /** Venue clock minus the injected clock, in ms (may be negative). */
  clockSkewMs: number;
}

export const NO_FAULTS: FaultOptions = {
  latencyMs: { min: 0, max: 0, shape: 'uniform' },
  error5xxRate: 0,
  resetRate: 0,
  lostResponseRate: 0,
  timeoutRate: 0,
  errorAfterActRate: 0,
  lateFillRate: 0,
  lateFillDelayMs: 3000,
  clockSkewMs: 0,
};

export interface Draw {
  latencyIn: number;
  latencyOut: number;
  reset: boolean;
  error5xx: boolean;
  lost: boolean;
  timeout: boolean;
  /** The error-after-act answer to give (index into AFTER_ACT_ANSWERS), if the fault hits. */
  afterAct: number | undefined;
}

export class Faults {
  private readonly requests: Rng;
  private readonly fills: Rng;
  /** A stream of its own, so that adding this fault left every older draw of a seed unchanged. */
  private readonly afterAct: Rng;

  constructor(
    seed: number,
    public options: FaultOptions,
  ) {
    this.requests = stream(seed, 'faults:requests');
    this.fills = stream(seed, 'faults:fills');
    this.afterAct = stream(seed, 'faults:after-act');
  }

  draw(): Draw {
    const r = this.requests;
    const o = this.options;
    const u = [r.next(), r.next(), r.next(), r.next(), r.next(), r.next()] as const;
    const hitAfterAct = hit(o.errorAfterActRate, this.afterAct.next());
    const shape = Math.floor(this.afterAct.next() * AFTER_ACT_ANSWERS.length);
    return {
      latencyIn: latency(o.latencyMs, u[0]),
      latencyOut: latency(o.latencyMs, u[1]),
      reset: hit(o.resetRate, u[2]),
      error5xx: hit(o.error5xxRate, u[3]),
      lost: hit(o.lostResponseRate, u[4]),
      timeout: hit(o.timeoutRate, u[5]),
      afterAct: hitAfterAct ? shape : undefined,
    };
  }

  /** When a fill that happened at `at` becomes visible in myTrades. */
  visibleAt(at: number): number {
    const late = hit(this.options.lateFillRate, this.fills.next());
    return late ? at + this.options.lateFillDelayMs : at;
  }
}

/** What the venue answers after acting under errorAfterActRate. */
export const AFTER_ACT_ANSWERS: ReadonlyArray<{ status: number; contentType: string; body: string; code?: number }> = [
  { status: 500, contentType: 'application/json', body: '{"code":-1000,"msg":"An unknown error occurred while processing the request."}', code: -1000 },
  { status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1></body></html>' },
  { status: 200, contentType: 'application/json', body: '{"code":-1001,"msg":"Internal error; unable to process your request. Please try again."}', code: -1001 },
];

function hit(rate: number, u: number): boolean {
  return rate >= 1 || u < rate;
}

function latency(spec: LatencySpec, u: number): number {
  const { min, max } = spec;
  if (max <= min) return Math.max(0, min);
  if (spec.shape === 'exponential') {
    const mean = (max - min) / 4;
    return Math.min(max, min + Math.round(-Math.log(1 - u) * mean));
  }
  return min + Math.floor(u * (max - min + 1));
}
