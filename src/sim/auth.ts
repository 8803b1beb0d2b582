// The gate of signed and keyed endpoints, in the order the simulator checks it (README.md):
// Content-Type (POST), key present, timestamp present, signature present, key known, timing,
// signature. Every rejection is a SimError with the venue's code.
import type { HttpRequest } from '../core/ports.js';
import { VenueCode } from '../exchange/codes.js';
import { isSigned, needsKey, type Endpoint } from '../exchange/endpoints.js';
import { signatureMatches } from '../exchange/sign.js';
import { SimError } from './errors.js';

export const DEFAULT_RECV_WINDOW = 5000;
/** The contract lets a client clock run at most this far ahead of the venue's. */
export const MAX_LEAD_MS = 1000;

export interface Credential {
  apiKey: string;
  apiSecret: string;
}

const unauthorized = (code: number, msg: string) => new SimError(code, msg, 401);

/**
 * Checks the request's credentials; returns the API key it was made with (undefined for NONE).
 * `trusted` (a caller in this process): a request without X-CH-SIGN passes on its key and
 * timestamp; one that carries a signature is still checked.
 */
export function authenticate(
  req: HttpRequest,
  headers: Readonly<Record<string, string>>,
  ep: Endpoint,
  keys: ReadonlyMap<string, Credential>,
  serverTime: number,
  recvWindow: number,
  trusted = false,
): string | undefined {
  if (!needsKey(ep)) return undefined;
  const apiKey = headers['x-ch-apikey'];
  if (apiKey === undefined || apiKey === '') throw unauthorized(VenueCode.UNAUTHORIZED, 'Header X-CH-APIKEY is missing.');
  if (!isSigned(ep)) {
    if (!keys.has(apiKey)) throw unauthorized(VenueCode.REJECTED_API_KEY, 'Invalid API key, IP, or permissions for action.');
    return apiKey;
  }
  const ts = headers['x-ch-ts'];
  if (ts === undefined || ts === '') throw unauthorized(VenueCode.MISSING_TIMESTAMP, 'Header X-CH-TS is missing.');
  const sign = headers['x-ch-sign'];
  const unsigned = sign === undefined || sign === '';
  if (unsigned && !trusted) throw unauthorized(VenueCode.MISSING_SIGNATURE, 'Header X-CH-SIGN is missing.');
  const cred = keys.get(apiKey);
  if (!cred) throw unauthorized(VenueCode.REJECTED_API_KEY, 'Invalid API key, IP, or permissions for action.');
  if (!/^\d{1,16}$/.test(ts)) throw new SimError(VenueCode.INVALID_TIMESTAMP, 'X-CH-TS must be Unix time in milliseconds.', 400);
  const t = Number(ts);
  if (!(t < serverTime + MAX_LEAD_MS)) {
    throw new SimError(VenueCode.INVALID_TIMESTAMP, "Timestamp for this request was 1000ms ahead of the server's time.", 400);
  }
  if (serverTime - t > recvWindow) throw new SimError(VenueCode.INVALID_TIMESTAMP, 'Timestamp for this request is outside of the recvWindow.', 400);
  if (unsigned) return apiKey;
  const input = { timestamp: ts, method: req.method, path: req.path, query: req.query, body: req.method === 'POST' ? req.body : '' };
  if (!signatureMatches(cred.apiSecret, input, sign!)) throw unauthorized(VenueCode.INVALID_SIGNATURE, 'Signature for this request is not valid.');
  return apiKey;
}
