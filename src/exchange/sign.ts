// X-CH-SIGN: hex HMAC-SHA256 over timestamp + METHOD + path [+ '?' + query] [+ body].
// The text signed is byte for byte what is sent: callers pass the exact query and body strings.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignInput {
  timestamp: string;
  method: string;
  path: string;
  /** Raw query string without '?'; empty when there is none. */
  query: string;
  /** Raw body string (POST only); empty for GET. */
  body: string;
}

export function preHash({ timestamp, method, path, query, body }: SignInput): string {
  const upper = method.toUpperCase();
  const target = query.length > 0 ? `${path}?${query}` : path;
  return `${timestamp}${upper}${target}${upper === 'POST' ? body : ''}`;
}

export function sign(secret: string, input: SignInput): string {
  return createHmac('sha256', secret).update(preHash(input), 'utf8').digest('hex');
}

/** Case-insensitive, constant-time comparison of a received signature with the expected one. */
export function signatureMatches(secret: string, input: SignInput, received: string): boolean {
  const expected = Buffer.from(sign(secret, input), 'ascii');
  const got = Buffer.from(received.toLowerCase(), 'ascii');
  return got.length === expected.length && timingSafeEqual(got, expected);
}
