// A venue rejection: the {code,msg} body and the HTTP status it travels with.
import { VenueCode } from '../exchange/codes.js';

export class SimError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status = 400,
    /** Extra members of the error body (banUntil) and headers (Retry-After). */
    readonly extra: { body?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'SimError';
  }
}

export const reject = (code: number, msg: string, status = 400): never => {
  throw new SimError(code, msg, status);
};

export const missing = (name: string): never =>
  reject(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`);

export const malformed = (name: string, why: string): never =>
  reject(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, `Parameter '${name}' ${why}.`);

/** A 418: the account is banned until `until` (epoch ms), with a Retry-After in whole seconds unless `exact`. */
export function banned(until: number, now: number, opts: { exact?: boolean } = {}): SimError {
  return new SimError(VenueCode.TOO_MANY_REQUESTS, `Way too many requests; banned until ${until}.`, 418, {
    body: { banUntil: until },
    // Whole seconds, rounded up: a client takes the later of the two ends, so `exact` (a recorded
    // ban's end, as the recording read it) leaves it out rather than lengthen the ban.
    headers: opts.exact ? {} : { 'retry-after': String(Math.max(1, Math.ceil((until - now) / 1000))) },
  });
}
