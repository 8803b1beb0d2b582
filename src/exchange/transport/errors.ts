// Transport failures the executor classifies specially. Kept apart from http.ts so the
// executor can recognise them without loading undici (paper mode uses the in-process sim).
import { TransportFailure } from '../../core/ports.js';

/**
 * The venue answered with a body over the cap; we stopped reading it. It carries the status
 * and headers so the executor can still classify the answer (a 5xx stays a TemporaryError).
 * The request was delivered, so for a write the outcome is unknown.
 */
export class ResponseTooLargeError extends TransportFailure {
  constructor(readonly maxBytes: number, readonly status: number, readonly headers: Readonly<Record<string, string>>) {
    super(`response body is larger than ${maxBytes} bytes; stopped reading it`, true);
    this.name = 'ResponseTooLargeError';
  }
}
